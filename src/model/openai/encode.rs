//! `ModelRequest` → the JSON body of `POST /chat/completions`.

use crate::json::to_text;
use serde_json::{json, Map, Value};

use crate::model::{ChatMessage, ModelRequest, ToolCall, ToolDefinition};

/// Per-backend settings that go into the request body next to the conversation.
///
/// Build with [`OpenAiOptions::new`] or a struct literal ending in `..Default::default()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenAiOptions {
    /// Model name, e.g. `gpt-4o-mini` or `qwen-plus`.
    pub model: String,
    /// Ask for a streamed (SSE) answer; the body then also asks for usage in the last chunk
    /// (`stream_options.include_usage`).
    pub stream: bool,
    /// Sampling temperature; omitted when `None` (the server's default applies).
    pub temperature: Option<f64>,
    /// Cap on generated tokens (`max_tokens`); omitted when `None`.
    pub max_tokens: Option<u64>,
    /// Extra top-level fields copied verbatim last, so they can add vendor options
    /// (`enable_thinking`, `stream_options`, `tool_choice`, ...) or override the ones above.
    pub extra: Map<String, Value>,
}

impl OpenAiOptions {
    /// Options for `model` with everything else at its default (not streaming).
    pub fn new(model: impl Into<String>) -> Self {
        OpenAiOptions {
            model: model.into(),
            ..Self::default()
        }
    }
}

/// The chat completions request body for `request`.
///
/// The system prompt comes first (omitted when empty). A tool result flagged `is_error` is
/// prefixed with `[tool error]`, because the format has no error flag and the model should not
/// mistake a failure message for data. `tools` is omitted when there are none, as some servers
/// reject an empty list.
pub fn encode_request(request: &ModelRequest, options: &OpenAiOptions) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    messages.extend(request.messages.iter().map(encode_message));

    let mut body = Map::new();
    body.insert("model".into(), options.model.clone().into());
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(tool_json).collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    body.insert("stream".into(), options.stream.into());
    if options.stream {
        // Without it a streamed answer carries no token counts; `extra` may still override it.
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(m) = options.max_tokens {
        body.insert("max_tokens".into(), m.into());
    }
    for (key, value) in &options.extra {
        body.insert(key.clone(), value.clone());
    }
    Value::Object(body)
}

fn encode_message(message: &ChatMessage) -> Value {
    match message {
        ChatMessage::User { content } => json!({"role": "user", "content": content}),
        ChatMessage::Assistant {
            content,
            tool_calls,
        } => {
            let mut m = json!({"role": "assistant", "content": content});
            if tool_calls.is_empty() {
                // Servers reject an assistant turn that has neither content nor tool calls.
                if content.is_none() {
                    m["content"] = "".into();
                }
            } else {
                m["tool_calls"] = tool_calls.iter().map(encode_tool_call).collect();
            }
            m
        }
        ChatMessage::Tool {
            tool_call_id,
            content,
            is_error,
            ..
        } => {
            let content = if *is_error {
                format!("[tool error] {content}")
            } else {
                content.clone()
            };
            json!({"role": "tool", "tool_call_id": tool_call_id, "content": content})
        }
    }
}

fn encode_tool_call(call: &ToolCall) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        // The format wants the arguments as a JSON *string*.
        "function": {"name": call.name, "arguments": to_text(&call.arguments)},
    })
}

/// One entry of the request's `tools` array: `{"type":"function","function":{…}}`. Tool
/// search returns exactly these bytes for a deferred tool.
pub fn tool_json(tool: &ToolDefinition) -> Value {
    // Function parameters must be an object schema; MCP guarantees one, a sloppy host may not.
    let parameters = match &tool.input_schema {
        schema @ Value::Object(_) => schema.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    json!({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": parameters},
    })
}
