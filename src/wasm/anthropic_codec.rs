//! The Anthropic Messages codec as pure functions for the JS layer (`anthropic()` in js/): the
//! on-demand module `anthropic` (feature `wasm-anthropic`), loaded on a Claude model's first
//! request, so an agent on another model never downloads it.

use super::request::{parse_json, request_from_value, text_field};
use super::stream_codec::wasm_delta_stream;
use crate::json::to_text;
use crate::model::anthropic::{decode_response, encode_request, AnthropicOptions, MessagesStream};
use serde_json::Value;
use wasm_bindgen::prelude::*;

fn options_from_value(value: &Value) -> Result<AnthropicOptions, String> {
    let obj = value.as_object().ok_or("options must be an object")?;
    let mut options = AnthropicOptions::new(text_field(obj, "model")?);
    options.stream = obj.get("stream").and_then(Value::as_bool).unwrap_or(false);
    options.temperature = obj.get("temperature").and_then(Value::as_f64);
    if let Some(max) = obj.get("maxTokens").and_then(Value::as_u64) {
        options.max_tokens = max;
    }
    options.cache = obj.get("cache").and_then(Value::as_bool).unwrap_or(true);
    options.tool_choice = obj.get("toolChoice").filter(|v| !v.is_null()).cloned();
    if let Some(Value::Object(extra)) = obj.get("extra") {
        options.extra = extra.clone();
    }
    Ok(options)
}

/// The body of `POST /v1/messages` for a request in the core's shape. `options_json`:
/// `{"model", "stream"?, "maxTokens"?, "temperature"?, "cache"?, "toolChoice"?, "extra"?}`.
#[wasm_bindgen(js_name = encodeAnthropicRequest)]
pub fn encode_anthropic_request(request_json: &str, options_json: &str) -> Result<String, JsError> {
    let request = request_from_value(&parse_json(request_json, "the request")?)
        .map_err(|e| JsError::new(&e))?;
    let options = options_from_value(&parse_json(options_json, "the options")?)
        .map_err(|e| JsError::new(&e))?;
    Ok(to_text(&encode_request(&request, &options)))
}

/// Decodes a whole Messages body into the core's response shape; an API error body (or
/// `stop_reason` `max_tokens`/`refusal`) throws its message.
#[wasm_bindgen(js_name = decodeAnthropicResponse)]
pub fn decode_anthropic_response(body: &[u8]) -> Result<String, JsError> {
    decode_response(body)
        .map(|response| to_text(&response.to_value()))
        .map_err(|e| JsError::new(&e.to_string()))
}

wasm_delta_stream!(
    /// A streamed Messages answer being decoded from raw body bytes.
    AnthropicStream,
    MessagesStream
);
