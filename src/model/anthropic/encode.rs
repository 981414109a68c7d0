//! `ModelRequest` → the JSON body of `POST /v1/messages`, with prompt-caching breakpoints.

use serde_json::{json, Map, Value};

use crate::model::{ChatMessage, ModelRequest, ToolCall, ToolDefinition};

/// `max_tokens` is required by the Messages API; this is used when the options leave it unset.
pub const DEFAULT_MAX_TOKENS: u64 = 8192;

/// Per-backend settings that go into the request body next to the conversation.
///
/// Build with [`AnthropicOptions::new`] (caching on) or a struct literal.
#[derive(Clone, Debug, PartialEq)]
pub struct AnthropicOptions {
    /// Model name, e.g. `claude-sonnet-4-5`.
    pub model: String,
    /// Ask for a streamed (SSE) answer.
    pub stream: bool,
    /// Cap on generated tokens (required by the API).
    pub max_tokens: u64,
    /// Sampling temperature; omitted when `None`.
    pub temperature: Option<f64>,
    /// Put `cache_control` breakpoints on the last tool and on the newest message.
    pub cache: bool,
    /// `tool_choice` (`{"type": "auto" | "any" | "tool" | "none", ...}`), sent only with tools.
    pub tool_choice: Option<Value>,
    /// Extra top-level fields copied verbatim last (`thinking`, `metadata`, ...).
    pub extra: Map<String, Value>,
}

impl AnthropicOptions {
    /// Options for `model`: not streaming, [`DEFAULT_MAX_TOKENS`], prompt caching on.
    pub fn new(model: impl Into<String>) -> Self {
        AnthropicOptions {
            model: model.into(),
            stream: false,
            max_tokens: DEFAULT_MAX_TOKENS,
            temperature: None,
            cache: true,
            tool_choice: None,
            extra: Map::new(),
        }
    }
}

/// The breakpoint marker; "ephemeral" is the API's one cache type (5 minutes by default).
fn cache_marker() -> Value {
    json!({"type": "ephemeral"})
}

/// The Messages request body for `request`.
///
/// Keys come in the order the provider's cache reads the prompt (tools, system, messages), so
/// the bytes before each breakpoint are a prefix of the next turn's request: the conversation
/// only grows at its end, and `cache_control` is always the last key of the block it marks.
/// Consecutive messages of one role are merged (tool results become `tool_result` blocks of a
/// user turn, as the API requires right after the `tool_use` turn); empty text is left out, as
/// the API refuses empty text blocks.
pub fn encode_request(request: &ModelRequest, options: &AnthropicOptions) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), options.model.clone().into());
    body.insert("max_tokens".into(), options.max_tokens.into());
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request.tools.iter().map(tool_json).collect();
        if options.cache {
            if let Some(Value::Object(last)) = tools.last_mut() {
                last.insert("cache_control".into(), cache_marker());
            }
        }
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &options.tool_choice {
            body.insert("tool_choice".into(), choice.clone());
        }
    }
    if !request.system.is_empty() {
        body.insert("system".into(), request.system.clone().into());
    }
    let mut messages = encode_messages(&request.messages);
    if options.cache {
        let newest_block = messages
            .last_mut()
            .and_then(|m| m.get_mut("content"))
            .and_then(Value::as_array_mut)
            .and_then(|blocks| blocks.last_mut())
            .and_then(Value::as_object_mut);
        if let Some(block) = newest_block {
            block.insert("cache_control".into(), cache_marker());
        }
    }
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), options.stream.into());
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), t.into());
    }
    for (key, value) in &options.extra {
        body.insert(key.clone(), value.clone());
    }
    Value::Object(body)
}

/// One entry of the request's `tools` array: `{"name", "description", "input_schema"}`.
pub fn tool_json(tool: &ToolDefinition) -> Value {
    // The API wants an object schema; MCP guarantees one, a sloppy host may not.
    let schema = match &tool.input_schema {
        schema @ Value::Object(_) => schema.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    json!({"name": tool.name, "description": tool.description, "input_schema": schema})
}

/// The history as alternating `user`/`assistant` messages of content blocks.
fn encode_messages(history: &[ChatMessage]) -> Vec<Value> {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in history {
        let (role, blocks) = match message {
            ChatMessage::User { content } => ("user", text_block(content)),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = content.as_deref().map(text_block).unwrap_or_default();
                blocks.extend(tool_calls.iter().map(tool_use_block));
                ("assistant", blocks)
            }
            ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => {
                let mut block = json!({"type": "tool_result", "tool_use_id": tool_call_id,
                                       "content": content});
                if *is_error {
                    block["is_error"] = true.into();
                }
                ("user", vec![block])
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn text_block(text: &str) -> Vec<Value> {
    if text.is_empty() {
        return Vec::new();
    }
    vec![json!({"type": "text", "text": text})]
}

fn tool_use_block(call: &ToolCall) -> Value {
    // `input` must be an object. Arguments the model sent that were not JSON are kept as text
    // under a named key, so the turn can be replayed without losing what the model said.
    let input = match &call.arguments {
        input @ Value::Object(_) => input.clone(),
        Value::String(text) => json!({"invalid_json": text}),
        other => json!({"invalid_json": other.to_string()}),
    };
    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
}
