// `anthropic()`: Claude through the Anthropic Messages API over `fetch`, with the core's codec
// (prompt-caching breakpoints on the last tool and the newest message, streamed text and
// thinking, usage with cache reads and writes), which is the on-demand wasm module `anthropic`:
// agents on other models never download it.
import { modelSecrets } from './session.js';
import { describe, fail, isPlainObject, nonEmptyString, optionalCount, optionalFunction, options as checkOptions } from './check.js';
import { bounded, DEFAULT_RETRIES, postModel, readCapped, tooLarge } from './model-http.js';
import { answerBounds, readStream } from './models.js';
import { loadModule, wasm } from './wasm.js';

/** The Messages API version the codec speaks. */
const ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_BASE_URL = 'https://api.anthropic.com';

const ANTHROPIC_OPTIONS = [
  'apiKey',
  'model',
  'baseURL',
  'fetch',
  'dangerouslyAllowBrowser',
  'stream',
  'maxTokens',
  'temperature',
  'cache',
  'toolChoice',
  'headers',
  'extra',
  'retries',
  'maxAnswerBytes',
  'maxAnswerMs',
];

/** Whether this is a browser page (where an API key in the code is visible to every visitor). */
function inBrowser() {
  return typeof globalThis.window !== 'undefined' && typeof globalThis.document !== 'undefined';
}

/**
 * A Claude model behind `POST {baseURL}/v1/messages` (default `https://api.anthropic.com`).
 * Streams by default; 408/429/529/5xx are retried (`retries`, default 3) honouring
 * `retry-after`. In a browser page it refuses to run unless `dangerouslyAllowBrowser: true`,
 * which then sends `anthropic-dangerous-direct-browser-access: true`. An answer is bounded:
 * `maxAnswerBytes` (default 64 MiB) and `maxAnswerMs` (default 30 min). Redirects are
 * followed within the base URL's origin only: the key never goes to another.
 */
export function anthropic(options) {
  const where = 'anthropic';
  if (options === undefined) fail(where, 'options { apiKey, model } are required');
  const o = checkOptions(where, options, ANTHROPIC_OPTIONS);
  nonEmptyString(where, 'model', o.model);
  if (o.apiKey !== undefined && typeof o.apiKey !== 'string') {
    fail(where, `"apiKey" must be a string, got ${describe(o.apiKey)}`);
  }
  if (o.baseURL !== undefined) nonEmptyString(where, 'baseURL', o.baseURL);
  for (const flag of ['stream', 'cache', 'dangerouslyAllowBrowser']) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') {
      fail(where, `"${flag}" must be a boolean, got ${describe(o[flag])}`);
    }
  }
  if (o.headers !== undefined && !isPlainObject(o.headers)) {
    fail(where, `"headers" must be an object of strings, got ${describe(o.headers)}`);
  }
  if (o.extra !== undefined && !isPlainObject(o.extra)) fail(where, `"extra" must be an object, got ${describe(o.extra)}`);
  if (o.toolChoice !== undefined && !isPlainObject(o.toolChoice)) {
    fail(where, `"toolChoice" must be an object such as { type: 'auto' }, got ${describe(o.toolChoice)}`);
  }
  if (o.temperature !== undefined && (typeof o.temperature !== 'number' || !Number.isFinite(o.temperature))) {
    fail(where, `"temperature" must be a number, got ${describe(o.temperature)}`);
  }
  optionalCount(where, 'maxTokens', o.maxTokens, 1);
  const retries = optionalCount(where, 'retries', o.retries, 0) ?? DEFAULT_RETRIES;
  const { maxAnswerBytes, maxAnswerMs } = answerBounds(where, o);
  optionalFunction(where, 'fetch', o.fetch);
  if (inBrowser() && o.dangerouslyAllowBrowser !== true) {
    fail(
      where,
      'refusing to run in a browser: the API key would be visible to every visitor; call Claude from a server, or pass dangerouslyAllowBrowser: true if the key is the user\'s own',
    );
  }
  const fetchImpl = o.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') fail(where, 'no fetch() here; pass one as "fetch"');

  const baseURL = (o.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const url = baseURL.endsWith('/v1') ? `${baseURL}/messages` : `${baseURL}/v1/messages`;
  const stream = o.stream ?? true;
  const codecOptions = JSON.stringify({
    model: o.model,
    stream,
    maxTokens: o.maxTokens,
    temperature: o.temperature,
    cache: o.cache ?? true,
    toolChoice: o.toolChoice,
    extra: o.extra,
  });
  const headers = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION, ...o.headers };
  if (o.apiKey) headers['x-api-key'] = o.apiKey;
  if (o.dangerouslyAllowBrowser === true) headers['anthropic-dangerous-direct-browser-access'] = 'true';

  const model = {
    async complete(request, { onText, onReasoning, signal: outer } = {}) {
      const glue = wasm('anthropic().complete');
      // The codec is its own wasm module, loaded on the first request of any Claude model.
      const codec = await loadModule('anthropic');
      const body = codec.encodeAnthropicRequest(JSON.stringify(request), codecOptions);
      const provider = 'Anthropic Messages';
      const big = () => tooLarge(provider, baseURL, maxAnswerBytes);
      return bounded({ provider, baseURL, maxAnswerMs, secret: o.apiKey, outer }, async (signal) => {
        const response = await postModel({ fetchImpl, url, baseURL, headers, body, retries, secret: o.apiKey, glue, signal });
        if (!stream || !response.body) {
          return JSON.parse(codec.decodeAnthropicResponse(await readCapped(response, maxAnswerBytes, big)));
        }
        return readStream(response.body, codec.AnthropicStream.withMaxBytes(maxAnswerBytes), onText, onReasoning, { maxBytes: maxAnswerBytes, tooLarge: big, signal });
      });
    },
  };
  // The key and headers never reach a session store (the core picks the sensitive headers).
  modelSecrets.set(model, { key: o.apiKey, headers });
  return model;
}
