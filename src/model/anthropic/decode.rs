//! A non-streaming Messages answer (or an API error body) → `ModelResponse`.

use serde_json::Value;

use crate::json::quoted;
use crate::model::openai::DecodeError;
use crate::model::{ModelResponse, ToolCall, Usage};

/// Decodes the raw body of a non-streaming Messages answer, or the API error it carries.
pub fn decode_response(body: &[u8]) -> Result<ModelResponse, DecodeError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::Malformed("the response body is empty".into()));
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| DecodeError::not_json(&e, body))?;
    decode_response_value(&value)
}

/// Decodes an already-parsed Messages answer: `content` blocks (`text`, `tool_use`; thinking
/// is never part of the answer), `stop_reason` and `usage`. An error body
/// (`{"type": "error", "error": {"type", "message"}}`) becomes [`DecodeError::Api`].
pub fn decode_response_value(value: &Value) -> Result<ModelResponse, DecodeError> {
    if let Some(err) = DecodeError::from_api_body(value) {
        return Err(err);
    }
    let malformed = |what: String| Err(DecodeError::Malformed(what));
    let blocks = match value.get("content") {
        Some(Value::Array(blocks)) => blocks,
        Some(_) => return malformed("\"content\" must be an array".into()),
        None if value.is_object() => return malformed("response has no \"content\" array".into()),
        None => return malformed("response must be a JSON object".into()),
    };
    if let Some(reason) = value.get("stop_reason").and_then(Value::as_str) {
        check_stop_reason(reason)?;
    }
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let Some(t) = block.get("text").and_then(Value::as_str) else {
                    return malformed(format!("content[{i}] has no \"text\" string"));
                };
                text.get_or_insert_with(String::new).push_str(t);
            }
            Some("tool_use") => tool_calls.push(tool_use(i, block)?),
            Some(_) => {} // thinking, redacted_thinking, server tool blocks: not the answer
            None => return malformed(format!("content[{i}] has no \"type\"")),
        }
    }
    Ok(ModelResponse {
        text,
        tool_calls,
        usage: Usage::from_anthropic(value.get("usage")),
    })
}

/// `max_tokens` and `refusal` are named errors: an answer cut mid-way (maybe mid tool call)
/// or refused must not pass for a finished one.
pub(super) fn check_stop_reason(reason: &str) -> Result<(), DecodeError> {
    match reason {
        "max_tokens" | "refusal" => Err(DecodeError::Stopped {
            reason: reason.to_owned(),
        }),
        _ => Ok(()),
    }
}

fn tool_use(i: usize, block: &Value) -> Result<ToolCall, DecodeError> {
    let malformed = |what: &str| DecodeError::Malformed(format!("content[{i}] (tool_use) {what}"));
    let name = block
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| malformed("has no \"name\""))?;
    let id = match block.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_owned(),
        Some(_) | None => format!("toolu_{i}"),
    };
    let arguments = match block.get("input") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(input @ Value::Object(_)) => input.clone(),
        Some(other) => {
            return Err(malformed(&format!(
                "has an \"input\" that is not an object: {}",
                quoted(&crate::model::clip(&other.to_string(), 80))
            )))
        }
    };
    Ok(ToolCall {
        id,
        name: name.to_owned(),
        arguments,
    })
}
