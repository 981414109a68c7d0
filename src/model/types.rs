//! The model interface as plain data: what the agent loop asks a model, and what it answers.
//!
//! These types are the "core request/response shape" that every backend speaks: the mock model,
//! the OpenAI-compatible codec, and JS objects with a `complete(request)` method (through
//! [`ModelRequest::to_value`] and [`ModelResponse::from_value`]).

use super::Usage;
use serde_json::{json, Map, Value};

/// Name of the deferred-loading bridge's search tool ([`crate::tool_search`]). Kept with the
/// request shape, not the bridge: the mock model recognises it, and the bridge imports the
/// registry, which imports this module.
pub const TOOL_SEARCH: &str = "tool_search";

/// Name of the deferred-loading bridge's call tool (runs a deferred tool by name).
pub const CALL_TOOL: &str = "call_tool";

/// A tool as the model sees it: name, description and JSON Schema of its input.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDefinition {
    /// Name the model uses to call the tool (already sanitised for model APIs).
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// JSON Schema of the arguments, kept verbatim.
    pub input_schema: Value,
}

/// One tool call requested by the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// Call id chosen by the model (or the backend); tool results refer to it.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments, normally a JSON object. Text from the model that is not JSON is kept as a
    /// JSON string, which the agent loop answers with the parse error (the model may retry).
    pub arguments: Value,
}

/// One message of the conversation history.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatMessage {
    /// Text from the user.
    User {
        /// The user's text.
        content: String,
    },
    /// A model turn: text, tool calls, or both.
    Assistant {
        /// Text the model produced, if any.
        content: Option<String>,
        /// Tool calls the model requested.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, fed back to the model.
    Tool {
        /// The id of the call this answers.
        tool_call_id: String,
        /// Tool name (some backends want it; the mock model reads it).
        name: String,
        /// The result as text.
        content: String,
        /// Whether the tool failed (denied, timed out, errored).
        is_error: bool,
    },
}

/// Everything a model needs for one completion.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModelRequest {
    /// System prompt.
    pub system: String,
    /// Conversation so far, oldest first.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call.
    pub tools: Vec<ToolDefinition>,
}

/// A model's answer: text, tool calls, or both.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModelResponse {
    /// Text, if any.
    pub text: Option<String>,
    /// Tool calls, possibly empty; when empty the text is the final answer.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens the call consumed, when the backend reported them.
    pub usage: Option<Usage>,
}

impl ToolDefinition {
    /// `{"name", "description", "inputSchema"}`.
    pub fn to_value(&self) -> Value {
        json!({"name": self.name, "description": self.description, "inputSchema": self.input_schema})
    }
}

impl ToolCall {
    /// `{"id", "name", "arguments"}`.
    pub fn to_value(&self) -> Value {
        json!({"id": self.id, "name": self.name, "arguments": self.arguments})
    }

    /// Reads `{"id", "name", "arguments"}`; `arguments` may be an object or a JSON string (kept
    /// as that string when it is not JSON, for the agent loop to answer).
    pub fn from_value(value: &Value) -> Result<ToolCall, String> {
        let name = value
            .get("name")
            .and_then(Value::as_str)
            .ok_or("tool call without a string \"name\"")?;
        let id = value.get("id").and_then(Value::as_str).unwrap_or(name);
        let arguments = match value.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
            Some(Value::String(s)) => {
                crate::json::parse_str(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            Some(other) => other.clone(),
        };
        Ok(ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments,
        })
    }
}

impl ToolCall {
    /// Reads an optional `"toolCalls"` array (absent or null is empty).
    pub fn list_from_value(value: Option<&Value>) -> Result<Vec<ToolCall>, String> {
        match value {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(calls)) => calls.iter().map(ToolCall::from_value).collect(),
            Some(_) => Err("\"toolCalls\" must be an array".into()),
        }
    }
}

impl ChatMessage {
    /// `{"role": "user"|"assistant"|"tool", ...}`.
    pub fn to_value(&self) -> Value {
        match self {
            ChatMessage::User { content } => json!({"role": "user", "content": content}),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => json!({
                "role": "assistant",
                "content": content,
                "toolCalls": tool_calls.iter().map(ToolCall::to_value).collect::<Vec<_>>(),
            }),
            ChatMessage::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => json!({
                "role": "tool",
                "toolCallId": tool_call_id,
                "name": name,
                "content": content,
                "isError": is_error,
            }),
        }
    }
}

impl ChatMessage {
    /// Reads [`to_value`](Self::to_value)'s shape; errors name the offending field.
    pub fn from_value(value: &Value) -> Result<ChatMessage, String> {
        let obj = value.as_object().ok_or("a message must be an object")?;
        let text = |key: &str| match obj.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(format!("\"{key}\" must be a string")),
        };
        match obj.get("role").and_then(Value::as_str) {
            Some("user") => Ok(ChatMessage::User {
                content: text("content")?,
            }),
            Some("assistant") => {
                let content = match obj.get("content") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => return Err("\"content\" must be a string or null".into()),
                };
                let tool_calls = ToolCall::list_from_value(obj.get("toolCalls"))?;
                Ok(ChatMessage::Assistant {
                    content,
                    tool_calls,
                })
            }
            Some("tool") => Ok(ChatMessage::Tool {
                tool_call_id: text("toolCallId")?,
                name: text("name")?,
                content: text("content")?,
                is_error: obj.get("isError").and_then(Value::as_bool).unwrap_or(false),
            }),
            Some(other) => Err(format!(
                "unknown role {other}: expected user, assistant or tool",
                other = crate::json::quoted(other)
            )),
            None => Err("\"role\" must be a string".into()),
        }
    }
}

impl ModelRequest {
    /// `{"system", "messages", "tools"}`, the shape JS model objects receive.
    pub fn to_value(&self) -> Value {
        json!({
            "system": self.system,
            "messages": self.messages.iter().map(ChatMessage::to_value).collect::<Vec<_>>(),
            "tools": self.tools.iter().map(ToolDefinition::to_value).collect::<Vec<_>>(),
        })
    }
}

impl ModelResponse {
    /// A response with only text: a final answer.
    pub fn text(text: impl Into<String>) -> Self {
        ModelResponse {
            text: Some(text.into()),
            tool_calls: Vec::new(),
            usage: None,
        }
    }

    /// `{"text", "toolCalls", "usage"?}` (`usage` only when known, camelCase counts).
    pub fn to_value(&self) -> Value {
        let mut v = json!({
            "text": self.text,
            "toolCalls": self.tool_calls.iter().map(ToolCall::to_value).collect::<Vec<_>>(),
        });
        if let Some(usage) = &self.usage {
            v["usage"] = usage.to_js_value();
        }
        v
    }

    /// Reads `{"text"?, "toolCalls"?, "usage"?}`; errors name the offending field.
    pub fn from_value(value: &Value) -> Result<ModelResponse, String> {
        let obj = value
            .as_object()
            .ok_or("model response must be an object")?;
        let text = match obj.get("text") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err("model response \"text\" must be a string".into()),
        };
        let tool_calls = ToolCall::list_from_value(obj.get("toolCalls"))
            .map_err(|e| format!("model response {e}"))?;
        let usage =
            Usage::from_js_value(obj.get("usage")).map_err(|e| format!("model response {e}"))?;
        Ok(ModelResponse {
            text,
            tool_calls,
            usage,
        })
    }
}
