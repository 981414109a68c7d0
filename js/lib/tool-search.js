// Deferred tool loading: the `toolSearch` option of `createAgent`, the `defer` option of
// `connect`, and the JS searcher the core calls for `tool_search`.
import { describe, fail, isPlainObject, messageOf, optionalCount, optionalFunction, optionalStrings, options } from './check.js';
import { namedOnly } from './pins.js';
import { loadModule } from './wasm.js';

const MODES = ['auto', 'on', 'off'];
const REVEALS = ['bridge', 'append'];
const FIELDS = ['mode', 'threshold', 'reveal', 'limit', 'alwaysLoad', 'search'];

/**
 * `toolSearch` as `{ settings, search }`: `settings` for the core (`{mode, threshold?, reveal?,
 * limit?, alwaysLoad?}`, or undefined for the defaults), `search` the user's callback, if any.
 */
export function checkToolSearch(where, value) {
  if (value === undefined) return { settings: undefined, search: undefined };
  const o = typeof value === 'string' ? { mode: value } : value;
  if (!isPlainObject(o)) {
    fail(where, `"toolSearch" must be 'auto', 'on', 'off' or an object { mode, threshold, reveal, limit, alwaysLoad, search }, got ${describe(value)}`);
  }
  options(where, o, FIELDS, '"toolSearch"');
  const mode = o.mode ?? 'auto';
  if (!MODES.includes(mode)) fail(where, `toolSearch.mode must be one of ${MODES.join(', ')}, got ${describe(o.mode)}`);
  if (o.reveal !== undefined && !REVEALS.includes(o.reveal)) {
    fail(where, `toolSearch.reveal must be one of ${REVEALS.join(', ')}, got ${describe(o.reveal)}`);
  }
  optionalCount(where, 'toolSearch.threshold', o.threshold, 0);
  if (o.threshold !== undefined && mode !== 'auto') fail(where, 'toolSearch.threshold only applies to mode \'auto\'');
  optionalCount(where, 'toolSearch.limit', o.limit, 1);
  if (o.limit > 255) fail(where, `"toolSearch.limit" must be at most 255, got ${describe(o.limit)}`);
  optionalStrings(where, 'toolSearch.alwaysLoad', o.alwaysLoad);
  optionalFunction(where, 'toolSearch.search', o.search);
  const { search, ...settings } = { ...o, mode };
  return { settings, search };
}

/** `defer` of `connect`: true, false or 'auto'. */
export function checkDefer(where, value) {
  if (value !== undefined && value !== true && value !== false && value !== 'auto') {
    fail(where, `"defer" must be true, false or 'auto', got ${describe(value)}`);
  }
}

/**
 * The catalog entries (`{name, description, inputSchema, server?, tool}`, the core's shape) of
 * the deferred tools of a `tools()` listing, in its order (the registry's).
 */
export function catalogEntries(tools) {
  const entries = [];
  for (const t of tools) {
    if (t.loading !== 'deferred') continue;
    const entry = { name: t.name, description: t.description, inputSchema: t.inputSchema };
    if (t.server !== undefined) entry.server = t.server;
    entry.tool = t.originalName ?? t.name;
    entries.push(entry);
  }
  return entries;
}

/**
 * The searcher the runtime ranks `tool_search` with: `(query, limit)` → a promise of a JSON
 * array of names. The catalog is what `listTools()` (the agent's `tools()` listing) marks
 * deferred: the tools the runtime keeps from the answer, which it reads from the same live
 * registry when the answer comes back. The runtime module has no lexical
 * index; this ranks with the core's index in the on-demand `search` module (loaded on the
 * first search), fused with the user's `search(query, catalog)` ranking when there is one,
 * exactly as the native core does. A user callback that throws or returns anything but an
 * array of names is reported once per search through `onNotice`, and the index answers alone.
 * If the module cannot be loaded (reported too), the answer is the tools the query names
 * exactly (`select:` lists and exact names).
 */
export function indexSearcher(search, onNotice, listTools) {
  const notice = (message) => {
    try {
      onNotice?.(message);
    } catch {}
  };
  return (query, limit) =>
    (async () => {
      await null; // out of the wasm call: the callback may call the agent back
      const catalog = catalogEntries(listTools());
      let host;
      if (search) {
        try {
          const names = await search(query, catalog);
          if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
            throw new TypeError(`it must resolve to an array of tool names, got ${describe(names)}`);
          }
          host = JSON.stringify(names);
        } catch (error) {
          notice(`toolSearch.search failed (${messageOf(error)}); the built-in index answered instead`);
        }
      }
      let index;
      try {
        index = await loadModule('search');
      } catch (error) {
        notice(`tool_search: the search module could not be loaded (${messageOf(error)}); only tools named exactly were found`);
        // The tools the query names, found here: the runtime module ranks nothing itself.
        return JSON.stringify(namedOnly(query, catalog, limit));
      }
      return index.rankTools(query, JSON.stringify(catalog), limit, host);
    })();
}
