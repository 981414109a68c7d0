//! The OpenAI-compatible codec as pure functions for the JS layer.

use super::request::{parse_json, request_from_value, text_field};
use super::stream_codec::wasm_delta_stream;
use crate::json::to_text;
use crate::model::{decode_response, encode_request, ChatCompletionStream, OpenAiOptions};
use serde_json::Value;
use wasm_bindgen::prelude::*;

fn options_from_value(value: &Value) -> Result<OpenAiOptions, String> {
    let obj = value.as_object().ok_or("options must be an object")?;
    let mut options = OpenAiOptions::new(text_field(obj, "model")?);
    options.stream = obj.get("stream").and_then(Value::as_bool).unwrap_or(false);
    options.temperature = obj.get("temperature").and_then(Value::as_f64);
    options.max_tokens = obj.get("maxTokens").and_then(Value::as_u64);
    if let Some(Value::Object(extra)) = obj.get("extra") {
        options.extra = extra.clone();
    }
    Ok(options)
}

/// The body of `POST /chat/completions` for a request in the core's shape.
/// `options_json`: `{"model", "stream"?, "temperature"?, "maxTokens"?, "extra"?}`.
#[wasm_bindgen(js_name = encodeOpenAiRequest)]
pub fn encode_openai_request(request_json: &str, options_json: &str) -> Result<String, JsError> {
    let request = request_from_value(&parse_json(request_json, "the request")?)
        .map_err(|e| JsError::new(&e))?;
    let options = options_from_value(&parse_json(options_json, "the options")?)
        .map_err(|e| JsError::new(&e))?;
    Ok(to_text(&encode_request(&request, &options)))
}

/// Decodes a whole (non-streamed) chat completions body into the core's response shape,
/// `{"text", "toolCalls"}`; an API error body throws its message.
#[wasm_bindgen(js_name = decodeOpenAiResponse)]
pub fn decode_openai_response(body: &[u8]) -> Result<String, JsError> {
    decode_response(body)
        .map(|response| to_text(&response.to_value()))
        .map_err(|e| JsError::new(&e.to_string()))
}

wasm_delta_stream!(
    /// A streamed chat completion being decoded from raw body bytes.
    OpenAiStream,
    ChatCompletionStream
);
