// agentwire for Node: everything from the server entry, plus transports that need Node's APIs.
import { spawn } from 'node:child_process';
import {
  describe,
  fail,
  isPlainObject,
  nonEmptyString,
  optionalFunction,
  options as checkOptions,
} from './lib/check.js';

export * from './server.js';
export { discoverExtensions, loadPluginDir, loadSkillDir } from './lib/node-extensions.js';
export { loadInstructions } from './lib/node-instructions.js';
import { setCommandHookRunner } from './lib/hooks.js';
import { runCommandHook } from './lib/node-hooks.js';
import { RUN_TAG_VAR, newRunTag, sweepTagged } from './lib/reap.js';
import { inheritedEnv } from './lib/child-env.js';

// Only this entry starts processes for plugins' command hooks.
setCommandHookRunner(runCommandHook);

const STDIO_OPTIONS = ['env', 'cwd', 'stderr', 'onStderr'];
/** Lines of stderr kept to explain why a server exited. */
const STDERR_LINES = 20;
/** Matches a line with something besides whitespace (blank lines are skipped). */
const NOT_BLANK = /\S/;
/** How long a server may take to exit after its stdin closes, before it is terminated. */
const EXIT_GRACE_MS = 2000;

/**
 * An MCP server run as a child process speaking newline-delimited JSON-RPC on stdin/stdout.
 * The process starts when the agent connects and is stopped by `close()`.
 */
export function stdioTransport(command, args, options) {
  const where = 'stdioTransport';
  nonEmptyString(where, 'command', command);
  if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== 'string'))) {
    fail(where, `args must be an array of strings, got ${describe(args)}`);
  }
  const o = checkOptions(where, options, STDIO_OPTIONS);
  if (o.env !== undefined) {
    if (!isPlainObject(o.env) || Object.values(o.env).some((v) => typeof v !== 'string')) {
      fail(where, `"env" must be an object of strings, got ${describe(o.env)}`);
    }
  }
  if (o.cwd !== undefined && typeof o.cwd !== 'string') {
    fail(where, `"cwd" must be a string, got ${describe(o.cwd)}`);
  }
  if (o.stderr !== undefined && !['pipe', 'inherit', 'ignore'].includes(o.stderr)) {
    fail(where, `"stderr" must be "pipe", "inherit" or "ignore", got ${describe(o.stderr)}`);
  }
  optionalFunction(where, 'onStderr', o.onStderr);

  const label = [command, ...(args ?? [])].join(' ');
  let child = null;
  let deliver = () => {};
  let closedCallback = () => {};
  let finished = false;
  let pending = [];
  const stderrTail = [];

  const finish = (reason) => {
    if (finished) return;
    finished = true;
    const tail = stderrTail.length ? `; last stderr lines:\n${stderrTail.join('\n')}` : '';
    closedCallback(`${reason}${tail}`);
  };

  const onStdout = (chunk) => {
    // Linear in the input however it is chunked: only the new chunk is searched for newlines.
    // A line within one chunk (the usual case) is one slice, with no joining or copying.
    let from = 0;
    for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', from)) {
      const end = at > from && chunk.charCodeAt(at - 1) === 13 ? at - 1 : at; // "\r\n"
      let line;
      if (pending.length === 0) {
        line = chunk.slice(from, end);
      } else {
        pending.push(chunk.slice(from, at));
        line = pending.join('').replace(/\r$/, '');
        pending = [];
      }
      from = at + 1;
      if (NOT_BLANK.test(line)) deliver(line);
    }
    if (from < chunk.length) pending.push(chunk.slice(from));
  };

  const onStderr = (chunk) => {
    for (const line of chunk.split('\n')) {
      if (!line) continue;
      stderrTail.push(line);
      if (stderrTail.length > STDERR_LINES) stderrTail.shift();
      o.onStderr?.(line);
    }
  };

  const start = () => {
    if (child) return;
    // Tagged, so what the server leaves behind (a daemon that left its group) is found and
    // killed once it exits (reap.js).
    const tag = newRunTag();
    child = spawn(command, args ?? [], {
      // The CLI's short environment, never all of `process.env` (child-env.js), plus the caller's.
      env: { ...inheritedEnv(), ...o.env, [RUN_TAG_VAR]: tag },
      cwd: o.cwd,
      stdio: ['pipe', 'pipe', o.stderr ?? 'pipe'],
      windowsHide: true,
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onStdout);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', onStderr);
    // Writes to a process that died fail with EPIPE; the exit is reported by 'close'.
    child.stdin.on('error', () => {});
    child.on('error', (error) => finish(`could not run ${label}: ${error.message}`));
    // At `exit`, not `close`: a daemon holding the server's pipes open would delay `close`.
    child.on('exit', () => void sweepTagged(tag));
    child.on('close', (code, signal) =>
      finish(`${label} exited with ${signal ? `signal ${signal}` : `code ${code}`}`),
    );
  };

  return {
    send(line) {
      start();
      if (finished || !child.stdin.writable) throw new Error(`${label} is not running`);
      child.stdin.write(`${line}\n`);
    },
    onMessage(callback) {
      deliver = callback;
      start();
    },
    onClose(callback) {
      closedCallback = callback;
    },
    close() {
      if (!child || finished) return;
      child.stdin.end();
      // Polite first (stdin closed), then SIGTERM, then SIGKILL; timers do not hold Node open.
      const term = setTimeout(() => {
        if (!finished) child.kill('SIGTERM');
        const kill = setTimeout(() => finished || child.kill('SIGKILL'), EXIT_GRACE_MS);
        kill.unref();
      }, EXIT_GRACE_MS);
      term.unref();
    },
  };
}
