#!/usr/bin/env node
// Counts what the agentwire CLI's first model request spends on tool definitions.
//
//   node measure.mjs --bin PATH/TO/agentwire [--json]
//
// Starts a loopback OpenAI-compatible endpoint that records every request body and answers
// "ok", then runs the real CLI (`agentwire run`) against it four times: with its built-in tools
// only, and with its built-ins plus the four pinned MCP servers of package.json
// (server-github, server-filesystem, server-memory, server-everything) under
// `--tool-search off`, `on` and the default (`auto`). For each first request it counts the o200k
// tokens (npm gpt-tokenizer, GPT-4o/4.1/5's encoding) of JSON(tools), the array exactly as
// sent; the MCP part is that minus the built-ins-only count. Offline: server-github lists its
// tools with a fake token, and nothing leaves 127.0.0.1.

import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const binAt = args.indexOf('--bin');
const bin = binAt >= 0 ? args[binAt + 1] : undefined;
const asJson = args.includes('--json');
if (!bin) {
  process.stderr.write('usage: measure.mjs --bin PATH/TO/agentwire [--json]\n');
  process.exit(2);
}

/** The entry point and exact version of an installed server package. */
function server(name) {
  const manifest = require(`${name}/package.json`);
  const entry = Object.values(manifest.bin)[0];
  return { path: join(dirname(require.resolve(`${name}/package.json`)), entry), version: manifest.version };
}

/** A loopback chat-completions endpoint that keeps every request body as received. */
function captureServer() {
  const bodies = [];
  const http = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const message = { role: 'assistant', content: 'ok' };
      if (JSON.parse(body).stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: message, finish_reason: 'stop' }] })}\n\n`);
        res.end('data: [DONE]\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: 'stop' }] }));
      }
    });
  });
  return new Promise((resolve) =>
    http.listen(0, '127.0.0.1', () => resolve({ http, bodies, url: `http://127.0.0.1:${http.address().port}/v1` })),
  );
}

/** Runs the CLI in `dir`; resolves to its exit code and output. */
function runCli(dir, cliArgs, env) {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, ...env };
    // The flags under test decide, not a setting left in the caller's environment.
    delete childEnv.AGENTWIRE_TOOL_SEARCH;
    const child = spawn(bin, cliArgs, { cwd: dir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const versions = {};
function fourServers(workspace) {
  const entry = (name, extraArgs = [], env = {}) => {
    const { path, version } = server(name);
    versions[name] = version;
    return { command: process.execPath, args: [path, ...extraArgs], env };
  };
  return {
    github: entry('@modelcontextprotocol/server-github', [], { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_fake' }),
    filesystem: entry('@modelcontextprotocol/server-filesystem', [workspace]),
    memory: entry('@modelcontextprotocol/server-memory', [], { MEMORY_FILE_PATH: join(workspace, 'memory.jsonl') }),
    everything: entry('@modelcontextprotocol/server-everything', ['stdio']),
  };
}

const capture = await captureServer();
const root = mkdtempSync(join(tmpdir(), 'agentwire-context-'));
try {
  /** The first request's tools for one set-up: count, bytes, o200k tokens, names. */
  async function firstRequest(label, servers, extraArgs) {
    const dir = join(root, label);
    mkdirSync(dir);
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: servers(dir) }));
    const before = capture.bodies.length;
    const out = await runCli(dir, ['run', ...extraArgs, 'hi'], {
      OPENAI_API_KEY: 'sk-measure',
      OPENAI_BASE_URL: capture.url,
      AGENTWIRE_MODEL: 'gpt-4o-mini',
      AGENTWIRE_MODEL_STREAM: '0',
    });
    if (out.code !== 0 || capture.bodies.length === before) {
      throw new Error(`${label}: agentwire exited ${out.code} without a model request\n${out.stderr}`);
    }
    if (/failed to connect/.test(out.stderr)) throw new Error(`${label}: a server failed\n${out.stderr}`);
    const body = JSON.parse(capture.bodies[before]);
    const tools = body.tools ?? [];
    const text = JSON.stringify(tools);
    return {
      tools: tools.length,
      bytes: Buffer.byteLength(text),
      tokens: countTokens(text),
      names: tools.map((t) => t.function.name),
    };
  }

  const builtins = await firstRequest('builtins', () => ({}), []);
  const off = await firstRequest('four-off', fourServers, ['--tool-search', 'off']);
  const on = await firstRequest('four-on', fourServers, ['--tool-search', 'on']);
  const auto = await firstRequest('four-auto', fourServers, []);
  const result = {
    tokenizer: `gpt-tokenizer ${require('gpt-tokenizer/package.json').version} o200k_base`,
    servers: versions,
    builtins: { tools: builtins.tools, bytes: builtins.bytes, tokens: builtins.tokens },
    off: { tools: off.tools, bytes: off.bytes, tokens: off.tokens, mcpTokens: off.tokens - builtins.tokens },
    on: { tools: on.tools, bytes: on.bytes, tokens: on.tokens, mcpTokens: on.tokens - builtins.tokens, names: on.names },
    auto: { tools: auto.tools, tokens: auto.tokens, sameAsOn: JSON.stringify(auto.names) === JSON.stringify(on.names) },
  };
  if (asJson) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    const n = (x) => x.toLocaleString('en-US');
    console.log(`first request, JSON(tools), ${result.tokenizer}`);
    console.log(`servers: ${Object.entries(versions).map(([k, v]) => `${k.split('/')[1]}@${v}`).join(', ')}`);
    console.log(`built-ins only:    ${builtins.tools} tools, ${n(builtins.tokens)} tokens`);
    console.log(`--tool-search off: ${off.tools} tools, ${n(off.tokens)} tokens (MCP part ${n(result.off.mcpTokens)})`);
    console.log(`--tool-search on:  ${on.tools} tools, ${n(on.tokens)} tokens (MCP part ${n(result.on.mcpTokens)})`);
    console.log(`default (auto):    ${auto.tools} tools, ${n(auto.tokens)} tokens`);
  }
} finally {
  capture.http.close();
  rmSync(root, { recursive: true, force: true });
}
