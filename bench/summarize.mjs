#!/usr/bin/env node
// Reads the JSON lines written by bench/run and prints a Markdown table of medians.
//
//   node summarize.mjs RAW.jsonl [--meta "a line to print under the table"]...
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const file = argv[0];
if (!file) {
  console.error("usage: summarize.mjs RAW.jsonl [--meta TEXT]...");
  process.exit(2);
}
const meta = [];
for (let i = 1; i < argv.length; i++) {
  if (argv[i] === "--meta" && argv[i + 1] !== undefined) meta.push(argv[++i]);
}

const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim());
const runs = lines.map((l) => JSON.parse(l));

function median(values) {
  const v = values.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// Per (server, client): the samples of each figure.
const groups = new Map();
for (const { server, report } of runs) {
  const key = `${server}\u0000${report.client}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(report);
}

function figures(server, client) {
  const reports = groups.get(`${server}\u0000${client}`) ?? [];
  const rounds = reports.flatMap((r) => r.conc);
  const perCall = (section, field, scale) => section[field] === null ? NaN : (section[field] * scale) / section.calls;
  const concMs = median(rounds.map((c) => c.wall_ms));
  const calls = rounds[0]?.calls ?? 0;
  return {
    samples: reports.length,
    connect: median(reports.flatMap((r) => r.connect_list_ms)),
    seqUs: median(reports.map((r) => perCall(r.seq, "wall_ms", 1e3))),
    concMs,
    concRate: (calls * 1e3) / concMs,
    seqCpuUs: median(reports.map((r) => perCall(r.seq, "client_cpu_ms", 1e3))),
    concCpuUs: median(rounds.map((c) => perCall(c, "client_cpu_ms", 1e3))),
    seqServerUs: median(reports.map((r) => perCall(r.seq, "server_cpu_ms", 1e3))),
    concServerUs: median(rounds.map((c) => perCall(c, "server_cpu_ms", 1e3))),
    calls,
  };
}

const fmt = (x) => {
  if (!Number.isFinite(x)) return "n/a";
  if (x >= 100) return Math.round(x).toLocaleString("en-US");
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
};
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "n/a");

const servers = [...new Set(runs.map((r) => r.server))];
const out = [];
out.push("| server | figure (median) | agentwire | TS SDK | agentwire ÷ TS throughput |");
out.push("|---|---|---:|---:|---:|");
for (const server of servers) {
  const a = figures(server, "agentwire");
  const t = figures(server, "ts-sdk");
  const n = a.calls.toLocaleString("en-US");
  // Times: TS ÷ agentwire; rates: agentwire ÷ TS. Either way > 1 means agentwire is faster.
  const rows = [
    ["connect + tools/list (ms)", a.connect, t.connect, t.connect / a.connect],
    ["sequential round trip (µs)", a.seqUs, t.seqUs, t.seqUs / a.seqUs],
    [`${n} concurrent calls (ms)`, a.concMs, t.concMs, t.concMs / a.concMs],
    [`${n} concurrent: calls/s`, a.concRate, t.concRate, a.concRate / t.concRate],
    ["client CPU per call, sequential (µs)", a.seqCpuUs, t.seqCpuUs, t.seqCpuUs / a.seqCpuUs],
    ["client CPU per call, concurrent (µs)", a.concCpuUs, t.concCpuUs, t.concCpuUs / a.concCpuUs],
    ["server CPU per call, sequential (µs)", a.seqServerUs, t.seqServerUs, NaN],
    ["server CPU per call, concurrent (µs)", a.concServerUs, t.concServerUs, NaN],
  ];
  for (const [name, x, y, r] of rows) {
    out.push(`| ${server} | ${name} | ${fmt(x)} | ${fmt(y)} | ${Number.isFinite(r) ? ratio(r) : ""} |`);
  }
}
out.push("");
const counts = servers
  .map((s) => `${s}: ${figures(s, "agentwire").samples} + ${figures(s, "ts-sdk").samples} processes`)
  .join("; ");
out.push(`Samples: ${counts}.`);
for (const line of meta) out.push(`${line}.`);
console.log(out.join("\n"));
