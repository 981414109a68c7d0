// Models: the built-in mock model, any `{ complete(request) }` object, and an
// OpenAI-compatible endpoint over `fetch` that uses the core's wire codec.
import { modelSecrets } from './session.js';
import {
  describe,
  fail,
  isPlainObject,
  messageOf,
  nonEmptyString,
  optionalCount,
  optionalFunction,
  options as checkOptions,
} from './check.js';
import { bounded, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_ANSWER_MS, DEFAULT_RETRIES, postModel, readCapped, tooLarge } from './model-http.js';
import { mocks, wasm } from './wasm.js';

const mockModels = new WeakSet();

/** Whether `model` is (or stands for) the built-in mock model. */
export function isMockModel(model) {
  return model === undefined || mockModels.has(model);
}

/** The mock model's answer (JSON text) to a request (JSON text); loads the mocks module. */
async function mockComplete(requestJson) {
  let glue;
  try {
    glue = await mocks();
  } catch (error) {
    throw new Error(`the mock model could not be loaded: ${messageOf(error)}`);
  }
  return glue.mockModelComplete(requestJson);
}

/**
 * The built-in mock model: deterministic and offline. It understands a few requests in English
 * and Chinese (list issues, read a file, search repositories, weather, arithmetic) and calls
 * the matching tool when one is offered. It lives in the mocks wasm module, loaded on first use.
 */
export function mockModel() {
  const model = {
    async complete(request) {
      return JSON.parse(await mockComplete(JSON.stringify(request)));
    },
  };
  mockModels.add(model);
  return model;
}

/** Checks a `model` option. */
export function checkModel(where, model) {
  if (isMockModel(model)) return;
  if (typeof model !== 'object' || model === null || typeof model.complete !== 'function') {
    fail(where, `"model" must be an object with a complete(request) method, got ${describe(model)}`);
  }
}

/**
 * What the wasm side calls: `(requestJson) => Promise<responseJson>`. The mock model goes
 * straight to the mocks module (JSON text both ways, the user's object is not involved);
 * `onText` receives streamed text, `onReasoning` streamed reasoning.
 */
export function modelFunction(runSignal, model, onText, onReasoning) {
  if (isMockModel(model)) return mockComplete;
  return (requestJson) => {
    const controller = new AbortController();
    const signal = controller.signal;
    const settled = (async () => {
      await null; // out of the wasm call: the model may call the agent back
      const request = JSON.parse(requestJson);
      let response;
      try {
        response = await model.complete(request, { onText, onReasoning, signal });
      } catch (error) {
        throw new Error(`the model failed: ${messageOf(error)}`);
      }
      if (!isPlainObject(response)) {
        throw new Error(`the model's complete() must resolve to { text?, toolCalls? }, got ${describe(response)}`);
      }
      return JSON.stringify(response);
    })();
    // Called by the runtime when it stops waiting (the run was aborted): the request stops.
    settled.abort = () => {
      settled.catch(() => {}); // nobody awaits it any more
      const run = runSignal();
      controller.abort(run?.aborted ? run.reason : new Error('the run was interrupted'));
    };
    return settled;
  };
}

const OPENAI_OPTIONS = [
  'baseURL',
  'apiKey',
  'model',
  'stream',
  'headers',
  'temperature',
  'maxTokens',
  'extra',
  'fetch',
  'retries',
  'maxAnswerBytes',
  'maxAnswerMs',
];

/** The `maxAnswerBytes` and `maxAnswerMs` options (whole numbers of at least 1), with defaults. */
export function answerBounds(where, o) {
  return {
    maxAnswerBytes: optionalCount(where, 'maxAnswerBytes', o.maxAnswerBytes, 1) ?? DEFAULT_MAX_ANSWER_BYTES,
    maxAnswerMs: optionalCount(where, 'maxAnswerMs', o.maxAnswerMs, 1) ?? DEFAULT_MAX_ANSWER_MS,
  };
}

/**
 * A model served by an OpenAI-compatible `POST {baseURL}/chat/completions` endpoint (OpenAI,
 * DashScope, DeepSeek, vLLM, Ollama, ...). Streams by default; text arrives as `text_delta`
 * events while the answer is being written. 408/429/5xx are retried (`retries`, default 3).
 * An answer is bounded: `maxAnswerBytes` (default 64 MiB) and `maxAnswerMs` (default 30 min).
 * Redirects are followed within the base URL's origin only.
 */
export function openaiCompatible(options) {
  const where = 'openaiCompatible';
  if (options === undefined) fail(where, 'options { baseURL, model } are required');
  const o = checkOptions(where, options, OPENAI_OPTIONS);
  nonEmptyString(where, 'baseURL', o.baseURL);
  nonEmptyString(where, 'model', o.model);
  if (o.apiKey !== undefined && typeof o.apiKey !== 'string') {
    fail(where, `"apiKey" must be a string, got ${describe(o.apiKey)}`);
  }
  if (o.stream !== undefined && typeof o.stream !== 'boolean') {
    fail(where, `"stream" must be a boolean, got ${describe(o.stream)}`);
  }
  if (o.headers !== undefined && !isPlainObject(o.headers)) {
    fail(where, `"headers" must be an object of strings, got ${describe(o.headers)}`);
  }
  if (o.temperature !== undefined && (typeof o.temperature !== 'number' || !Number.isFinite(o.temperature))) {
    fail(where, `"temperature" must be a number, got ${describe(o.temperature)}`);
  }
  optionalCount(where, 'maxTokens', o.maxTokens, 1);
  const retries = optionalCount(where, 'retries', o.retries, 0) ?? DEFAULT_RETRIES;
  const { maxAnswerBytes, maxAnswerMs } = answerBounds(where, o);
  if (o.extra !== undefined && !isPlainObject(o.extra)) {
    fail(where, `"extra" must be an object, got ${describe(o.extra)}`);
  }
  optionalFunction(where, 'fetch', o.fetch);
  const fetchImpl = o.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') fail(where, 'no fetch() here; pass one as "fetch"');

  const url = `${o.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const stream = o.stream ?? true;
  const codecOptions = JSON.stringify({
    model: o.model,
    stream,
    temperature: o.temperature,
    maxTokens: o.maxTokens,
    extra: o.extra,
  });
  const headers = { 'content-type': 'application/json', ...o.headers };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;

  const model = {
    async complete(request, { onText, onReasoning, signal: outer } = {}) {
      const glue = wasm('openaiCompatible().complete');
      const body = glue.encodeOpenAiRequest(JSON.stringify(request), codecOptions);
      const provider = 'OpenAI-compatible';
      const limits = { provider, baseURL: o.baseURL, maxAnswerMs, secret: o.apiKey, outer };
      const big = () => tooLarge(provider, o.baseURL, maxAnswerBytes);
      return bounded(limits, async (signal) => {
        // Resolves to a 2xx response (after retries) or throws what the server said.
        const response = await postModel({ fetchImpl, url, baseURL: o.baseURL, headers, body, retries, secret: o.apiKey, glue, signal });
        if (!stream || !response.body) {
          return JSON.parse(glue.decodeOpenAiResponse(await readCapped(response, maxAnswerBytes, big)));
        }
        return readStream(response.body, glue.OpenAiStream.withMaxBytes(maxAnswerBytes), onText, onReasoning, { maxBytes: maxAnswerBytes, tooLarge: big, signal });
      });
    },
  };
  // The key and headers never reach a session store (the core picks the sensitive headers).
  modelSecrets.set(model, { key: o.apiKey, headers });
  return model;
}

/**
 * Reads a streamed body through `decoder` (a wasm stream decoder bounded to `maxBytes`),
 * reporting text and reasoning; past the bound, `tooLarge()` is thrown (the decoder refused).
 */
export async function readStream(body, decoder, onText, onReasoning, { maxBytes, tooLarge, signal } = {}) {
  const reader = body.getReader();
  // A fetch() that ignores its signal must not keep the read going past an abort.
  const aborted = new Promise((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => {});
  let fed = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      fed += value.length;
      let deltas;
      try {
        deltas = JSON.parse(decoder.push(value));
      } catch (error) {
        // The core's decoder enforces the bound; here it is only named for the user.
        throw fed > maxBytes && tooLarge ? tooLarge() : error;
      }
      for (const delta of deltas) {
        if (delta.type === 'text' && onText) onText(delta.text);
        else if (delta.type === 'reasoning' && onReasoning) onReasoning(delta.text);
      }
    }
    return JSON.parse(decoder.finish());
  } catch (error) {
    // Stop the download: nobody will read the rest.
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    decoder.free();
  }
}
