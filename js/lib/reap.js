// Finding what a child left behind, in Node (`agentwire/node`). Node cannot become a child
// subreaper, so a daemon that leaves its process group (`setsid`, a double fork, `nohup`) is
// re-parented to init and no process-group kill reaches it. What it keeps is its environment:
// each child the package starts gets a variable with a fresh random tag, every process it
// starts inherits it, and once the child exits (or times out, or is closed) every process of
// this user whose `/proc/PID/environ` carries the tag is killed, again until a pass finds none
// (a process forking while it is killed is found on the next pass).
//
// What this cannot catch: a process that starts with a fresh environment (`env -i`, a setuid
// program, anything started through another service such as `systemd-run` or `at`), one that
// overwrites its own environment block, one in another PID namespace or of another user, and
// anything on a system without `/proc` (macOS, the BSDs).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';

/** The variable that carries a child's tag into everything it starts. */
export const RUN_TAG_VAR = 'AGENTWIRE_RUN_TAG';

/** Most passes of one sweep: a fork bomb must not keep the sweep going forever. */
const MAX_PASSES = 50;

/** A fresh tag for one child (128 random bits, so no other process carries it by chance). */
export function newRunTag() {
  return randomBytes(16).toString('hex');
}

/** The pids of this user's processes (not this one) whose environment carries one of `needles`. */
function tagged(needles) {
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const found = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${name}`).uid !== uid) continue;
      // A zombie's environment reads empty: it is dead already and needs no signal.
      const environ = readFileSync(`/proc/${name}/environ`);
      if (needles.some((needle) => environ.includes(needle))) found.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Kills every process of this user whose environment carries one of `tags`; how many were signalled. */
function killTagged(tags) {
  // The variable starts its own NUL-separated entry; a tag is hex, so it cannot end early.
  const needles = tags.map((tag) => Buffer.from(`${RUN_TAG_VAR}=${tag}\0`));
  let killed = 0;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const found = tagged(needles);
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
        killed += 1;
      } catch {
        // It exited meanwhile.
      }
    }
  }
  return killed;
}

/** Tags waiting for the next sweep, each with the callers waiting for it. */
const queued = new Map();
let sweepScheduled = false;

/** Sweeps every queued tag in one pass over /proc, then tells their callers. */
function sweepQueued() {
  sweepScheduled = false;
  const batch = new Map(queued);
  queued.clear();
  killTagged([...batch.keys()]);
  for (const waiting of batch.values()) for (const done of waiting) done();
}

/**
 * Kills every process of this user whose environment carries `tag`; resolves once none is
 * left. Tags asked for in the same turn of the event loop share one scan of /proc (20 hooks
 * of one event ending together cost one scan, not 20: each scan reads every process's
 * environment synchronously).
 */
export function sweepTagged(tag) {
  return new Promise((resolve) => {
    const waiting = queued.get(tag);
    if (waiting) waiting.push(resolve);
    else queued.set(tag, [resolve]);
    if (!sweepScheduled) {
      sweepScheduled = true;
      setImmediate(sweepQueued);
    }
  });
}
