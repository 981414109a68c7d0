// The HTTP side of `openaiCompatible`: one POST, retried on rate limits and server errors,
// with error messages that say what the server said (the API key masked as [API key], as the
// www page does).
import { messageOf } from './check.js';

/** Retries after the first attempt, by default (as the CLI). */
export const DEFAULT_RETRIES = 3;
/** Wait before the first retry when the server gives no Retry-After; doubled each time. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** The longest Retry-After honoured; a server asking for more fails the call at once. */
const MAX_RETRY_AFTER_MS = 60_000;
/** How much of an error body ends up in a message. */
const MAX_ERROR_CHARS = 500;

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
  text = text.replace(/\s+/g, ' ').trim() || '(empty body)';
  if (secret && secret.length >= 4) text = text.split(secret).join('[API key]');
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
      response = await fetchImpl(url, signal ? { method: 'POST', headers, body, signal } : { method: 'POST', headers, body });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
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
