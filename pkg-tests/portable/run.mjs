// Runs the portable suite (./suite) unchanged under every runtime, from the installed package:
// Node 20 (this process's node), Node 22, Deno, Bun, workerd, and headless Chromium through the
// `browser` entry (./browser.mjs). It starts the loopback servers the suite talks to (behind a
// CORS front, for the page; among them a stateless modern-only one on the TypeScript SDK v2),
// saves a conversation in Node for the others to continue (and
// continues in Node the one each runtime saves), picks the seed of the suite's random
// schedules, passes all that as the suite's environment, and reports per runtime. Run from the
// temporary project pkg-tests/run installs the tarball into.
//
//   node portable/run.mjs [--bench] [runtime...]   (default: all of them)
//
// --bench: instead of the tests, the p50 of a mock agent run in each runtime (./bench.mjs).
// AW_SUITE_SEED=N repeats a run's random choices (the seed is printed first);
// AW_SUITE_FILTER=text runs only the tests whose name contains it.
//
// Binaries: AW_NODE22 (set by ../run), the rest from pkg-tests/node_modules (AW_TOOLS_DIR);
// Chromium from CHROMIUM_PATH, driven by playwright-core (AW_PLAYWRIGHT).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent } from 'agentwire';
import { freePort, recordingServer, startEverythingHttp } from '../test/http-helpers.mjs';
import { viaChromium } from './browser.mjs';
import { corsFront, modernServer, replayServer } from './servers.mjs';
import { extensionsServer } from './ext-server.mjs';
import { pauseRun, resumeRun } from './suite/paused.mjs';

const tools = process.env.AW_TOOLS_DIR;
if (!tools) throw new Error('AW_TOOLS_DIR must point at pkg-tests/node_modules; run pkg-tests/run');
const here = new URL('.', import.meta.url).pathname;
const project = join(here, '..');

/**
 * Continues, in this process (Node 20), a conversation another runtime saved after a tool call;
 * resolves to null when it continues as it should, else to what went wrong.
 */
async function continueInNode(savedJson) {
  if (typeof savedJson !== 'string') return `no saved history came back (got ${typeof savedJson})`;
  const saved = JSON.parse(savedJson);
  const agent = await createAgent({ history: saved });
  try {
    const events = [];
    await agent.run('list pull requests in vercel/ai', { onEvent: (e) => events.push(e.type) });
    const entries = agent.history().entries;
    if (events.at(-1) !== 'done') return `the run ended with ${events.join()}`;
    if (entries.length !== 8 || JSON.stringify(entries.slice(0, 4)) !== JSON.stringify(saved.entries)) {
      return `the continued conversation is not the saved one plus a turn: ${JSON.stringify(entries)}`;
    }
    return null;
  } finally {
    agent.close();
  }
}

/**
 * Resumes, in this process (Node 20), the run another runtime paused in the session it was
 * handed; resolves to null when the approved call ran once here and the rejected one reached
 * the model as declined, else to what went wrong.
 */
async function resumeInNode(pausedJson) {
  if (typeof pausedJson !== 'string') return `no paused session came back (got ${typeof pausedJson})`;
  const { history } = await resumeRun(pausedJson);
  const users = history.filter((e) => e.type === 'user').length;
  if (users !== 2) return `the session should hold both requests (Node's and the runtime's), it holds ${users}`;
  return null;
}

/** A conversation saved after a tool call in this process (Node 20), as JSON text. */
async function savedInNode() {
  const agent = await createAgent();
  try {
    await agent.run('查看 vercel/ai 的 issues');
    return JSON.stringify(agent.history());
  } finally {
    agent.close();
  }
}

/** Runs `command` to completion; resolves to `{ code, stdout, stderr }`. */
function exec(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: project, ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A runtime with a command line: runs cli.mjs and parses its last line. */
async function viaCli(command, args, env) {
  const out = await exec(command, [...args, join(here, 'cli.mjs')], {
    env: { ...process.env, AW_SUITE_ENV: JSON.stringify(env), AW_SUITE_BENCH: BENCH ? String(BENCH) : '' },
  });
  const last = out.stdout.trim().split('\n').at(-1);
  try {
    return JSON.parse(last);
  } catch {
    return { passed: [], failed: [{ name: '(start)', error: `exit ${out.code}: ${out.stdout}${out.stderr}` }] };
  }
}

/** workerd: bundles worker.mjs with the `workerd` condition, serves it, POSTs /suite and /agent. */
async function viaWorkerd(env) {
  const dir = join(project, 'workerd-out');
  mkdirSync(dir, { recursive: true });
  const esbuild = join(tools, 'esbuild/bin/esbuild');
  const bundle = await exec(esbuild, [
    join(here, 'worker.mjs'), '--bundle', '--format=esm', '--platform=neutral',
    '--conditions=workerd,worker', '--main-fields=module,main', '--external:*.wasm',
    `--outfile=${join(dir, 'worker.js')}`, '--log-level=warning',
  ]);
  if (bundle.code !== 0) return { passed: [], failed: [{ name: '(bundle)', error: bundle.stderr }] };
  // The wasm modules, beside the bundle as its imports name them (as wrangler ships them).
  const pkg = join(project, 'node_modules/agentwire');
  // Every module the package ships (workerd.js imports each of them).
  const wasmFiles = readdirSync(pkg).filter((f) => f.endsWith('_bg.wasm')).sort();
  for (const f of wasmFiles) copyFileSync(join(pkg, f), join(dir, f));
  const port = await freePort();
  writeFileSync(join(dir, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .suite),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const suite :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
${wasmFiles.map((f) => `    (name = "${f}", wasm = embed "${f}"),\n`).join('')}  ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
);
`);
  const child = spawn(join(tools, '@cloudflare/workerd-linux-64/bin/workerd'), ['serve', join(dir, 'config.capnp')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (log += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (log += c));
  try {
    const base = `http://127.0.0.1:${port}`;
    const post = async (path, body) => {
      for (let i = 0; ; i++) {
        try {
          return await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) });
        } catch (error) {
          if (i > 100 || child.exitCode !== null) throw new Error(`workerd did not answer: ${error.message}\n${log}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    if (BENCH) return (await post('/bench', { rounds: BENCH })).json();
    const suiteAnswer = await post('/suite', env);
    if (!suiteAnswer.ok) throw new Error(`/suite answered ${suiteAnswer.status}: ${await suiteAnswer.text()}\n${log}`);
    const result = await suiteAnswer.json();
    // One agent per request, twice: each request builds, runs and closes its own agent.
    for (const n of [1, 2]) {
      const name = `workerd: agent per request #${n} (replay model + HTTP MCP server)`;
      const answer = await post('/agent', { ...env, prompt: 'What is the capital of France?' });
      const body = await answer.text();
      let ok = answer.ok;
      try {
        const json = JSON.parse(body);
        ok &&= json.servers[0] === 'connected' && /Paris/.test(json.answer) && json.events.at(-1) === 'done';
      } catch {
        ok = false;
      }
      (ok ? result.passed : result.failed).push(ok ? name : { name, error: `${answer.status} ${body}\n${log}` });
    }
    return result;
  } catch (error) {
    return { passed: [], failed: [{ name: '(workerd)', error: String(error.stack ?? error) }] };
  } finally {
    child.kill();
  }
}

const RUNTIMES = {
  node20: (env) => viaCli(process.execPath, [], env),
  node22: (env) => viaCli(process.env.AW_NODE22, [], env),
  deno: (env) => viaCli(join(tools, '@deno/linux-x64-glibc/deno'), ['run', '-A'], env),
  bun: (env) => viaCli(join(tools, '@oven/bun-linux-x64/bin/bun'), [], env),
  workerd: viaWorkerd,
  chromium: (env) => viaChromium(env, { project, portableDir: here, bench: BENCH }),
};

const args = process.argv.slice(2);
const BENCH = args.includes('--bench') ? 30 : 0;
const named = args.filter((a) => a !== '--bench');
const wanted = named.length ? named : Object.keys(RUNTIMES);
const seed = process.env.AW_SUITE_SEED ? Number(process.env.AW_SUITE_SEED) : Math.floor(Math.random() * 2 ** 32);
if (!Number.isInteger(seed)) throw new Error(`AW_SUITE_SEED must be an integer, got ${process.env.AW_SUITE_SEED}`);
if (!BENCH) console.log(`portable suite: seed ${seed} (AW_SUITE_SEED=${seed} repeats its random choices)`);
const mcp = await recordingServer();
const everything = await startEverythingHttp(); // answers CORS itself
const replay = await replayServer();
const modern = await modernServer();
const modernFront = await corsFront(modern.url);
const extensions = await extensionsServer();
const extensionsFront = await corsFront(new URL(extensions.url).origin);
const mcpFront = await corsFront(new URL(mcp.url).origin);
const replayFront = await corsFront(replay.url);
const shared = {
  mcpUrl: `${mcpFront.url}${new URL(mcp.url).pathname}`,
  everythingUrl: everything.url,
  modernUrl: `${modernFront.url}/mcp`,
  extUrl: `${extensionsFront.url}/mcp`,
  extLog: `${extensionsFront.url}/__log`,
  openaiBaseURL: `${replayFront.url}/v1`,
  openaiReset: `${replayFront.url}/__reset`,
  openaiRequests: `${replayFront.url}/__requests`,
  openaiOpen: `${replayFront.url}/__front/open`,
  savedHistory: BENCH ? undefined : await savedInNode(),
  // A session store's contents after a run paused for approval in Node 20.
  pausedSession: BENCH ? undefined : await pauseRun([], 'note keep and drop'),
  seed,
  filter: process.env.AW_SUITE_FILTER || undefined,
};
let failures = 0;
try {
  for (const runtime of wanted) {
    if (!RUNTIMES[runtime]) throw new Error(`unknown runtime ${runtime}; known: ${Object.keys(RUNTIMES)}`);
    const started = performance.now();
    const result = await RUNTIMES[runtime]({ runtime, ...shared });
    const ms = Math.round(performance.now() - started);
    if (result.bench) {
      const b = result.bench;
      console.log(`${runtime}: mock run p50 ${b.p50} ms, p90 ${b.p90} ms, min ${b.min} ms (${b.rounds} runs)`);
      continue;
    }
    if (!shared.filter) {
      const name = `the conversation ${runtime} saved continues in Node 20`;
      const problem = await continueInNode(result.shared?.savedHistory).catch((e) => String(e.stack ?? e));
      if (problem) result.failed.push({ name, error: problem });
      else result.passed.push(name);
      const resumed = `the run ${runtime} paused resumes in Node 20`;
      const why = await resumeInNode(result.shared?.pausedSession).catch((e) => String(e.stack ?? e));
      if (why) result.failed.push({ name: resumed, error: why });
      else result.passed.push(resumed);
    }
    console.log(`${runtime}: ${result.passed.length} passed, ${result.failed.length} failed (${ms} ms)`);
    for (const name of result.passed) console.log(`  ok   ${name}`);
    for (const { name, error } of result.failed) console.log(`  FAIL ${name}\n${error.replace(/^/gm, '       ')}`);
    failures += result.failed.length + (result.passed.length ? 0 : 1);
  }
} finally {
  await mcpFront.stop();
  await replayFront.stop();
  await modernFront.stop();
  await modern.stop();
  await extensionsFront.stop();
  await extensions.stop();
  await mcp.stop();
  await everything.stop();
  replay.stop();
}
process.exit(failures ? 1 : 0);
