// Redirects followed by hand, so that credentials never reach another origin. `fetch` follows
// redirects itself and keeps every custom header on the way (`x-api-key`, `api-key`,
// `anthropic-*`, configured headers; some runtimes keep `Authorization` too), whatever origin
// the redirect leads to. Every request of the package goes out with `redirect: 'manual'`:
// within one origin (scheme, host and port) a redirect is followed with every header; one
// that leaves the origin is refused (model servers: the body is the conversation, and the key
// is the only thing the other server would want) or followed with only the protocol headers
// (MCP servers, as the CLI does). 301/302 turn a POST into a bodiless GET and 303 turns
// anything but GET into one, as fetch does; 307/308 keep the method and body.

/** Most redirects followed for one request (fetch's own limit is 20; the CLI's 10). */
export const MAX_REDIRECTS = 10;

/** A redirect agentwire will not follow; its message says why and where it led. */
export class RedirectRefused extends Error {}

/** Headers that carry no credential, kept across origins (lowercase). */
const SAFE_ACROSS_ORIGINS = new Set(['accept', 'content-type', 'mcp-protocol-version', 'last-event-id', 'user-agent']);

/** `[name, value]` pairs of a headers init: an object, an array of pairs, or a `Headers`. */
function pairsOf(headers) {
  if (headers === undefined || headers === null) return [];
  if (Array.isArray(headers)) return headers.map(([name, value]) => [String(name), String(value)]);
  if (typeof headers.entries === 'function' && typeof headers.get === 'function') return [...headers.entries()];
  return Object.entries(headers).map(([name, value]) => [name, String(value)]);
}

/** `url` as it may be shown: no user info, no query (which may hold a token). */
export function shownUrl(url) {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}

/**
 * `fetch(url, init)` with redirects followed by hand as described above. `acrossOrigins` is
 * `'refuse'` (throws an Error naming the other origin) or `'strip'` (goes on with only the
 * safe headers); `what` names the server in errors ("the model server at …").
 */
export async function fetchWithinOrigin(fetchImpl, url, init, { acrossOrigins, what }) {
  const origin = new URL(url).origin;
  let target = url;
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers = pairsOf(init.headers);
  for (let redirects = 0; ; redirects++) {
    const request = { ...init, method, headers, redirect: 'manual' };
    if (body === undefined) delete request.body;
    else request.body = body;
    const response = await fetchImpl(target, request);
    if (response.type === 'opaqueredirect') {
      // A browser hides where a manual redirect leads; following it blind could leave the origin.
      throw new RedirectRefused(
        `${what} answered with a redirect, which this runtime does not let agentwire inspect; use the address it redirects to`,
      );
    }
    const location = response.headers?.get?.('location');
    if (![301, 302, 303, 307, 308].includes(response.status) || !location) return response;
    response.body?.cancel?.().catch(() => {});
    if (redirects >= MAX_REDIRECTS) throw new RedirectRefused(`${what} redirected more than ${MAX_REDIRECTS} times`);
    let next;
    try {
      next = new URL(location, target);
    } catch {
      throw new RedirectRefused(`${what} redirected to an unreadable address`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new RedirectRefused(`${what} redirected to a ${next.protocol} address, which agentwire does not follow`);
    }
    if (next.origin !== origin) {
      if (acrossOrigins !== 'strip') {
        throw new RedirectRefused(
          `${what} redirected to another origin, ${shownUrl(next.href)}; agentwire sends the key and the conversation only to the origin it was given (point it at that server if you trust it)`,
        );
      }
      headers = headers.filter(([name]) => SAFE_ACROSS_ORIGINS.has(name.toLowerCase()));
    }
    const toGet = ((response.status === 301 || response.status === 302) && method === 'POST') || (response.status === 303 && method !== 'GET' && method !== 'HEAD');
    if (toGet) {
      method = 'GET';
      body = undefined;
      headers = headers.filter(([name]) => name.toLowerCase() !== 'content-type');
    }
    target = next.href;
  }
}
