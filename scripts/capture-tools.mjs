#!/usr/bin/env node
// Captures the `tools/list` of the pinned npm MCP servers (installed by scripts/npm-fixtures)
// into tests/fixtures/tool_search/<server>.json, the frozen catalog the tool-search recall test
// runs over. Talks stdio JSON-RPC like agentwire does (client declares `roots`), pages through
// `nextCursor`, and writes the tools exactly as listed. Usage:
//   scripts/npm-fixtures && node scripts/capture-tools.mjs
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const modules = process.env.AGENTWIRE_NPM_CACHE
  ? join(process.env.AGENTWIRE_NPM_CACHE, "node_modules")
  : join(root, "target/npm-fixtures/node_modules");
const out = join(root, "tests/fixtures/tool_search");
const scratch = mkdtempSync(join(tmpdir(), "capture-tools-"));

// server name (as in .mcp.json) → package, extra arguments, extra environment.
const SERVERS = {
  everything: ["server-everything", ["stdio"], {}],
  filesystem: ["server-filesystem", [scratch], {}],
  // Lists its tools offline; the token is never used.
  github: ["server-github", [], { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_fake" }],
  memory: ["server-memory", [], { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") }],
};

function listTools(pkg, args, env) {
  const dir = join(modules, "@modelcontextprotocol", pkg);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0];
  const child = spawn(process.execPath, [join(dir, bin), ...args], {
    env: { PATH: process.env.PATH, HOME: scratch, ...env },
    stdio: ["pipe", "pipe", "ignore"],
  });
  let nextId = 1;
  const waiting = new Map();
  let buffer = "";
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.id !== undefined && waiting.has(message.id)) {
        waiting.get(message.id)(message);
        waiting.delete(message.id);
      } else if (message.method === "roots/list") {
        send({ jsonrpc: "2.0", id: message.id, result: { roots: [] } });
      }
    }
  });
  const send = (message) => child.stdin.write(JSON.stringify(message) + "\n");
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      send({ jsonrpc: "2.0", id, method, params });
    });
  return (async () => {
    try {
      const init = await request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: "agentwire-capture", version: "0" },
      });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const tools = [];
      let cursor;
      do {
        const page = await request("tools/list", cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return { server: init.serverInfo, package: `${manifest.name}@${manifest.version}`, tools };
    } finally {
      child.kill();
    }
  })();
}

mkdirSync(out, { recursive: true });
for (const [name, [pkg, args, env]] of Object.entries(SERVERS)) {
  const listing = await listTools(pkg, args, env);
  writeFileSync(join(out, `${name}.json`), JSON.stringify(listing, null, 2) + "\n");
  console.log(`${name}: ${listing.tools.length} tools (${listing.package})`);
}
