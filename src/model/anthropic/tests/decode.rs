//! Non-streaming answers and error bodies, shaped as the Messages API reference shows them.

use serde_json::json;

use crate::model::anthropic::decode_response;
use crate::model::{DecodeError, Usage};

/// Fields checked from the reference's response example: `type: "message"`, `content[]` with
/// `text` and `tool_use{id,name,input}` blocks, `stop_reason`, and `usage` with
/// `input_tokens`, `output_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`.
#[test]
fn text_tool_use_and_usage_are_read_and_thinking_is_not_the_answer() {
    let body = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "secret plan", "signature": "abc"},
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_01", "name": "get_issue", "input": {"n": 7}},
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 30,
                  "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2000},
    });
    let answer = decode_response(body.to_string().as_bytes()).unwrap();
    assert_eq!(answer.text.as_deref(), Some("Let me look."));
    assert_eq!(answer.tool_calls.len(), 1);
    assert_eq!(answer.tool_calls[0].id, "toolu_01");
    assert_eq!(answer.tool_calls[0].arguments, json!({"n": 7}));
    assert_eq!(
        answer.usage,
        Some(Usage {
            input_tokens: 2110,
            output_tokens: 30,
            cache_read_tokens: Some(2000),
            cache_write_tokens: Some(100),
        })
    );
}

#[test]
fn max_tokens_and_refusal_are_named_errors() {
    for (reason, says) in [("max_tokens", "max_tokens limit"), ("refusal", "refused")] {
        let body = json!({"type": "message", "content": [{"type": "text", "text": "half"}],
                          "stop_reason": reason});
        let err = decode_response(body.to_string().as_bytes()).unwrap_err();
        assert_eq!(
            err,
            DecodeError::Stopped {
                reason: reason.into()
            }
        );
        assert!(err.to_string().contains(says), "{err}");
    }
}

#[test]
fn error_bodies_and_bad_shapes_name_the_culprit() {
    let overloaded =
        br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let err = decode_response(overloaded).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model API error: Overloaded (type overloaded_error)"
    );
    for (body, says) in [
        (&b""[..], "empty"),
        (b"[1]", "JSON object"),
        (b"{\"content\": 3}", "\"content\" must be an array"),
        (
            b"{\"content\": [{\"text\": \"x\"}]}",
            "content[0] has no \"type\"",
        ),
        (
            b"{\"content\": [{\"type\": \"tool_use\", \"input\": {}}]}",
            "has no \"name\"",
        ),
        (
            b"{\"content\": [{\"type\": \"tool_use\", \"name\": \"t\", \"input\": [1]}]}",
            "not an object",
        ),
        (b"{nope", "not JSON"),
    ] {
        let err = decode_response(body).unwrap_err().to_string();
        assert!(err.contains(says), "{err}");
    }
}
