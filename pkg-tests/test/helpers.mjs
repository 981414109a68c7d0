// Shared test plumbing: the real MCP server to talk to, a hand-written process bridge, event logs,
// a model that plays a script
// (scripted peers live in ../portable/suite/scripted.mjs, for every runtime).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** How to start @modelcontextprotocol/server-everything over stdio (set up by ../run). */
export function everythingServer() {
  const entry = process.env.AW_EVERYTHING;
  if (!entry || !existsSync(entry)) {
    throw new Error(
      'AW_EVERYTHING must point at @modelcontextprotocol/server-everything/dist/index.js; run the tests with pkg-tests/run',
    );
  }
  return { command: process.execPath, args: [entry, 'stdio'] };
}

/**
 * A transport written the way a host would bridge any process (a WebContainer `spawn()`, a
 * worker...): it owns the child and splits its stdout into lines itself.
 */
export function bridgeToProcess(command, args) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  let buffered = '';
  let onMessage = () => {};
  let onClose = () => {};
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) if (line.trim()) onMessage(line);
  });
  child.on('close', (code) => onClose(`bridged process exited with code ${code}`));
  child.stdin.on('error', () => {});
  return {
    child,
    sent: [],
    send(line) {
      this.sent.push(line);
      child.stdin.write(`${line}\n`);
    },
    onMessage(callback) {
      onMessage = callback;
    },
    onClose(callback) {
      onClose = callback;
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Collects events; `types()` lists their `type`s in order. */
export function eventLog() {
  const events = [];
  return {
    events,
    onEvent: (event) => events.push(event),
    types: () => events.map((e) => e.type),
    of: (type) => events.filter((e) => e.type === type),
  };
}

/** A model that plays `script` (one response per request), then answers "done". */
export function scriptedModel(script) {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(structuredClone(request));
      return script[requests.length - 1] ?? { text: 'done' };
    },
  };
}
