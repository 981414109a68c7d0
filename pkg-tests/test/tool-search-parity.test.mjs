// The package's tool_search ranks exactly as the native core: the runtime module has no lexical
// index, so the JS layer ranks in the on-demand `search` module. Compared with the core's own
// rankings of the committed query set (tests/fixtures/tool_search/rankings.json, checked
// against the index by the core's test tool_search_recall): names and scores through the search
// module, names through an agent's tool_search, with and without a user searcher.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createAgent } from 'agentwire';
import { eventLog } from './helpers.mjs';
import { minimalServer, scriptedTransport } from '../portable/suite/scripted.mjs';

const FIXTURES = process.env.AW_TOOL_SEARCH_FIXTURES;
if (!FIXTURES) throw new Error('AW_TOOL_SEARCH_FIXTURES is not set: run these tests with pkg-tests/run');
const T = { timeout: 120_000 };
const read = (file) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8'));

/** The fixture catalog in catalog order, as the runtime hands it to its searcher. */
function fixture() {
  const golden = read('rankings.json');
  const listings = new Map();
  for (const server of new Set(golden.catalog.map((t) => t.server))) listings.set(server, read(`${server}.json`).tools);
  const catalog = golden.catalog.map(({ name, server, tool }) => {
    const def = listings.get(server).find((t) => t.name === tool);
    return { name, description: def.description ?? '', inputSchema: def.inputSchema, server, tool };
  });
  const queries = readFileSync(join(FIXTURES, 'queries.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  return { golden, catalog, listings, queries };
}

/** The search module's exports, loaded from the installed package's files. */
async function searchModule() {
  const dir = join(process.cwd(), 'node_modules/agentwire');
  const loader = await import(pathToFileURL(join(dir, 'loader.js')).href);
  return loader.initModule('search', readFileSync(join(dir, 'agentwire_search_bg.wasm')));
}

test('the search module gives the core index\'s names and scores for every committed query', T, async () => {
  const { golden, catalog, queries } = fixture();
  const search = await searchModule();
  const catalogJson = JSON.stringify(catalog);
  const host = JSON.stringify(catalog.map((t) => t.name).reverse());
  assert.ok(golden.cases.length > 300, `${golden.cases.length} cases`);
  for (const c of golden.cases) {
    assert.deepEqual(JSON.parse(search.searchTools(c.query, catalogJson, golden.limit)), c.hits, c.query);
    assert.deepEqual(JSON.parse(search.rankTools(c.query, catalogJson, golden.limit, host)), c.fused, `fused: ${c.query}`);
    // Deterministic: the same query again, the same answer.
    assert.equal(search.rankTools(c.query, catalogJson, golden.limit), search.rankTools(c.query, catalogJson, golden.limit));
  }
  // The recall targets of the core's test, through the package.
  const targets = { vocabulary: [3, 0.95], model: [5, 0.85], exact: [1, 1.0], chinese: [5, 0.7], request: [5, 0.85] };
  for (const [kind, [k, target]] of Object.entries(targets)) {
    const set = queries.filter((q) => q.kind === kind);
    const found = set.filter((q) => JSON.parse(search.rankTools(q.query, catalogJson, k)).some((n) => q.expected.includes(n)));
    assert.ok(found.length / set.length >= target, `${kind}: R@${k} ${found.length}/${set.length} < ${target}`);
  }
  assert.throws(() => search.rankTools('x', '{"not": "an array"}', 5), /catalog must be an array/);
  assert.throws(() => search.rankTools('x', '[{"description": "no name"}]', 5), /catalog\[0\] has no string "name"/);
});

test('without the search module, the tools a query names are what the core index pins first', T, async () => {
  const { golden, catalog, queries } = fixture();
  const dir = join(process.cwd(), 'node_modules/agentwire');
  const { namedOnly } = await import(pathToFileURL(join(dir, 'lib/pins.js')).href);
  // The index ranks the names a query pins first: JS's pins are always a prefix of its answer.
  let pinned = 0;
  for (const c of golden.cases) {
    const named = namedOnly(c.query, catalog, golden.limit);
    assert.deepEqual(named, c.hits.slice(0, named.length).map((h) => h.name), c.query);
    pinned += named.length > 0;
  }
  assert.ok(pinned >= 10, `${pinned} cases with names pinned`);
  // Every exact name is found first.
  const exact = queries.filter((q) => q.kind === 'exact');
  assert.ok(exact.length > 0);
  for (const q of exact) assert.ok(q.expected.includes(namedOnly(q.query, catalog, 5)[0]), q.query);
  // The rules one by one (those of the core's tool_search::index::pin).
  const tools = [
    { name: 'mcp__github__create_pull_request', tool: 'create_pull_request' },
    { name: 'mcp__github__create_pull_request_review', tool: 'create_pull_request_review' },
    { name: 'mcp__everything__echo', tool: 'echo' },
    { name: 'mcp__fs__read_file', tool: 'read_file' },
    { name: 'mcp__fs2__read_file', tool: 'read_file' },
  ];
  const cases = [
    ['select:echo, mcp__fs__read_file', ['mcp__everything__echo', 'mcp__fs__read_file']],
    ['  SELECT: nope', []],
    ['select:', []],
    ['create_pull_request', ['mcp__github__create_pull_request']],
    ['please echo this', []], // a plain word pins only as the whole query
    ['echo', ['mcp__everything__echo']],
    ['use read_file.', ['mcp__fs__read_file', 'mcp__fs2__read_file']], // both servers' tool
    ['Mcp__GitHub__Create_Pull_Request?', ['mcp__github__create_pull_request']],
    ['"read_file" or `echo`', ['mcp__fs__read_file', 'mcp__fs2__read_file']],
    ['select:read_file,echo', ['mcp__fs__read_file', 'mcp__fs2__read_file']], // at most the limit
  ];
  for (const [query, expected] of cases) assert.deepEqual(namedOnly(query, tools, 2), expected, query);
});

/** A model that calls tool_search once per query, one per step, then answers. */
function searchingModel(queries, limit) {
  let step = 0;
  return {
    async complete() {
      if (step === queries.length) return { text: 'done' };
      step += 1;
      return { toolCalls: [{ id: `s${step}`, name: 'tool_search', arguments: { query: queries[step - 1], limit } }] };
    },
  };
}

test('an agent\'s tool_search over the same servers answers as the core does, fused with a user searcher too', T, async () => {
  const { golden, listings } = fixture();
  // Every 4th case: queries of every kind, bare and full names, a select: of unknown names.
  const cases = golden.cases.filter((_, i) => i % 4 === 0 || i === golden.cases.length - 1);
  const servers = () =>
    Object.fromEntries([...listings].map(([server, tools]) => [server, scriptedTransport(minimalServer(tools, () => undefined))]));
  for (const withHost of [false, true]) {
    const asked = [];
    const search = withHost
      ? (query, catalog) => {
          asked.push(catalog.length);
          return catalog.map((t) => t.name).reverse();
        }
      : undefined;
    const agent = await createAgent({
      servers: servers(),
      model: searchingModel(cases.map((c) => c.query), golden.limit),
      toolSearch: { mode: 'on', search },
      maxSteps: cases.length + 2,
    });
    try {
      assert.deepEqual(agent.tools().filter((t) => t.loading === 'deferred').map((t) => t.name), golden.catalog.map((t) => t.name));
      const log = eventLog();
      assert.equal(await agent.run('find tools', { onEvent: log.onEvent }), 'done');
      const got = log.of('tool_search').map((e) => e.results);
      assert.deepEqual(got, cases.map((c) => (withHost ? c.fused : c.hits.map((h) => h.name))));
      if (withHost) assert.ok(asked.length === cases.length && asked.every((n) => n === golden.catalog.length));
    } finally {
      agent.close();
    }
  }
});
