// The HTTP side of `openaiCompatible`: one POST, retried on rate limits and server errors,
// with error messages that say what the server said (the API key masked as [API key], as the
// www page does).
import { messageOf } from './check.js';
import { fetchWithinOrigin, RedirectRefused } from './redirects.js';

/** Retries after the first attempt, by default (as the CLI). */
export const DEFAULT_RETRIES = 3;
/** Wait before the first retry when the server gives no Retry-After; doubled each time. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** The longest Retry-After honoured; a server asking for more fails the call at once. */
const MAX_RETRY_AFTER_MS = 60_000;
/** How much of an error body ends up in a message. */
const MAX_ERROR_CHARS = 500;
/**
 * The default bound on an answer's body: 64 MiB, as the CLI. The longest answers models write
 * (128k output tokens) take about 32 MB of SSE framing; twice that leaves room while keeping a
 * runaway stream to tens of megabytes.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/**
 * The default bound on one answer, from sending the request to its last byte: 30 minutes, as
 * the CLI. A stream kept alive by pings no longer holds a run for ever.
 */
export const DEFAULT_MAX_ANSWER_MS = 30 * 60 * 1000;
/** setTimeout takes a signed 32-bit delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `text` with the key replaced wherever a server quoted it back. */
export function scrubKey(text, secret) {
  return secret && secret.length >= 4 ? String(text).split(secret).join('[API key]') : String(text);
}

/** 408, 429 and server errors other than 501/505 (which will not change) are worth retrying. */
function retryable(status) {
  return status === 408 || status === 429 || (status >= 500 && status <= 599 && status !== 501 && status !== 505);
}

/** The wait the server asks for: `retry-after-ms`, then `Retry-After` in seconds or as a date. */
function retryAfterMs(headers) {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** What an error response says: the API's error message when it has one, else the body. */
async function errorText(glue, response, secret) {
  let text;
  try {
    const bytes = new Uint8Array(await response.arrayBuffer());
    try {
      glue.decodeOpenAiResponse(bytes);
      text = new TextDecoder().decode(bytes);
    } catch (error) {
      const message = messageOf(error);
      // The codec reads error bodies ({"error": {...}}); anything else is shown as it came.
      text = message.startsWith('model API error: ')
        ? message.slice('model API error: '.length)
        : new TextDecoder().decode(bytes);
    }
  } catch (error) {
    text = `(the body could not be read: ${messageOf(error)})`;
  }
  text = scrubKey(text.replace(/\s+/g, ' ').trim() || '(empty body)', secret);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

/** Waits `ms`, or less when `signal` aborts (then throws its reason); no timer outlives it. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * POSTs `body` to `url` and resolves to the successful `Response`; retries 408/429/5xx up to
 * `retries` times (honouring `Retry-After`), and otherwise throws an Error naming the status
 * and the server's message.
 */
export async function postModel({ fetchImpl, url, baseURL, headers, body, retries, secret, glue, signal }) {
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      const init = signal ? { method: 'POST', headers, body, signal } : { method: 'POST', headers, body };
      // Redirects by hand: the key never follows one to another origin.
      response = await fetchWithinOrigin(fetchImpl, url, init, { acrossOrigins: 'refuse', what: `the model server at ${baseURL}` });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof RedirectRefused) throw error;
      const cause = error?.cause ? `: ${error.cause.message || error.cause.code || ''}` : '';
      throw new Error(`could not talk to the model server at ${baseURL}: ${messageOf(error)}${cause}`);
    }
    if (response.ok) return response;
    const status = response.status;
    const wait = retryAfterMs(response.headers);
    const message = await errorText(glue, response, secret);
    if (status === 401) {
      throw new Error(`the model server at ${baseURL} rejected the API key: ${message} (HTTP 401); check the apiKey`);
    }
    if (!retryable(status)) throw new Error(`the model server answered HTTP ${status}: ${message}`);
    if (attempt > retries) {
      throw new Error(`the model server still answered HTTP ${status} after ${attempt} attempts: ${message}`);
    }
    if (wait !== undefined && wait > MAX_RETRY_AFTER_MS) {
      throw new Error(
        `the model server answered HTTP ${status} and asks to retry in ${Math.ceil(wait / 1000)} s, longer than the ${MAX_RETRY_AFTER_MS / 1000} s agentwire waits: ${message}`,
      );
    }
    const delay = wait ?? Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
    await sleep(delay, signal);
  }
}

/**
 * Runs `attempt(signal)` (one model call) within the answer's bounds and with the key scrubbed
 * from whatever it throws. `signal` aborts when the caller's `outer` signal does or when
 * `maxAnswerMs` has passed; the latter throws an error naming the provider and the bound.
 */
export async function bounded({ provider, baseURL, maxAnswerMs, secret, outer }, attempt) {
  const controller = new AbortController();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    controller.abort(new Error('the answer took too long'));
  }, Math.min(maxAnswerMs, MAX_TIMER_MS));
  const forward = () => controller.abort(outer.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  try {
    return await attempt(controller.signal);
  } catch (error) {
    if (outer?.aborted) throw outer.reason;
    if (late) {
      throw new Error(
        `the ${provider} answer from the model server at ${baseURL} was still arriving after ${maxAnswerMs} ms, the limit on an answer's duration, and was stopped; raise maxAnswerMs if the answer is real`,
      );
    }
    const scrubbed = new Error(scrubKey(messageOf(error), secret));
    if (error?.sizeLimit) scrubbed.sizeLimit = error.sizeLimit;
    throw scrubbed;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', forward);
  }
}

/** The error for an answer past `maxAnswerBytes`. */
export function tooLarge(provider, baseURL, maxAnswerBytes) {
  const error = new Error(
    `the ${provider} answer from the model server at ${baseURL} passed the size limit of ${maxAnswerBytes} bytes and was stopped; raise maxAnswerBytes if the answer is real`,
  );
  error.sizeLimit = maxAnswerBytes;
  return error;
}

/** A whole (non-streamed) body, refused past `maxBytes`. */
export async function readCapped(response, maxBytes, onTooLarge) {
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > maxBytes) throw onTooLarge();
    return bytes;
  }
  const reader = response.body.getReader();
  const parts = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) throw onTooLarge();
      parts.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
