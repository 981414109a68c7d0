#!/usr/bin/env node
// Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/) from real captures:
// - the stdio bytes real fixture MCP servers (native-host/tests/fixtures: normal, chatty,
//   garbage, big-result, byte-by-byte) wrote while a scripted client initialised them, listed
//   their tools and called each one; every line also seeds the JSON-RPC target;
// - the bodies the OpenAI replay server (native-host/tests/fixtures/openai) sent for each of its
//   scenarios, streamed and not;
// - HTTP bodies carrying the captured MCP messages as a JSON body and as SSE events (with ids,
//   a retry field and a comment), as Streamable HTTP servers send them;
// - `.mcp.json` files: the examples of docs/cli.md and docs/mcp.md and the shapes the CLI tests write.
// Each seed starts with the parameter bytes its target reads first (see fuzz/README.md).
//
//   node fuzz/seeds/capture.mjs        (rewrites fuzz/corpus/)
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtures = join(root, "native-host", "tests", "fixtures");
const corpus = join(root, "fuzz", "corpus");

const written = {};
function seed(target, name, bytes) {
  const dir = join(corpus, target);
  mkdirSync(dir, { recursive: true });
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  const hash = createHash("sha1").update(buf).digest("hex").slice(0, 8);
  writeFileSync(join(dir, `${name}-${hash}`), buf);
  written[target] = (written[target] ?? 0) + 1;
}
const withPrefix = (prefix, body) => Buffer.concat([Buffer.from(prefix), Buffer.from(body)]);

/** Runs a fixture server, plays a client session against it, returns its stdout bytes. */
function capture(file, args, calls) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(fixtures, file), ...args], { stdio: ["pipe", "pipe", "ignore"] });
    const out = [];
    let buffered = "";
    let next = 1;
    const waiting = new Map();
    const send = (msg) => child.stdin.write(JSON.stringify(msg) + "\n");
    const request = (method, params) =>
      new Promise((done) => {
        const id = next++;
        waiting.set(id, done);
        send({ jsonrpc: "2.0", id, method, params });
      });
    child.stdout.on("data", (chunk) => {
      out.push(chunk);
      buffered += chunk.toString("utf8");
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        if (msg.method !== undefined && msg.id !== undefined) {
          send({ jsonrpc: "2.0", id: msg.id, result: {} }); // e.g. the server's ping
        } else if (msg.method === undefined && waiting.has(msg.id)) {
          waiting.get(msg.id)(msg);
          waiting.delete(msg.id);
        }
      }
    });
    child.on("error", reject);
    child.on("exit", () => resolve(Buffer.concat(out)));
    (async () => {
      await request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "seed-capture", version: "0" },
      });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await request("tools/list", {});
      for (const [name, args] of calls) {
        await request("tools/call", { name, arguments: args, _meta: { progressToken: next } });
      }
      await request("tools/call", { name: "no_such_tool", arguments: {} });
      child.stdin.end();
    })().catch(reject);
  });
}

const normalCalls = [
  ["echo", { text: "hello 你好 🎉" }],
  ["add", { a: 2, b: 3.5 }],
  ["fail", {}],
];
const stdio = {
  normal: await capture("normal.mjs", ["--tag", "alpha"], normalCalls),
  chatty: await capture("chatty.mjs", [], [["work", {}], ...normalCalls]),
  garbage: await capture("garbage.mjs", [], normalCalls),
  big: await capture("big-result.mjs", ["--mb", "0.002"], [["big", {}]]),
  bytes: await capture("byte-by-byte.mjs", [], normalCalls.slice(0, 1)),
};

rmSync(corpus, { recursive: true, force: true });
const lines = [];
for (const [name, bytes] of Object.entries(stdio)) {
  // [limit selector, chunk pattern]: a 64 KiB limit and 3-byte chunks; then a 64 B limit, so
  // the over-long-line path is seeded too.
  seed("framing", name, withPrefix([10, 2], bytes));
  seed("framing", `${name}-small`, withPrefix([0, 9], bytes));
  seed("session", name, withPrefix([10, 2], bytes));
  seed("session", `${name}-small`, withPrefix([2, 16], bytes));
  for (const line of bytes.toString("utf8").split("\n")) {
    if (line.trim() !== "" && line.length < 4096) lines.push(line);
  }
}
for (const [i, line] of [...new Set(lines)].entries()) seed("jsonrpc", `line${i}`, line);

// Streamable HTTP: [status selector (0: 200), content type (0: SSE, 1: JSON), chunk pattern].
const messages = stdio.normal.toString("utf8").split("\n").filter((l) => l.startsWith("{"));
seed("http", "json-initialize", withPrefix([0, 1, 5], messages[0]));
const events = messages.map((m, i) => `id: ev-${i}\nevent: message\ndata: ${m}\n\n`).join("");
seed("http", "sse-session", withPrefix([0, 0, 3], `: keep-alive\nretry: 500\n\n${events}`));
seed("http", "sse-crlf", withPrefix([1, 2, 7], events.replaceAll("\n", "\r\n")));
seed("http", "error-404", withPrefix([6, 1, 1], '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}'));
seed("sse", "mcp-events", withPrefix([6, 3], events));
seed("sse", "mcp-multiline", withPrefix([2, 1], `data: a\ndata: b\r\nid: 7\r\n\r\ndata:no space\r\rdata: [DONE]\n\n`));

// The OpenAI replay server: every scenario, streamed and not.
const replay = spawn(process.execPath, [
  join(fixtures, "openai", "replay-server.mjs"),
  join(fixtures, "openai", "scenarios.json"),
  "--port",
  "0",
], { stdio: ["pipe", "pipe", "ignore"] });
const port = await new Promise((resolve) => {
  replay.stdout.once("data", (d) => resolve(JSON.parse(d.toString()).port));
});
const { default: scenarios } = await import(join(fixtures, "openai", "scenarios.json"), { with: { type: "json" } });
let n = 0;
for (const name of Object.keys(scenarios.scenarios)) {
  if (/never answer|stall/i.test(name)) continue; // they hang by design
  for (const stream of [true, false]) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
      body: JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: name }] }),
    });
    const body = Buffer.from(await res.arrayBuffer());
    n += 1;
    seed("openai", `scenario${n}`, withPrefix([n % 17], body));
    if ((res.headers.get("content-type") ?? "").includes("event-stream")) {
      seed("sse", `openai${n}`, withPrefix([9, n % 17], body));
    }
  }
}
replay.kill();

// .mcp.json
const configs = [
  `{"mcpServers": {
  "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
             "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "\${GITHUB_TOKEN}"}, "timeout": 60000},
  "demo":   {"type": "mock"},
  "old":    {"command": "legacy-server", "disabled": true}
}}`,
  `{"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/",
  "oauth": {"clientId": "Iv1.0123456789abcdef", "clientSecret": "\${GH_OAUTH_SECRET}",
            "scope": "repo read:org"}}}}`,
  `{"mcpServers": {"reports": {"type": "http", "url": "https://mcp.example.com/mcp",
  "oauth": {"clientId": "report-bot", "privateKey": "\${REPORT_BOT_KEY_PEM}",
            "clientCredentials": true}}}}`,
  `{"mcpServers": {"notes": {"type": "http", "url": "https://notes.example.com/mcp",
  "oauth": {"clientId": "agentwire-notes", "clientSecret": "\${NOTES_CLIENT_SECRET}",
            "enterprise": {"idpIssuer": "https://acme.okta.com", "idpClientId": "agentwire"}}}}}`,
  JSON.stringify({ mcpServers: { alpha: { command: "node", args: ["normal.mjs", "--tag", "alpha"], env: { KEY: "\${TOKEN:-fallback}", HOME_DIR: "\${HOME}" }, cwd: "\${HOME}/work", timeout: 5000, risk: "read", tools: { echo: { risk: "write" } }, sampling: true } } }),
  JSON.stringify({ mcpServers: { remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Api-Key": "\${TOKEN}" } }, off: { command: "x", disabled: true } }, other: 1 }),
];
configs.forEach((c, i) => seed("mcp_config", `config${i}`, c));

for (const [target, count] of Object.entries(written)) console.log(`${target}: ${count} seeds`);
