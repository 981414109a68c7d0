// Command hooks for Node (`agentwire/node`): a plugin's `hooks/hooks.json` command run as the
// CLI runs it: `/bin/sh -c COMMAND` in the project folder with the event JSON on stdin, in its
// own process group (killed whole when it exits or times out), with every process it left that
// still carries its run's tag in its environment killed too (a `setsid` daemon, a double fork:
// see reap.js for how, and what that cannot find), with the short environment MCP servers get in the CLI (never the host's secrets) plus
// `CLAUDE_PROJECT_DIR` and `CLAUDE_PLUGIN_ROOT`, and its output kept to 1 MiB per stream.
import { spawn } from 'node:child_process';
import { RUN_TAG_VAR, newRunTag, sweepTagged } from './reap.js';
import { inheritedEnv } from './child-env.js';

/** Most bytes kept of a hook's stdout and of its stderr; the rest is read and dropped. */
const MAX_OUTPUT_BYTES = 1024 * 1024;

/** The first MAX_OUTPUT_BYTES of a stream, and how much more there was. */
function capture(stream) {
  const kept = [];
  let size = 0;
  let dropped = 0;
  stream.on('data', (chunk) => {
    const room = MAX_OUTPUT_BYTES - size;
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      kept.push(part);
      size += part.length;
    }
    dropped += Math.max(0, chunk.length - Math.max(room, 0));
  });
  return () => {
    const text = Buffer.concat(kept).toString('utf8');
    return dropped > 0 ? `${text}\n[hook output cut: ${dropped} more bytes]` : text;
  };
}

/** Kills the hook's process group, then whatever left it but still carries the run's tag;
 * resolves once that is done. */
function killTree(child, tag) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
  return sweepTagged(tag);
}

/** Runs command `hook` (`{command, timeoutMs, pluginRoot?}`) with `inputJson` in `cwd`. */
export function runCommandHook(hook, inputJson, cwd) {
  const projectDir = cwd || process.cwd();
  const env = inheritedEnv();
  env.CLAUDE_PROJECT_DIR = projectDir;
  if (hook.pluginRoot) env.CLAUDE_PLUGIN_ROOT = hook.pluginRoot;
  const tag = newRunTag();
  env[RUN_TAG_VAR] = tag;
  const started = Date.now();
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('/bin/sh', ['-c', hook.command], { cwd: projectDir, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ failed: `cannot start /bin/sh: ${error.message}` });
      return;
    }
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    let timedOut = false;
    // The sweep of what the hook left; its result waits for it, so nothing outlives the call.
    let swept = Promise.resolve();
    const timer = setTimeout(() => {
      timedOut = true;
      swept = killTree(child, tag);
    }, hook.timeoutMs);
    // A hook that never reads its stdin is fine: the write fails or is dropped.
    child.stdin.on('error', () => {});
    child.stdin.end(inputJson);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ failed: `cannot start /bin/sh: ${error.message}`, durationMs: Date.now() - started });
    });
    // `close` waits for the pipes; the tree is killed at `exit`, so a daemon holding them
    // open ends with it instead of keeping the run waiting.
    child.on('exit', () => {
      swept = killTree(child, tag);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      let result;
      if (timedOut) result = { timedOut: true, durationMs };
      else if (code === null) result = { failed: `killed by ${signal}`, durationMs, stdout: stdout(), stderr: stderr() };
      else result = { code, stdout: stdout(), stderr: stderr(), durationMs };
      swept.then(() => resolve(result));
    });
  });
}
