// The loopback servers the portable suite talks to, as the orchestrator (run.mjs) starts them:
// the OpenAI-compatible replay server, and a CORS front so a page on another origin (the
// Chromium run) can reach a server that does not answer CORS itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest, createServer } from 'node:http';
import { join } from 'node:path';

/** Starts the replay server (AW_OPENAI_FIXTURES); resolves to `{ url (its origin), stop() }`. */
export async function replayServer() {
  const dir = process.env.AW_OPENAI_FIXTURES;
  if (!dir) throw new Error('AW_OPENAI_FIXTURES must point at the replay server fixtures; run pkg-tests/run');
  const child = spawn(process.execPath, [join(dir, 'replay-server.mjs'), join(dir, 'scenarios.json')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line) => resolve(JSON.parse(line).port));
    child.once('exit', (code) => reject(new Error(`the replay server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.stdin.end() };
}

/**
 * Starts the modern-only (2026-07-28), stateless MCP server built on the TypeScript SDK v2
 * (AW_MCP_FIXTURES/modern.mjs over HTTP, with the SDK from AW_NPM_FIXTURES); resolves to
 * `{ url, stop() }`. It refuses the legacy era, so only a client speaking 2026-07-28 gets an answer.
 */
export async function modernServer() {
  const fixtures = process.env.AW_MCP_FIXTURES;
  const npm = process.env.AW_NPM_FIXTURES;
  if (!fixtures || !npm) throw new Error('AW_MCP_FIXTURES and AW_NPM_FIXTURES must be set; run pkg-tests/run');
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-modern-'));
  const portFile = join(dir, 'port');
  const child = spawn(process.execPath, [join(fixtures, 'modern.mjs'), '--npm', npm, '--http', portFile], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let port = '';
  for (let i = 0; !port; i++) {
    if (child.exitCode !== null || i > 200) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the modern MCP server did not start (exit ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 50));
    try {
      port = readFileSync(portFile, 'utf8').trim();
    } catch {}
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A reverse proxy on a free loopback port in front of `target` (an origin) that answers CORS:
 * preflights get the method and headers they ask for, and every answer allows any origin and
 * exposes its own headers (Mcp-Session-Id, WWW-Authenticate...). Bodies stream through as they
 * come (SSE stays incremental). `GET /__front/open` answers `{ open }`, the requests whose
 * client has neither read the whole answer nor gone away: what a cancelled `fetch` must not
 * leave behind. Resolves to `{ url (its origin), stop() }`.
 */
export async function corsFront(target) {
  const { hostname, port } = new URL(target);
  let open = 0;
  const server = createServer((req, res) => {
    const allow = { 'access-control-allow-origin': '*' };
    if (req.method === 'GET' && req.url === '/__front/open') {
      res.writeHead(200, { ...allow, 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify({ open }));
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...allow,
        'access-control-allow-methods': req.headers['access-control-request-method'] ?? 'GET, POST, DELETE',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
        'access-control-max-age': '600',
      });
      return res.end();
    }
    open++;
    res.once('close', () => open--);
    const headers = { ...req.headers, host: `${hostname}:${port}` };
    delete headers.origin;
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers }, (answer) => {
      const exposed = Object.keys(answer.headers).join(', ');
      res.writeHead(answer.statusCode, { ...answer.headers, ...allow, 'access-control-expose-headers': exposed });
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      res.writeHead(502, allow);
      res.end(`cors front: ${target} did not answer: ${error.message}`);
    });
    res.on('close', () => upstream.destroy()); // the client went away: so does the upstream request
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
