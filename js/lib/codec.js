// The core's OpenAI-compatible wire codec, for hosts that call a model themselves.
import { describe, fail, isPlainObject, messageOf } from './check.js';
import { wasm } from './wasm.js';

const encoder = new TextEncoder();

function bytesOf(where, body) {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  fail(where, `the body must be a string, Uint8Array or ArrayBuffer, got ${describe(body)}`);
}

function rethrow(where, error) {
  throw new Error(`${where}: ${messageOf(error)}`);
}

/** Turns requests in the core's shape into `/chat/completions` bodies and back. */
export const openaiCodec = {
  /** The JSON body (as an object) of `POST /chat/completions` for `request`. */
  encodeRequest(request, options) {
    const where = 'openaiCodec.encodeRequest';
    if (!isPlainObject(request)) fail(where, `the request must be an object, got ${describe(request)}`);
    if (!isPlainObject(options) || typeof options.model !== 'string') {
      fail(where, `options must be an object with a string "model", got ${describe(options)}`);
    }
    try {
      return JSON.parse(wasm(where).encodeOpenAiRequest(JSON.stringify(request), JSON.stringify(options)));
    } catch (error) {
      rethrow(where, error);
    }
  },

  /** Reads a whole (non-streamed) response body; an API error body throws its message. */
  decodeResponse(body) {
    const where = 'openaiCodec.decodeResponse';
    const bytes = bytesOf(where, body);
    try {
      return JSON.parse(wasm(where).decodeOpenAiResponse(bytes));
    } catch (error) {
      rethrow(where, error);
    }
  },

  /** A decoder for one streamed (server-sent events) response body. */
  createStreamDecoder() {
    const where = 'openaiCodec.createStreamDecoder';
    const decoder = new (wasm(where).OpenAiStream)();
    return {
      /** Feeds a chunk; returns what can be shown now (text, reasoning, tool calls begun). */
      push(chunk) {
        const bytes = bytesOf('streamDecoder.push', chunk);
        try {
          return JSON.parse(decoder.push(bytes));
        } catch (error) {
          rethrow('streamDecoder.push', error);
        }
      },
      /** Ends the body: the response in the core's shape. */
      finish() {
        try {
          return JSON.parse(decoder.finish());
        } catch (error) {
          rethrow('streamDecoder.finish', error);
        } finally {
          decoder.free();
        }
      },
    };
  },
};
