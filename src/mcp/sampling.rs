//! Sampling (MCP `sampling/createMessage`): a server asks the client's model for a completion,
//! usually in the middle of its own tool call. These are the conversions between the request's
//! params and the model's request and answer; answering is the host's business (see
//! `McpClient::connect_serving` and `Runtime::sampling_handler`).

use crate::jsonrpc::{codes, ErrorObject};
use crate::model::{ChatMessage, ModelRequest, ModelResponse};
use serde_json::{json, Value};

/// The model request for `sampling/createMessage` params: the system prompt and the messages,
/// text only. Image and audio content, and sampling with tools, are refused with an
/// invalid-params error that says so.
pub fn sampling_request(params: Option<&Value>) -> Result<ModelRequest, ErrorObject> {
    let invalid = |message: String| ErrorObject::new(codes::INVALID_PARAMS, message);
    let params = params.ok_or_else(|| invalid("sampling/createMessage needs params".into()))?;
    if params.get("tools").is_some_and(|t| !t.is_null()) {
        return Err(invalid(
            "agentwire does not offer sampling with tools; ask without \"tools\"".into(),
        ));
    }
    let Some(Value::Array(messages)) = params.get("messages") else {
        return Err(invalid("\"messages\" must be an array".into()));
    };
    let mut chat = Vec::with_capacity(messages.len());
    for (at, message) in messages.iter().enumerate() {
        let text = message_text(message.get("content"))
            .map_err(|problem| invalid(format!("messages[{at}]: {problem}")))?;
        chat.push(match message.get("role").and_then(Value::as_str) {
            Some("user") => ChatMessage::User { content: text },
            Some("assistant") => ChatMessage::Assistant {
                content: Some(text),
                tool_calls: Vec::new(),
            },
            _ => {
                return Err(invalid(format!(
                    "messages[{at}]: \"role\" must be \"user\" or \"assistant\""
                )))
            }
        });
    }
    Ok(ModelRequest {
        system: params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        messages: chat,
        tools: Vec::new(),
    })
}

/// The text of a message's `content`: one text block, or an array of them joined by lines.
fn message_text(content: Option<&Value>) -> Result<String, String> {
    let blocks = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect::<Vec<_>>(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => return Err("\"content\" must be a content block or an array of them".into()),
    };
    let mut texts = Vec::with_capacity(blocks.len());
    for block in blocks {
        match (block.get("type").and_then(Value::as_str), block.get("text")) {
            (Some("text"), Some(Value::String(text))) => texts.push(text.as_str()),
            (Some(kind), _) => {
                return Err(format!(
                    "{kind} content is not supported: agentwire samples text only"
                ))
            }
            (None, _) => return Err("a content block without a \"type\"".into()),
        }
    }
    Ok(texts.join("\n"))
}

/// The `sampling/createMessage` result for the model's answer; `model` names the model.
pub fn sampling_result(response: &ModelResponse, model: &str) -> Value {
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": response.text.clone().unwrap_or_default()},
        "model": model,
        "stopReason": "endTurn",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_messages_become_the_model_request_and_the_answer_a_result() {
        let params = json!({
            "systemPrompt": "Be brief.",
            "maxTokens": 100,
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Name a colour."}},
                {"role": "assistant", "content": [{"type": "text", "text": "Red."}]},
                {"role": "user", "content": [
                    {"type": "text", "text": "Another"}, {"type": "text", "text": "please."}]},
            ],
        });
        let request = sampling_request(Some(&params)).unwrap();
        assert_eq!(request.system, "Be brief.");
        assert!(request.tools.is_empty());
        assert_eq!(
            request.messages,
            [
                ChatMessage::User {
                    content: "Name a colour.".into()
                },
                ChatMessage::Assistant {
                    content: Some("Red.".into()),
                    tool_calls: Vec::new()
                },
                ChatMessage::User {
                    content: "Another\nplease.".into()
                },
            ]
        );
        let result = sampling_result(&ModelResponse::text("Blue."), "gpt-4o-mini");
        assert_eq!(
            result,
            json!({"role": "assistant", "content": {"type": "text", "text": "Blue."},
                "model": "gpt-4o-mini", "stopReason": "endTurn"})
        );
    }

    #[test]
    fn what_cannot_be_sampled_is_refused_with_a_reason() {
        for (params, problem) in [
            (None, "needs params"),
            (
                Some(json!({"messages": "hi"})),
                "\"messages\" must be an array",
            ),
            (
                Some(
                    json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]}),
                ),
                "messages[0]: \"role\" must be",
            ),
            (
                Some(json!({"messages": [{"role": "user",
                    "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}}]})),
                "messages[0]: image content is not supported",
            ),
            (
                Some(json!({"messages": [{"role": "user", "content": "plain"}]})),
                "must be a content block",
            ),
            (
                Some(json!({"messages": [], "tools": [{"name": "t"}]})),
                "does not offer sampling with tools",
            ),
        ] {
            let error = sampling_request(params.as_ref()).unwrap_err();
            assert_eq!(error.code, codes::INVALID_PARAMS);
            assert!(error.message.contains(problem), "{}", error.message);
        }
    }
}
