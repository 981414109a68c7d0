//! Pure functions for the JS layer: the OpenAI-compatible codec, the mock model, and the mock
//! GitHub server as a line-in, lines-out object (so JS can use it as an ordinary transport).

use crate::mock_github::MockGithubServer;
use crate::model::{
    decode_response, encode_request, ChatCompletionStream, ChatMessage, MockModel, ModelRequest,
    OpenAiOptions, StreamDelta, ToolCall, ToolDefinition,
};
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

fn text_field(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(format!("\"{key}\" must be a string")),
    }
}

fn message_from_value(value: &Value) -> Result<ChatMessage, String> {
    let obj = value.as_object().ok_or("a message must be an object")?;
    match obj.get("role").and_then(Value::as_str) {
        Some("user") => Ok(ChatMessage::User {
            content: text_field(obj, "content")?,
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
            tool_call_id: text_field(obj, "toolCallId")?,
            name: text_field(obj, "name")?,
            content: text_field(obj, "content")?,
            is_error: obj.get("isError").and_then(Value::as_bool).unwrap_or(false),
        }),
        Some(other) => Err(format!(
            "unknown role {other:?}: expected user, assistant or tool"
        )),
        None => Err("\"role\" must be a string".into()),
    }
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

fn parse_json(text: &str, what: &str) -> Result<Value, JsError> {
    serde_json::from_str(text).map_err(|e| JsError::new(&format!("{what} is not JSON: {e}")))
}

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
    Ok(encode_request(&request, &options).to_string())
}

/// Decodes a whole (non-streamed) chat completions body into the core's response shape,
/// `{"text", "toolCalls"}`; an API error body throws its message.
#[wasm_bindgen(js_name = decodeOpenAiResponse)]
pub fn decode_openai_response(body: &[u8]) -> Result<String, JsError> {
    decode_response(body)
        .map(|response| response.to_value().to_string())
        .map_err(|e| JsError::new(&e.to_string()))
}

fn delta_value(delta: StreamDelta) -> Value {
    match delta {
        StreamDelta::Text(text) => json!({"type": "text", "text": text}),
        StreamDelta::Reasoning(text) => json!({"type": "reasoning", "text": text}),
        StreamDelta::ToolCallStarted { index, id, name } => {
            json!({"type": "tool_call", "index": index, "id": id, "name": name})
        }
    }
}

/// A streamed chat completion being decoded from raw body bytes.
#[wasm_bindgen]
pub struct OpenAiStream {
    inner: Option<ChatCompletionStream>,
}

#[wasm_bindgen]
impl OpenAiStream {
    /// A decoder for one response body.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> OpenAiStream {
        OpenAiStream {
            inner: Some(ChatCompletionStream::new()),
        }
    }

    /// Feeds a chunk; returns a JSON array of what can be shown now: `{"type": "text",
    /// "text"}`, `{"type": "reasoning", "text"}`, `{"type": "tool_call", "index", "id", "name"}`.
    pub fn push(&mut self, bytes: &[u8]) -> Result<String, JsError> {
        let stream = self
            .inner
            .as_mut()
            .ok_or_else(|| JsError::new("the stream was already finished"))?;
        let deltas = stream
            .push(bytes)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Value::Array(deltas.into_iter().map(delta_value).collect()).to_string())
    }

    /// Ends the body: the response in the core's shape, or why there is none.
    pub fn finish(&mut self) -> Result<String, JsError> {
        let stream = self
            .inner
            .take()
            .ok_or_else(|| JsError::new("the stream was already finished"))?;
        stream
            .finish()
            .map(|response| response.to_value().to_string())
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// The mock model's answer to a request in the core's shape.
#[wasm_bindgen(js_name = mockModelComplete)]
pub fn mock_model_complete(request_json: &str) -> Result<String, JsError> {
    let request = request_from_value(&parse_json(request_json, "the request")?)
        .map_err(|e| JsError::new(&e))?;
    Ok(MockModel::new().complete(&request).to_value().to_string())
}

/// The mock GitHub MCP server, one line in, reply lines out.
#[wasm_bindgen]
pub struct MockGithubBridge {
    server: MockGithubServer,
}

#[wasm_bindgen]
impl MockGithubBridge {
    /// A fresh server over the canned data.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> MockGithubBridge {
        MockGithubBridge {
            server: MockGithubServer::new(),
        }
    }

    /// Handles one message (a line, with or without its newline); returns the reply lines,
    /// each ending in a newline (empty for notifications).
    pub fn handle(&mut self, line: &str) -> String {
        let mut bytes = line.as_bytes().to_vec();
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        String::from_utf8_lossy(&self.server.handle_bytes(&bytes)).into_owned()
    }
}
