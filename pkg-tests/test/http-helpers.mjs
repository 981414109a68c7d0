// Plumbing for the Streamable HTTP tests: server-everything in its HTTP mode, and a small
// recording MCP server written here so the tests can see every request and script failures.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { everythingServer } from './helpers.mjs';

/** A port nothing listens on (right now). */
export async function freePort() {
  const server = createTcpServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `check` until it returns something truthy, or fails after `ms`. */
export async function eventually(check, ms = 5_000, what = 'the condition') {
  const until = performance.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (performance.now() > until) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * @modelcontextprotocol/server-everything in Streamable HTTP mode on a free port. `stdout()` is
 * what it logged (it logs each request and session termination there); `stop()` kills it.
 */
export async function startEverythingHttp() {
  const { command, args } = everythingServer();
  const port = await freePort();
  const child = spawn(command, [args[0], 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await Promise.race([
    eventually(() => /listening on port/.test(stderr), 30_000, 'server-everything listening'),
    exited.then((code) => {
      throw new Error(`server-everything exited with ${code} at start: ${stderr}`);
    }),
  ]);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes its message',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

/**
 * A minimal Streamable HTTP MCP server with one tool, `echo`, that records every request
 * (`{ method, headers, body }`). JSON answers for the handshake; `tools/call` is answered as an
 * SSE stream written in two pieces. Knobs: `status` answers every request with that status;
 * `getStatus` answers the GET stream (default 405, "no stream"); `token` answers 401 (with
 * `WWW-Authenticate`) to every request without `Authorization: Bearer <token>`, and
 * `rotate(next)` makes `next` the only token accepted. `expire()` forgets the current session,
 * so the next request with its id gets 404.
 */
export async function recordingServer({ status, getStatus = 405, token } = {}) {
  const requests = [];
  let sessions = 0;
  let session = null;
  let accepted = token;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : null;
    requests.push({ method: req.method, headers: req.headers, body });
    const json = (value, headers = {}) => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(value));
    };
    const refused = status ?? (accepted !== undefined && req.headers.authorization !== `Bearer ${accepted}` ? 401 : 0);
    if (refused) {
      res.writeHead(refused, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="recording"' });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(getStatus).end();
      return;
    }
    if (req.method === 'DELETE') {
      session = null;
      res.writeHead(200).end();
      return;
    }
    if (body?.method === 'initialize') {
      session = `session-${++sessions}`;
      const result = {
        protocolVersion: body.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'recording', version: '1.0.0' },
      };
      json({ jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': session });
      return;
    }
    if (req.headers['mcp-session-id'] !== session) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown session');
      return;
    }
    if (body?.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (body.method === 'tools/list') {
      json({ jsonrpc: '2.0', id: body.id, result: { tools: [ECHO_TOOL] } });
      return;
    }
    if (body.method === 'tools/call') {
      const answer = { jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: `echo: ${body.params.arguments.message}` }] } };
      const event = `id: ${body.id}\nevent: message\ndata: ${JSON.stringify(answer)}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event.slice(0, 20));
      setTimeout(() => res.end(event.slice(20)), 10);
      return;
    }
    json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'no such method' } });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    requests,
    expire() {
      session = 'forgotten';
    },
    /** With `token`: from now on only `Bearer <next>` is accepted (the old token expired). */
    rotate(next) {
      accepted = next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
