// Models: the built-in mock model, any `{ complete(request) }` object, and an
// OpenAI-compatible endpoint over `fetch` that uses the core's wire codec.
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
import { DEFAULT_RETRIES, postModel } from './model-http.js';
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
];

/**
 * A model served by an OpenAI-compatible `POST {baseURL}/chat/completions` endpoint (OpenAI,
 * DashScope, DeepSeek, vLLM, Ollama, ...). Streams by default; text arrives as `text_delta`
 * events while the answer is being written. 408/429/5xx are retried (`retries`, default 3).
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

  return {
    async complete(request, { onText, onReasoning, signal } = {}) {
      const glue = wasm('openaiCompatible().complete');
      const body = glue.encodeOpenAiRequest(JSON.stringify(request), codecOptions);
      // Resolves to a 2xx response (after retries) or throws what the server said.
      const response = await postModel({ fetchImpl, url, baseURL: o.baseURL, headers, body, retries, secret: o.apiKey, glue, signal });
      if (!stream || !response.body) {
        const bytes = new Uint8Array(await response.arrayBuffer());
        return JSON.parse(glue.decodeOpenAiResponse(bytes));
      }
      return readStream(response.body, new glue.OpenAiStream(), onText, onReasoning);
    },
  };
}

/** Reads a streamed body through `decoder` (a wasm stream decoder), reporting text and reasoning. */
export async function readStream(body, decoder, onText, onReasoning) {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const delta of JSON.parse(decoder.push(value))) {
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
