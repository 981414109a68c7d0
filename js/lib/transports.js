// MCP transports as plain JS objects: the built-in mock GitHub server, and the adapter that
// turns a host's `{ send, onMessage, onClose, close }` object into what the wasm side drives.
import { describe, fail, messageOf } from './check.js';
import { wasm } from './wasm.js';

const mockServers = new WeakSet();

/** Whether `transport` came from `mockGithub()` (the agent then runs it in process). */
export function isMockGithub(transport) {
  return mockServers.has(transport);
}

/**
 * The built-in mock GitHub MCP server (canned data, no network) as a transport. An agent runs
 * it in process; any other MCP client can use it like any transport.
 */
export function mockGithub() {
  let bridge = null;
  let deliver = null;
  let closedCallback = null;
  let closed = false;
  const transport = {
    send(line) {
      if (closed) throw new Error('the mock GitHub server is closed');
      bridge ??= new (wasm('mockGithub().send').MockGithubBridge)();
      const replies = bridge.handle(String(line)).split('\n').filter(Boolean);
      // Answer asynchronously, as a real server would.
      if (replies.length) {
        queueMicrotask(() => {
          for (const reply of replies) if (!closed) deliver?.(reply);
        });
      }
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
  for (const name of ['onClose', 'close']) {
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
 * The shape the wasm side drives: `send(line)`, `start(onMessage, onClose)`, `close()`. It
 * never calls back after the connection closed, and never lets a throw from the host's object
 * or from a callback escape into the host's own event handlers.
 */
export function adaptTransport(transport) {
  let open = true;
  return {
    send(line) {
      if (!open) throw new Error('the transport is closed');
      return transport.send(line);
    },
    start(onMessage, onClose) {
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
    },
    close() {
      if (!open) return;
      open = false;
      transport.close?.();
    },
  };
}
