// MCP transports as plain JS objects: the built-in mock GitHub server, and the adapter that
// turns a host's `{ send, onMessage, onClose, close }` object into what the wasm side drives.
import { describe, fail, messageOf } from './check.js';
import { mocks, mocksIfLoaded } from './wasm.js';

const mockServers = new WeakSet();

/** Whether `transport` came from `mockGithub()` (the agent then loads the mocks module early). */
export function isMockGithub(transport) {
  return mockServers.has(transport);
}

/**
 * The built-in mock GitHub MCP server (canned data, no network) as a transport. It lives in the
 * mocks wasm module, loaded on first use; any MCP client can use it like any transport.
 */
export function mockGithub() {
  let bridge = null;
  let deliver = null;
  let closedCallback = null;
  let closed = false;
  // The last send still waiting for the mocks module to load: later sends queue behind it, so
  // messages reach the server in order.
  let waiting = null;
  const answer = (glue, line) => {
    if (closed) return; // closed while the module was loading: nobody is listening
    bridge ??= new glue.MockGithubBridge();
    const replies = bridge.handle(String(line)).split('\n').filter(Boolean);
    // Answer asynchronously, as a real server would.
    if (replies.length) {
      queueMicrotask(() => {
        for (const reply of replies) if (!closed) deliver?.(reply);
      });
    }
  };
  const transport = {
    send(line) {
      if (closed) throw new Error('the mock GitHub server is closed');
      const glue = mocksIfLoaded();
      if (glue && waiting === null) {
        answer(glue, line);
        return undefined;
      }
      // First use: a promise that settles once the message is handled (a load failure rejects).
      const sent = (waiting ?? Promise.resolve()).then(() => mocks()).then((g) => answer(g, line));
      const settled = sent.catch(() => {});
      waiting = settled;
      settled.then(() => {
        if (waiting === settled) waiting = null;
      });
      return sent;
    },
    onMessage(callback) {
      deliver = callback;
    },
    onClose(callback) {
      closedCallback = callback;
    },
    close() {
      if (closed) return;
      closed = true;
      bridge?.free();
      bridge = null;
      closedCallback?.('the mock GitHub server was closed');
    },
  };
  mockServers.add(transport);
  return transport;
}

/** Checks that `transport` has the transport methods; `where` prefixes the error. */
export function checkTransport(where, transport) {
  if (isMockGithub(transport)) return;
  if (typeof transport !== 'object' || transport === null) {
    fail(where, `the transport must be an object with send(line) and onMessage(callback), got ${describe(transport)}`);
  }
  for (const name of ['send', 'onMessage']) {
    if (typeof transport[name] !== 'function') {
      fail(where, `transport.${name} must be a function, got ${describe(transport[name])}`);
    }
  }
  for (const name of ['onClose', 'onAuthorizing', 'close']) {
    if (transport[name] !== undefined && typeof transport[name] !== 'function') {
      fail(where, `transport.${name} must be a function when given, got ${describe(transport[name])}`);
    }
  }
}

function asLine(message) {
  if (typeof message === 'string') return message;
  if (typeof message === 'object' && message !== null) {
    try {
      return JSON.stringify(message);
    } catch (error) {
      return `<unserialisable message: ${messageOf(error)}>`;
    }
  }
  // Not a message at all: passed on as text so the protocol layer reports it.
  return String(message);
}

/**
 * The shape the wasm side drives: `send(line)`, `start(onMessage, onClose, onAuthorizing)`,
 * `close()`. It never calls back after the connection closed, and never lets a throw from the
 * host's object or from a callback escape into the host's own event handlers.
 */
export function adaptTransport(transport) {
  let open = true;
  return {
    send(line) {
      if (!open) throw new Error('the transport is closed');
      return transport.send(line);
    },
    start(onMessage, onClose, onAuthorizing) {
      const closeOnce = (reason) => {
        if (!open) return;
        open = false;
        const text = reason === undefined || reason === null ? undefined : messageOf(reason);
        try {
          onClose(text);
        } catch {
          // The wasm side is gone already; nothing is listening.
        }
      };
      transport.onMessage((message) => {
        if (!open) return;
        try {
          onMessage(asLine(message));
        } catch {
          // Same as above: a connection being torn down.
        }
      });
      transport.onClose?.(closeOnce);
      transport.onAuthorizing?.((authorizing) => {
        if (!open) return;
        try {
          onAuthorizing(Boolean(authorizing));
        } catch {
          // Same as above.
        }
      });
    },
    close() {
      if (!open) return;
      open = false;
      transport.close?.();
    },
  };
}
