// MCP servers over Streamable HTTP: the core's machine (HttpMachine, wasm) decides every request,
// and this file performs them with `fetch`, streams the bodies back, and runs its timers.
import { describe, fail, isPlainObject, messageOf, optionalFunction, options as checkOptions } from './check.js';
import { fetchWithinOrigin } from './redirects.js';
import { wasm } from './wasm.js';

const HTTP_OPTIONS = ['headers', 'fetch', 'onEvent', 'authorize'];
/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** setTimeout takes a signed 32-bit delay. */
const MAX_DELAY_MS = 2 ** 31 - 1;

function checkUrl(where, url) {
  if (typeof url !== 'string' || url.length === 0) {
    fail(where, `the URL must be a non-empty string, got ${describe(url)}`);
  }
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    fail(where, `invalid MCP server URL ${JSON.stringify(url)}: not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail(where, `invalid MCP server URL ${JSON.stringify(url)}: the scheme must be http or https, got ${parsed.protocol.slice(0, -1)}`);
  }
}

function checkHeaders(where, headers) {
  if (headers === undefined) return [];
  if (!isPlainObject(headers)) fail(where, `"headers" must be an object of strings, got ${describe(headers)}`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) fail(where, `invalid HTTP header name ${JSON.stringify(name)}`);
    if (typeof value !== 'string') {
      fail(where, `"headers" must be an object of strings: ${JSON.stringify(name)} is ${describe(value)}`);
    }
    if (/[\r\n\0]/.test(value)) fail(where, `invalid value for HTTP header ${JSON.stringify(name)}: it contains a line break or NUL`);
  }
  return Object.entries(headers);
}

/** What a failed `fetch` says, with its cause (Node's "fetch failed" alone says nothing). */
function fetchError(error) {
  const text = messageOf(error);
  const cause = error?.cause;
  const detail = cause ? cause.message || cause.code || '' : '';
  return detail && !text.includes(detail) ? `${text}: ${detail}` : text;
}

function safely(callback, value) {
  try {
    callback(value);
  } catch (error) {
    console.error('agentwire: an httpTransport callback threw:', error);
  }
}

/**
 * An MCP server reached over Streamable HTTP (spec 2025-11-25) at `url`, as an ordinary
 * transport for `agent.connect`. Nothing is sent until the first message. Works wherever
 * `fetch` streams response bodies (Node 20+, browsers; cross-origin servers must allow CORS).
 * With `authorize`, a 401/403 asks it for an access token (the host runs the OAuth flow its
 * own way) and the refused messages are sent again with it. Request timeouts stop while it
 * runs (reported through `onAuthorizing`), so a user taking a minute to consent is fine.
 */
export function httpTransport(url, options) {
  const where = 'httpTransport';
  checkUrl(where, url);
  const o = checkOptions(where, options, HTTP_OPTIONS);
  const headers = checkHeaders(where, o.headers);
  optionalFunction(where, 'fetch', o.fetch);
  optionalFunction(where, 'onEvent', o.onEvent);
  optionalFunction(where, 'authorize', o.authorize);
  const authorize = o.authorize ?? null;
  const fetchImpl = o.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') fail(where, 'no fetch() here; pass one as "fetch"');
  const onEvent = o.onEvent ?? ((event) => console.warn(`agentwire: httpTransport(${url}): ${event.message ?? `session ${event.sessionId} expired; starting a new one`}`));

  let machine = null; // made on first use: the wasm module is loaded by then
  let finished = false;
  let closedReason = '';
  let deliver = () => {};
  let closedCallback = () => {};
  let authorizingCallback = () => {};
  /** Requests being performed: id → AbortController. */
  const inFlight = new Map();
  let timer = null;
  let timerAt = null;
  let pumping = false;
  let again = false;

  const now = () => performance.now();

  function live() {
    if (finished) throw new Error(`the HTTP transport to ${url} is closed: ${closedReason}`);
    machine ??= new (wasm(where).HttpMachine)(url, JSON.stringify(headers), authorize !== null);
    return machine;
  }

  function finish(reason) {
    if (finished) return;
    finished = true;
    closedReason = reason;
    arm(null);
    for (const controller of inFlight.values()) controller.abort();
    inFlight.clear();
    machine?.free();
    machine = null;
    safely(closedCallback, reason);
  }

  /** Arms one timer for the machine's next deadline (ms on the performance.now() clock). */
  function arm(at) {
    if (at === timerAt) return;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    timerAt = at;
    if (at === null) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, Math.ceil(at - now())));
    timer = setTimeout(() => {
      timer = null;
      timerAt = null;
      if (machine) pump(); // drain() starts what is due
    }, delay);
  }

  /** Carries out everything the machine asks for; a call from inside a callback loops once more. */
  function pump() {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const out = JSON.parse(machine.drain(now()));
        for (const id of out.aborts) {
          inFlight.get(id)?.abort();
          inFlight.delete(id);
        }
        for (const request of out.requests) perform(request);
        for (const line of out.messages) safely(deliver, line);
        for (const event of out.events) {
          if (event.type === 'closed') finish(event.reason);
          else if (event.type === 'authorization_required') askForToken(event);
          else safely(onEvent, event);
        }
        if (machine) arm(out.timeout);
      } while (again && machine);
    } finally {
      pumping = false;
    }
  }

  /**
   * Asks the host's `authorize` for a token; the machine holds the refused messages meanwhile
   * and sends them again with it. A throw, a rejection or no token closes the transport.
   */
  async function askForToken({ status, wwwAuthenticate }) {
    let token;
    let failure = null;
    // Request timeouts stop while the user is busy with the authorization.
    safely(authorizingCallback, true);
    try {
      token = await authorize({ url, status, wwwAuthenticate: wwwAuthenticate ?? undefined });
      if (typeof token !== 'string' || token.length === 0) {
        failure = `authorize() must give a non-empty access token string, gave ${describe(token)}`;
      }
    } catch (error) {
      failure = `authorize() failed: ${messageOf(error)}`;
    } finally {
      safely(authorizingCallback, false);
    }
    if (!machine) return; // closed meanwhile
    if (failure === null) machine.setAccessToken(now(), token);
    else machine.authorizationFailed(failure);
    pump();
  }

  /** Feeds one input about request `id` to the machine, unless that request was dropped. */
  function input(id, controller, feed) {
    if (!machine || inFlight.get(id) !== controller) return false;
    feed(machine);
    pump();
    return true;
  }

  async function perform({ id, method, url: target, headers: pairs, body }) {
    const controller = new AbortController();
    inFlight.set(id, controller);
    const end = (error) => {
      if (inFlight.get(id) !== controller) return;
      inFlight.delete(id);
      if (!machine) return;
      machine.end(now(), id, error);
      pump();
    };
    try {
      const init = { method, headers: pairs, signal: controller.signal };
      if (body !== null) init.body = body;
      // Redirects by hand: configured headers never follow one to another origin.
      const response = await fetchWithinOrigin(fetchImpl, target, init, { acrossOrigins: 'strip', what: 'the MCP server' });
      const head = JSON.stringify([...response.headers]);
      const reader = response.body?.getReader() ?? null;
      if (!input(id, controller, (m) => m.head(now(), id, response.status, head))) {
        reader?.cancel().catch(() => {});
        return;
      }
      for (;;) {
        if (!reader) break;
        const { done, value } = await reader.read();
        if (done) break;
        if (!input(id, controller, (m) => m.chunk(now(), id, value))) {
          reader.cancel().catch(() => {});
          return;
        }
      }
    } catch (error) {
      return end(fetchError(error));
    }
    end(undefined);
  }

  return {
    send(line) {
      live().send(now(), String(line));
      pump();
    },
    onMessage(callback) {
      deliver = callback;
    },
    onClose(callback) {
      closedCallback = callback;
    },
    onAuthorizing(callback) {
      authorizingCallback = callback;
    },
    close() {
      if (finished) return;
      if (!machine) return finish('closed by the client');
      machine.close(now());
      pump();
    },
  };
}
