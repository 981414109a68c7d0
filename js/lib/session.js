// Sessions: the conversation kept entry by entry in a store the host chooses, in the core's
// transcript format (the lines of a CLI session file), and runs that pause for approval.
import { describe, fail, isPlainObject, messageOf } from './check.js';

/** The model keys of the models this package made (`openaiCompatible`, `anthropic`), kept out of every store. */
export const modelSecrets = new WeakMap();

/**
 * A store that keeps the entries in memory (`entries`, oldest first): the default of
 * `createAgent({ session: true })`, and a model for stores of your own.
 */
export function memorySession(entries = []) {
  if (!Array.isArray(entries)) fail('memorySession', `the entries must be an array, got ${describe(entries)}`);
  const kept = [...entries];
  return {
    entries: kept,
    append(entry) {
      kept.push(entry);
    },
    load() {
      return [...kept];
    },
  };
}

/** `session`: true (in memory) or a store `{ append(entry), load() }`, sync or async. */
export function checkSession(where, session) {
  if (session === undefined || session === false) return undefined;
  if (session === true) return memorySession();
  if (typeof session !== 'object' || session === null || typeof session.append !== 'function' || typeof session.load !== 'function') {
    fail(where, `"session" must be true or a store { append(entry), load() }, got ${describe(session)}`);
  }
  return session;
}

/** A random session id (the header's `id`), like the CLI's: hex, time first. */
function newId() {
  const hex = (n) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  return `${Date.now().toString(16)}-${hex(8)}`;
}

/** What `load()` gave, as the JSONL text the core reads (one entry per line). */
function loadedText(where, loaded) {
  if (loaded === undefined || loaded === null) return '';
  if (typeof loaded === 'string') return loaded;
  if (!Array.isArray(loaded)) {
    fail(where, `the session store's load() must give an array of entries (or JSONL text), got ${describe(loaded)}`);
  }
  return loaded
    .map((entry, i) => {
      if (typeof entry === 'string') return `${entry.replace(/\n+$/, '')}\n`;
      if (!isPlainObject(entry)) fail(where, `entry ${i + 1} of the session store must be an object or a JSON line, got ${describe(entry)}`);
      return `${JSON.stringify(entry)}\n`;
    })
    .join('');
}

/**
 * Values that never reach the store: those of sensitive environment variables (Node's
 * `process.env`, where there is one), of sensitive model headers, and the model key. The core
 * decides which names are sensitive.
 */
export function secretsOf(models) {
  const env = globalThis.process?.env;
  const vars = [];
  const keys = [];
  if (env && typeof env === 'object') {
    for (const [name, value] of Object.entries(env)) if (typeof value === 'string') vars.push([name, value]);
  }
  for (const model of models) {
    const known = model && typeof model === 'object' ? modelSecrets.get(model) : undefined;
    for (const [name, value] of Object.entries(known?.headers ?? {})) if (typeof value === 'string') vars.push([name, value]);
    if (known?.key) keys.push(known.key);
  }
  return { vars, keys };
}

/**
 * The writer between the core and a store: entries are appended in order, one at a time, as
 * they happen. A store that throws or rejects keeps its entry (and every later one) queued
 * for the next write; `settled()` then throws naming the store's error, while the agent's own
 * conversation stays whole.
 */
export class SessionWriter {
  #store;
  #queue = [];
  #writing = null;
  #failure = null;

  constructor(store) {
    this.#store = store;
  }

  /** The store. */
  get store() {
    return this.#store;
  }

  /**
   * Reads the store: `{ text, fresh }`, the JSONL the core loads; `fresh` when the store was
   * empty (then its header is written first).
   */
  async load(where) {
    let loaded;
    try {
      loaded = await this.#store.load();
    } catch (error) {
      throw new Error(`${where}: the session store's load() failed: ${messageOf(error)}`, { cause: error });
    }
    const text = loadedText(where, loaded);
    if (text.trim() === '') {
      this.push(JSON.stringify({ type: 'session', version: 1, id: newId() }));
      return { text: '', fresh: true };
    }
    // Entries kept without their header (a store of your own) read as one session.
    const first = text.trimStart().split('\n', 1)[0];
    let headed = false;
    try {
      headed = JSON.parse(first)?.type === 'session';
    } catch {
      // Not JSON: the core names the line.
      headed = true;
    }
    const header = `${JSON.stringify({ type: 'session', version: 1, id: newId() })}\n`;
    return { text: headed ? text : header + text, fresh: false };
  }

  /**
   * Queues one entry (JSON text from the core, redacted) and starts writing. An empty text is
   * an entry the redactor could not read: it is never stored (and the writer fails until its
   * next write).
   */
  push(json) {
    if (json === '') {
      this.#failure = new Error('an entry the redactor could not read was not stored');
      return;
    }
    this.#queue.push(JSON.parse(json));
    this.#kick();
  }

  #kick() {
    if (this.#writing || this.#queue.length === 0) return;
    this.#failure = null;
    this.#writing = (async () => {
      while (this.#queue.length > 0) {
        try {
          await this.#store.append(this.#queue[0]);
        } catch (error) {
          this.#failure = error;
          return;
        }
        this.#queue.shift();
      }
    })().finally(() => {
      this.#writing = null;
    });
  }

  /** Entries not in the store yet. */
  get unsaved() {
    return this.#queue.length;
  }

  /**
   * Waits for the queued entries; retries the ones a failed write left. Throws when the store
   * failed: its error names the store's and how many entries wait.
   */
  async settled(where) {
    if (!this.#writing) this.#kick();
    while (this.#writing) await this.#writing;
    if (this.#failure) {
      const error = this.#failure;
      throw new Error(
        `${where}: the session store's append() failed: ${messageOf(error)} (${this.#queue.length} ` +
          'entries not saved yet; the conversation is kept in memory, and the next write retries them)',
        { cause: error },
      );
    }
  }
}

/**
 * An entry of `history()` (one per message) as the core's message, or undefined for a kind
 * that is no message.
 */
export function entryMessage(entry) {
  switch (entry.type) {
    case 'user':
      return { role: 'user', content: entry.content };
    case 'assistant':
      return { role: 'assistant', content: entry.content, toolCalls: entry.tool_calls };
    case 'tool_result':
      return { role: 'tool', toolCallId: entry.call_id, name: entry.name, content: entry.content, isError: entry.is_error };
    default:
      return undefined;
  }
}

/** `{ callId: 'approve' | 'reject' | true | false | 'yes' | 'no' | 'always' }` as the core's answers. */
export function checkApprovals(where, approvals) {
  if (!isPlainObject(approvals)) {
    fail(where, `"approvals" must be an object { callId: 'approve' | 'reject' }, got ${describe(approvals)}`);
  }
  const words = { approve: 'yes', reject: 'no', yes: 'yes', no: 'no', always: 'always', true: 'yes', false: 'no' };
  const out = {};
  for (const [id, answer] of Object.entries(approvals)) {
    const word = words[String(answer)];
    if (word === undefined || (typeof answer !== 'string' && typeof answer !== 'boolean')) {
      fail(where, `approvals.${id} must be 'approve', 'reject' or 'always', got ${describe(answer)}`);
    }
    out[id] = word;
  }
  return out;
}

/** The error a paused run rejects with: `pending` lists the calls waiting for a decision. */
export class PausedError extends Error {
  constructor(where, pending) {
    super(`${where}: paused: waiting for a decision on ${pending.map((p) => p.id).join(', ')} (agent.resume({ approvals }) continues)`);
    this.name = 'PausedError';
    this.pending = pending;
  }
}
