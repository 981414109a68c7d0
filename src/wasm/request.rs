//! The core's model request shape read back from JSON, shared by the wasm modules: the codecs
//! (runtime: OpenAI; on-demand: Anthropic) encode such requests, the mocks module answers them.

use crate::model::{ChatMessage, ModelRequest, ToolDefinition};
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;

/// Reads the core's request shape, `{"system", "messages", "tools"}` (the inverse of
/// [`ModelRequest::to_value`]); errors name the offending field.
pub(crate) fn request_from_value(value: &Value) -> Result<ModelRequest, String> {
    let obj = value.as_object().ok_or("the request must be an object")?;
    let system = match obj.get("system") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err("request \"system\" must be a string".into()),
    };
    let messages = match obj.get("messages") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, m)| message_from_value(m).map_err(|e| format!("messages[{i}]: {e}")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("request \"messages\" must be an array".into()),
    };
    let tools = match obj.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, t)| tool_from_value(t).map_err(|e| format!("tools[{i}]: {e}")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("request \"tools\" must be an array".into()),
    };
    Ok(ModelRequest {
        system,
        messages,
        tools,
    })
}

pub(crate) fn text_field(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(format!("\"{key}\" must be a string")),
    }
}

pub(crate) fn message_from_value(value: &Value) -> Result<ChatMessage, String> {
    ChatMessage::from_value(value)
}

fn tool_from_value(value: &Value) -> Result<ToolDefinition, String> {
    let obj = value.as_object().ok_or("a tool must be an object")?;
    Ok(ToolDefinition {
        name: text_field(obj, "name")?,
        description: match obj.get("description") {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        },
        input_schema: obj
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"})),
    })
}

pub(crate) fn parse_json(text: &str, what: &str) -> Result<Value, JsError> {
    crate::json::parse_str(text).map_err(|e| JsError::new(&format!("{what} is not JSON: {e}")))
}
