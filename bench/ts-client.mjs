#!/usr/bin/env node
// The TypeScript SDK side of `bench/run`: the same flags, the same operations and the same JSON
// output as `native-host/examples/mcp_bench.rs`, with `Client` + `StdioClientTransport`.
//
//   node ts-client.mjs [--seq N] [--conc N] [--rounds R] [--warmup N] [--warmup-rounds R]
//                      [--connects K] [--tool NAME] [--args JSON] [--expect TEXT] -- COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const USAGE =
  "usage: ts-client.mjs [--seq N] [--conc N] [--rounds R] [--warmup N] [--warmup-rounds R] " +
  "[--connects K] [--tool NAME] [--args JSON] [--expect TEXT] -- COMMAND [ARG...]";

function parseOptions(argv) {
  const options = {
    seq: 2000,
    conc: 1000,
    rounds: 10,
    warmup: 200,
    warmupRounds: 2,
    connects: 3,
    tool: "echo",
    args: { text: "hello" },
    expect: undefined,
    command: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--") {
      options.command = argv.slice(i + 1);
      break;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value; ${USAGE}`);
    const number = () => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} ${JSON.stringify(value)}: not a count`);
      return n;
    };
    switch (flag) {
      case "--seq": options.seq = number(); break;
      case "--conc": options.conc = number(); break;
      case "--rounds": options.rounds = number(); break;
      case "--warmup": options.warmup = number(); break;
      case "--warmup-rounds": options.warmupRounds = number(); break;
      case "--connects": options.connects = number(); break;
      case "--tool": options.tool = value; break;
      case "--args": options.args = JSON.parse(value); break;
      case "--expect": options.expect = value; break;
      default: throw new Error(`unknown flag ${JSON.stringify(flag)}; ${USAGE}`);
    }
  }
  if (options.command.length === 0) throw new Error(`no server command; ${USAGE}`);
  return options;
}

// Scheduler time of every thread of process `pid` ("self" for this one) so far, in ns, from
// /proc/PID/task/*/schedstat: [on a CPU, runnable but waiting for one]. Read exactly as
// mcp_bench.rs reads it. null where /proc is missing.
function schedNs(pid) {
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const total = [0, 0];
  for (const task of tasks) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ");
      total[0] += Number(fields[0]) || 0;
      total[1] += Number(fields[1]) || 0;
    } catch {
      // the thread ended between the listing and the read: it counts as nothing
    }
  }
  return total;
}

// Wall time and the scheduler times of both processes over one timed section.
function startSection(serverPid) {
  const server = serverPid ? schedNs(serverPid) : null;
  const client = schedNs("self");
  // Last, so reading /proc stays outside the timed window.
  return { serverPid, server, client, wall: performance.now() };
}

function finishSection(section, calls) {
  const wall = performance.now() - section.wall;
  const client = schedNs("self");
  const server = section.serverPid ? schedNs(section.serverPid) : null;
  const used = (before, now, i) => (before === null || now === null ? null : (now[i] - before[i]) / 1e6);
  return {
    calls,
    wall_ms: wall,
    client_cpu_ms: used(section.client, client, 0),
    client_runq_ms: used(section.client, client, 1),
    server_cpu_ms: used(section.server, server, 0),
    server_runq_ms: used(section.server, server, 1),
  };
}

// One tools/call, checked like the Rust side: an error or an unexpected text fails the run.
async function call(client, options) {
  const result = await client.callTool({ name: options.tool, arguments: options.args });
  if (result.isError) throw new Error(`tools/call returned isError: ${JSON.stringify(result)}`);
  if (options.expect !== undefined) {
    const first = result.content?.[0];
    if (first?.type !== "text" || first.text !== options.expect) {
      throw new Error(`expected text ${JSON.stringify(options.expect)}, got ${JSON.stringify(first)}`);
    }
  }
}

// `count` calls in flight at once on one connection, all awaited together.
async function batch(client, options, count) {
  const calls = [];
  for (let i = 0; i < count; i++) calls.push(call(client, options));
  await Promise.all(calls);
}

// Spawns the server, connects and lists its tools: the "connect + list" operation.
async function connectAndList(options) {
  const transport = new StdioClientTransport({
    command: options.command[0],
    args: options.command.slice(1),
    stderr: "pipe", // drained, as agentwire drains it into a bounded tail
  });
  transport.stderr?.resume();
  const client = new Client({ name: "bench-ts", version: "0.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { client, transport, tools };
}

async function run(options) {
  // Connect + list, --connects times: each a fresh server, timed from just before the spawn to
  // the tool list in hand. All but the last connection are closed, and their server has exited,
  // before the next sample; the last one serves the calls.
  const connects = [];
  let client, transport, tools;
  for (;;) {
    const started = performance.now();
    ({ client, transport, tools } = await connectAndList(options));
    connects.push(performance.now() - started);
    if (connects.length >= Math.max(options.connects, 1)) break;
    await client.close(); // waits for the server to exit
  }
  if (!tools.some((t) => t.name === options.tool)) {
    throw new Error(`the server has no tool ${JSON.stringify(options.tool)}`);
  }

  // Warm-up, untimed: sequential calls, then concurrent batches.
  for (let i = 0; i < options.warmup; i++) await call(client, options);
  for (let r = 0; r < options.warmupRounds; r++) await batch(client, options, options.conc);

  const serverPid = transport.pid;
  let section = startSection(serverPid);
  for (let i = 0; i < options.seq; i++) await call(client, options);
  const seq = finishSection(section, options.seq);

  const rounds = [];
  for (let r = 0; r < options.rounds; r++) {
    section = startSection(serverPid);
    await batch(client, options, options.conc);
    rounds.push(finishSection(section, options.conc));
  }

  await client.close();
  return {
    client: "ts-sdk",
    tools: tools.length,
    connect_list_ms: connects,
    seq,
    conc: rounds,
  };
}

try {
  const report = await run(parseOptions(process.argv.slice(2)));
  console.log(JSON.stringify(report));
  process.exit(0);
} catch (error) {
  console.error(`ts-client: ${error?.message ?? error}`);
  process.exit(1);
}
