// Scripted peers for tests that run in every runtime (no `node:` import): an MCP transport whose
// server is a function, the MCP handshake, and a JS model that can hang until aborted.

/**
 * A transport whose "server" is a function: it gets each parsed message the client sent and
 * returns what to answer (a string, an object, an array of them, or nothing).
 */
export function scriptedTransport(reply) {
  let onMessage = () => {};
  let onClose = () => {};
  const transport = {
    closed: false,
    received: [],
    send(line) {
      const message = JSON.parse(line);
      transport.received.push(message);
      const out = reply(message);
      const list = out === undefined ? [] : Array.isArray(out) ? out : [out];
      setTimeout(() => list.forEach((m) => onMessage(m)), 1);
    },
    onMessage(callback) {
      onMessage = callback;
    },
    onClose(callback) {
      onClose = callback;
    },
    close() {
      transport.closed = true;
    },
    /** Ends the connection from the server's side. */
    hangUp(reason) {
      onClose(reason);
    },
  };
  return transport;
}

/** Answers the MCP handshake and tools/list with `tools`; `onCall` answers tools/call. */
export function minimalServer(tools, onCall) {
  return (message) => {
    if (message.id === undefined) return undefined;
    if (message.method === 'initialize') {
      return {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'scripted', version: '1.0.0' },
        },
      };
    }
    if (message.method === 'tools/list') return { jsonrpc: '2.0', id: message.id, result: { tools } };
    if (message.method === 'tools/call') return onCall(message);
    return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } };
  };
}

/**
 * A JS model that first asks for `tool` (when given) and answers once the tool result is in.
 * `hang(request)` true makes a call wait until its signal aborts; every call's signal is kept.
 */
export function scriptedModel({ tool, hang = () => false } = {}) {
  const signals = [];
  return {
    signals,
    async complete(request, { signal }) {
      signals.push(signal);
      if (hang(request)) await untilAborted(signal);
      const last = request.messages.at(-1);
      if (tool && last.role === 'user') return { toolCalls: [{ id: 'call_1', name: tool, arguments: {} }] };
      return { text: `answer to ${request.messages.filter((m) => m.role === 'user').length} prompts` };
    },
  };
}

/** A promise that rejects with the signal's reason once it aborts, and never settles before. */
export function untilAborted(signal) {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
}

/** Resolves once `check()` is true, polling on the event loop; fails after `ms`. */
export async function until(check, ms = 10_000, what = 'the condition') {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await sleep(1);
  }
}

/** Resolves after `ms` on a timer. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `done` and `error` events of a log: a run ends with exactly one. */
export const terminalEvents = (log) => log.events.filter((e) => e.type === 'done' || e.type === 'error');

/** A model that calls `tool` with `args` once, then answers with the tool's output. */
export function callOnceModel(tool, args) {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { text: `tool said: ${last.content}` };
      return { toolCalls: [{ id: `call_${requests.length}`, name: tool, arguments: args }] };
    },
  };
}
