// The tools a `tool_search` query names outright (`select:a,b` and exact names): the answer
// when the on-demand `search` module cannot be loaded. The same rules as the core's
// `tool_search::index::pin` (which the search module ranks with, pinned names first), kept in
// JS so the runtime wasm module carries no copy of them.
import { SPACE } from './mentions.js';

const SPLIT_SELECT = new RegExp(`[,${SPACE}]`);
const SPLIT_QUERY = new RegExp(`[${SPACE},;"'\`()\\[\\]{}<>]`);
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g');

/** ASCII lower case only (Rust's `eq_ignore_ascii_case`). */
const lower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The names after `select:` (any ASCII case), split on commas and spaces; null otherwise. */
function selectList(query) {
  const q = query.replace(TRIM, '');
  if (lower(q.slice(0, 7)) !== 'select:') return null;
  return q.slice(7).split(SPLIT_SELECT).filter((n) => n !== '');
}

/** The word-like tokens of a query, closing `.`, `?`, `!` and `:` removed. */
function nameTokens(query) {
  return query
    .split(SPLIT_QUERY)
    .map((t) => t.replace(/[.?!:]+$/, ''))
    .filter((t) => t !== '');
}

/** A bare name that pins amid other words: a separator or a camelCase hump. */
const distinctive = (token) => /[_.-]/.test(token) || /[A-Z]/.test(token.slice(1));

/** Positions of the names equal to `token`, ignoring ASCII case. */
function equalTo(names, token) {
  const wanted = lower(token);
  const found = [];
  names.forEach((name, i) => {
    if (lower(name) === wanted) found.push(i);
  });
  return found;
}

/**
 * The names `query` names among `catalog` (`[{name, tool}]`, the runtime's searcher catalog:
 * full names and the servers' own), in query order, each once, at most `limit`.
 */
export function namedOnly(query, catalog, limit) {
  const names = catalog.map((t) => t.name);
  const bare = catalog.map((t) => (typeof t.tool === 'string' ? t.tool : t.name));
  const resolve = (token, bareOk) => {
    const full = equalTo(names, token);
    return full.length > 0 || !bareOk ? full : equalTo(bare, token);
  };
  const positions = [];
  const add = (found) => {
    for (const i of found) if (!positions.includes(i)) positions.push(i);
  };
  const list = selectList(query);
  if (list) {
    for (const name of list) add(resolve(name, true));
  } else {
    const tokens = nameTokens(query);
    for (const token of tokens) add(resolve(token, tokens.length === 1 || distinctive(token)));
  }
  return positions.slice(0, limit).map((i) => names[i]);
}
