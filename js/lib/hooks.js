// Hooks for the npm package: `createAgent({ hooks: { PreToolUse: [fn], ... } })` and the
// command hooks plugins bring (`hooks/hooks.json`). The core holds every hook and merges what
// they say with the same only-tighten rule as the CLI (no hook can loosen the gate); this
// file only runs what the core asks: functions anywhere, command hooks only where a process
// runner was installed (the `agentwire/node` entry). Elsewhere a command hook is listed as not
// run, with the reason, and never matches.
import { describe, fail, isPlainObject } from './check.js';

/** The events a hook can be given for (Claude Code's names). */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SessionEnd',
  'Notification',
  'PreCompact',
  'SubagentStart',
  'SubagentStop',
];
const GROUP_FIELDS = ['matcher', 'hooks', 'timeoutMs'];
/** A function hook's default time (Claude Code's 60 s), and the most a hook may ask for. */
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_TIMEOUT_MS = 600_000;
/** Most characters of a hook's output kept, as the CLI keeps 1 MiB of a command's. */
export const MAX_OUTPUT_CHARS = 1024 * 1024;
/** Why a command hook does not run here. */
export const NO_PROCESSES =
  'command hooks run only with agentwire/node; this entry never starts a process';

/** Runs a command hook `(hook, inputJson) → Promise<run>`; installed by `agentwire/node`. */
let commandRunner = null;

/** Installs the runner of command hooks (the Node entry does; nothing else should). */
export function setCommandHookRunner(runner) {
  commandRunner = runner;
}

/**
 * Checks `hooks` (`{ Event: [fn | { matcher?, hooks: [fn], timeoutMs? }] }`) and lists its
 * functions as `{ id, event, matcher, timeoutMs, fn }`, each id naming event, place and the
 * function's name.
 */
export function checkHooks(where, hooks) {
  if (hooks === undefined) return [];
  if (!isPlainObject(hooks)) {
    fail(where, `"hooks" must be an object of events ({ PreToolUse: [fn] }), got ${describe(hooks)}`);
  }
  const functions = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!HOOK_EVENTS.includes(event)) {
      fail(where, `hooks: unknown event ${JSON.stringify(event)} (events: ${HOOK_EVENTS.join(', ')})`);
    }
    if (!Array.isArray(entries)) fail(where, `hooks.${event} must be an array, got ${describe(entries)}`);
    entries.forEach((entry, i) => {
      const at = `hooks.${event}[${i}]`;
      const group = typeof entry === 'function' ? { hooks: [entry] } : entry;
      if (!isPlainObject(group)) fail(where, `${at} must be a function or { matcher, hooks }, got ${describe(entry)}`);
      for (const key of Object.keys(group)) {
        if (!GROUP_FIELDS.includes(key)) fail(where, `${at}: unknown field ${describe(key)} (fields: ${GROUP_FIELDS.join(', ')})`);
      }
      if (group.matcher !== undefined && typeof group.matcher !== 'string') {
        fail(where, `${at}.matcher must be a string, got ${describe(group.matcher)}`);
      }
      const timeout = group.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      if (typeof timeout !== 'number' || !(timeout > 0) || timeout > MAX_TIMEOUT_MS) {
        fail(where, `${at}.timeoutMs must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${describe(group.timeoutMs)}`);
      }
      if (!Array.isArray(group.hooks) || group.hooks.some((f) => typeof f !== 'function')) {
        fail(where, `${at}.hooks must be an array of functions, got ${describe(group.hooks)}`);
      }
      group.hooks.forEach((fn, j) => {
        const id = `${event}[${i}]${group.hooks.length > 1 ? `[${j}]` : ''} ${fn.name || 'function'}`;
        functions.push({ id, event, matcher: group.matcher ?? '', timeoutMs: timeout, fn });
      });
    });
  }
  return functions;
}

/**
 * The core's hook configuration: `sources` (each plugin's `hooks.json` settings, blocked
 * where command hooks cannot run) and `functions`.
 */
export function hookConfig(functions, plugins, context) {
  const runsCommands = commandRunner !== null;
  return {
    sessionId: context.sessionId,
    cwd: context.cwd ?? '',
    sources: plugins.map(({ name, root, settings }) => ({
      label: `plugin ${name}`,
      pluginRoot: root ?? undefined,
      blocked: runsCommands ? undefined : NO_PROCESSES,
      settings,
    })),
    functions: functions.map(({ id, event, matcher, timeoutMs }) => ({ id, event, matcher, timeoutMs })),
  };
}

/** `text` kept to [`MAX_OUTPUT_CHARS`], saying how much more there was. */
export function bounded(text) {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_OUTPUT_CHARS)}\n[hook output cut: ${text.length - MAX_OUTPUT_CHARS} more characters]`;
}

/** Runs function hook `fn` on `input` under `timeoutMs`: the run the core reads. */
async function runFunction(fn, input, timeoutMs) {
  const started = Date.now();
  const controller = new AbortController();
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => {
      // Settled first: whatever the function does when aborted comes too late to count.
      resolve({ timedOut: true });
      controller.abort(new Error(`the hook took longer than ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const work = (async () => {
    try {
      // A copy each: one hook changing its input cannot change what the next one sees.
      const said = await fn(structuredClone(input), { signal: controller.signal });
      if (said === undefined || said === null) return { code: 0, stdout: '' };
      if (typeof said === 'string') return { code: 0, stdout: bounded(said) };
      if (typeof said !== 'object') return { failed: `returned ${describe(said)}, not an object or a string` };
      return { code: 0, stdout: bounded(JSON.stringify(said)) };
    } catch (error) {
      return { failed: `threw: ${error instanceof Error ? error.message : String(error)}` };
    }
  })();
  try {
    const run = await Promise.race([work, late]);
    return { ...run, durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The runner the core calls, `(event, inputJson, hooksJson) → Promise<runsJson>`: every hook
 * of the event at once, one run per hook in order.
 */
export function hookRunner(functions) {
  const byId = new Map(functions.map((f) => [f.id, f]));
  return async (_event, inputJson, hooksJson) => {
    await null; // out of the wasm call before any user code runs
    const input = JSON.parse(inputJson);
    const hooks = JSON.parse(hooksJson);
    const runs = await Promise.all(
      hooks.map(async (hook) => {
        if (hook.kind === 'function') {
          const entry = byId.get(hook.id);
          if (!entry) return { failed: `no function ${hook.id}` };
          return runFunction(entry.fn, input, hook.timeoutMs);
        }
        if (hook.kind === 'command' && commandRunner) {
          try {
            return await commandRunner(hook, inputJson, input.cwd);
          } catch (error) {
            return { failed: error instanceof Error ? error.message : String(error) };
          }
        }
        if (hook.kind === 'command') return { failed: NO_PROCESSES };
        return { failed: `${hook.kind} hooks do not run in the npm package` };
      }),
    );
    return JSON.stringify(runs);
  };
}
