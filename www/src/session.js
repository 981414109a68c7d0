// The conversation kept across reloads: a session store over localStorage (the transcript's
// JSON lines under one key; the package keeps secrets such as the API key out of it), the
// chat rebuilt from it, and the context meter (`agent.context()`).
import { byId } from './dom.js';

export const SESSION_KEY = 'agentwire.www.session';

/** A session store `{ append, load, reset }` over `storage` (localStorage by default). */
export function localSession(storage = localStorage, key = SESSION_KEY) {
  return {
    // A full storage throws: the run then fails with the store's error, the chat stays.
    append(entry) {
      storage.setItem(key, `${storage.getItem(key) ?? ''}${JSON.stringify(entry)}\n`);
    },
    load() {
      return storage.getItem(key) ?? '';
    },
    /** Forgets the conversation (New chat): the next entries start a new transcript. */
    reset() {
      storage.removeItem(key);
    },
  };
}

/**
 * The turns of a conversation as the chat shows them: each user request and the answer that
 * ended its run (`[{ user, answer? }]`), from `agent.history()`'s entries.
 */
export function chatTurns(entries) {
  const turns = [];
  for (const entry of entries) {
    if (entry.type === 'user') turns.push({ user: entry.content });
    else if (entry.type === 'assistant' && entry.tool_calls.length === 0 && entry.content && turns.length) {
      turns.at(-1).answer = entry.content;
    }
  }
  return turns;
}

const number = (n) => n.toLocaleString('en-US');

/** Shows `report` (`agent.context()` or a `done` event's `context`) in the context meter. */
export function showContext(report) {
  const meter = byId('context-meter');
  const bar = byId('context-bar');
  const label = byId('context-label');
  meter.dataset.total = String(report.total);
  if (report.window) {
    const pct = Math.min(100, Math.round((report.total / report.window) * 100));
    bar.hidden = false;
    bar.max = report.window;
    bar.value = report.total;
    if (report.compact_at) bar.high = report.compact_at;
    label.textContent = `${number(report.total)} / ${number(report.window)} tokens (${pct}%)`;
  } else {
    bar.hidden = true;
    label.textContent = `${number(report.total)} tokens`;
  }
  meter.title =
    `Context: system ${number(report.system)}, tools ${number(report.tools)}, skills ${number(report.skills)}, ` +
    `conversation ${number(report.history)} tokens${report.measured ? ' (refined by reported usage)' : ' (estimated)'}` +
    (report.compact_at ? `; compacts at ${number(report.compact_at)}` : '');
}
