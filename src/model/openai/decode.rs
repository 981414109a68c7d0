//! A non-streaming chat completion (or an API error body) → `ModelResponse`.

use crate::json::quoted;
use serde_json::{Map, Value};

use super::error::{parse_arguments, DecodeError};
use crate::model::{ModelResponse, ToolCall, Usage};

/// Decodes the raw body of a non-streaming chat completion, or the API error it carries.
pub fn decode_response(body: &[u8]) -> Result<ModelResponse, DecodeError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::Malformed("the response body is empty".into()));
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| DecodeError::not_json(&e, body))?;
    decode_response_value(&value)
}

/// Decodes an already-parsed chat completion: `choices[0].message` with `content` and
/// `tool_calls`, and `usage` when the server reported it. An error body becomes
/// [`DecodeError::Api`].
pub fn decode_response_value(value: &Value) -> Result<ModelResponse, DecodeError> {
    if let Some(err) = DecodeError::from_api_body(value) {
        return Err(err);
    }
    let malformed = |what: &str| Err(DecodeError::Malformed(what.to_owned()));
    let choices = match value.get("choices") {
        Some(Value::Array(choices)) => choices,
        Some(_) => return malformed("\"choices\" must be an array"),
        None if value.is_object() => return malformed("response has no \"choices\" array"),
        None => return malformed("response must be a JSON object"),
    };
    let Some(message) = choices.first().and_then(|c| c.get("message")) else {
        return malformed("response has no choices[0].message");
    };
    let Some(message) = message.as_object() else {
        return malformed("choices[0].message must be an object");
    };
    Ok(ModelResponse {
        text: message_text(message)?,
        tool_calls: message_tool_calls(message)?,
        usage: Usage::from_openai(value.get("usage")),
    })
}

/// `content` as a string, an array of text parts, or null (then a `refusal`, if any).
fn message_text(message: &Map<String, Value>) -> Result<Option<String>, DecodeError> {
    let text = match message.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for (i, part) in parts.iter().enumerate() {
                match part.get("text").and_then(Value::as_str) {
                    Some(t) => text.push_str(t),
                    // Non-text parts (audio, images) cannot be represented; skip them.
                    None if part.get("type").is_some_and(|t| t != "text") => {}
                    None => {
                        return Err(DecodeError::Malformed(format!(
                            "choices[0].message.content[{i}] has no \"text\""
                        )))
                    }
                }
            }
            Some(text)
        }
        Some(_) => {
            return Err(DecodeError::Malformed(
                "choices[0].message.content must be a string, an array or null".into(),
            ))
        }
    };
    let refusal = message.get("refusal").and_then(Value::as_str);
    Ok(text.or_else(|| refusal.map(str::to_owned)))
}

fn message_tool_calls(message: &Map<String, Value>) -> Result<Vec<ToolCall>, DecodeError> {
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(calls)) => calls,
        Some(_) => {
            return Err(DecodeError::Malformed(
                "choices[0].message.tool_calls must be an array".into(),
            ))
        }
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let at = format!("choices[0].message.tool_calls[{i}]");
            let malformed = |what: &str| DecodeError::Malformed(format!("{at} {what}"));
            if let Some(kind) = call.get("type").and_then(Value::as_str) {
                if kind != "function" {
                    return Err(malformed(&format!(
                        "has unsupported type {kind}",
                        kind = quoted(kind)
                    )));
                }
            }
            let function = call
                .get("function")
                .and_then(Value::as_object)
                .ok_or_else(|| malformed("has no \"function\" object"))?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| malformed("has no function.name"))?;
            let arguments = parse_arguments(function.get("arguments").unwrap_or(&Value::Null));
            let id = match call.get("id").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => id.to_owned(),
                // Some local servers omit ids; results still need one to refer to.
                _ => format!("call_{i}"),
            };
            Ok(ToolCall {
                id,
                name: name.to_owned(),
                arguments,
            })
        })
        .collect()
}
