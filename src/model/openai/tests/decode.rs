use serde_json::json;

use crate::model::openai::{decode_response, DecodeError};
use crate::model::{ModelResponse, ToolCall, Usage};

/// A plain text answer as OpenAI returns it.
const OPENAI_TEXT: &str = r#"{
  "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
  "object": "chat.completion",
  "created": 1741569952,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "Hello! How can I help?", "refusal": null, "annotations": []},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
  "service_tier": "default",
  "system_fingerprint": "fp_06737a9306"
}"#;

/// Two parallel tool calls as DashScope's compatible mode returns them.
const DASHSCOPE_TOOLS: &str = r#"{
  "choices": [{
    "message": {
      "content": "",
      "role": "assistant",
      "tool_calls": [
        {"function": {"name": "mcp__github__list_issues", "arguments": "{\"owner\": \"vercel\", \"repo\": \"ai\"}"},
         "index": 0, "id": "call_0b5d0a6f4c1c4e0f8c6a1a", "type": "function"},
        {"function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"},
         "index": 1, "id": "call_9e2b3c7d5f0a4b1e9d8c2f", "type": "function"}
      ]
    },
    "finish_reason": "tool_calls",
    "index": 0,
    "logprobs": null
  }],
  "object": "chat.completion",
  "usage": {"prompt_tokens": 320, "completion_tokens": 46, "total_tokens": 366},
  "created": 1745812345,
  "system_fingerprint": null,
  "model": "qwen-plus",
  "id": "chatcmpl-3f1a2b7c-8d9e-9f0a-b1c2-d3e4f5a6b7c8"
}"#;

#[test]
fn decodes_a_text_answer() {
    let usage = Usage {
        input_tokens: 19,
        output_tokens: 10,
        ..Usage::default()
    };
    assert_eq!(
        decode_response(OPENAI_TEXT.as_bytes()),
        Ok(ModelResponse {
            usage: Some(usage),
            ..ModelResponse::text("Hello! How can I help?")
        })
    );
}

#[test]
fn usage_with_cached_tokens_is_decoded_and_absent_usage_stays_absent() {
    let body = json!({
        "choices": [{"index": 0, "message": {"content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                  "prompt_tokens_details": {"cached_tokens": 1920},
                  "completion_tokens_details": {"reasoning_tokens": 0}},
    });
    let response = decode_response(body.to_string().as_bytes()).unwrap();
    assert_eq!(
        response.usage,
        Some(Usage {
            input_tokens: 2006,
            output_tokens: 300,
            cache_read_tokens: Some(1920),
            cache_write_tokens: None,
        })
    );
    for usage in [json!(null), json!({"total_tokens": 5}), json!("lots")] {
        let body = json!({"choices": [{"message": {"content": "hi"}}], "usage": usage});
        let response = decode_response(body.to_string().as_bytes()).unwrap();
        assert_eq!(response, ModelResponse::text("hi"), "usage {usage}");
    }
    let response = decode_response(&message(json!({"content": "hi"}))).unwrap();
    assert_eq!(response.usage, None);
}

#[test]
fn decodes_parallel_tool_calls() {
    let response = decode_response(DASHSCOPE_TOOLS.as_bytes()).unwrap();
    assert_eq!(response.text.as_deref(), Some(""));
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "call_0b5d0a6f4c1c4e0f8c6a1a".into(),
                name: "mcp__github__list_issues".into(),
                arguments: json!({"owner": "vercel", "repo": "ai"}),
            },
            ToolCall {
                id: "call_9e2b3c7d5f0a4b1e9d8c2f".into(),
                name: "get_weather".into(),
                arguments: json!({"city": "北京"}),
            },
        ]
    );
}

fn message(message: serde_json::Value) -> Vec<u8> {
    json!({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
        .to_string()
        .into_bytes()
}

#[test]
fn lenient_shapes_seen_in_the_wild() {
    // Content as an array of parts; non-text parts are skipped.
    let r = decode_response(&message(json!({"role": "assistant", "content": [
        {"type": "text", "text": "Hel"}, {"type": "audio", "id": "a1"}, {"type": "text", "text": "lo"}]})));
    assert_eq!(r.unwrap().text.as_deref(), Some("Hello"));
    // A refusal stands in for missing content.
    let r = decode_response(&message(
        json!({"role": "assistant", "content": null, "refusal": "I can't help with that."}),
    ));
    assert_eq!(r.unwrap().text.as_deref(), Some("I can't help with that."));
    // Missing id, empty arguments, double-encoded arguments, arguments already an object.
    let r = decode_response(&message(json!({"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "a", "arguments": ""}},
        {"id": "x", "function": {"name": "b", "arguments": "\"{\\\"q\\\":1}\""}},
        {"id": "y", "function": {"name": "c", "arguments": {"k": [1]}}},
    ]})))
    .unwrap();
    assert_eq!(r.text, None);
    let calls: Vec<_> = r
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_0", "a", json!({})),
            ("x", "b", json!({"q": 1})),
            ("y", "c", json!({"k": [1]})),
        ]
    );
}

#[test]
fn api_error_bodies_become_clear_errors() {
    let cases = [
        (
            // OpenAI, HTTP 401.
            r#"{"error": {"message": "Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}"#,
            "model API error: Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys. (type invalid_request_error, code invalid_api_key)",
        ),
        (
            // DashScope compatible mode, HTTP 400.
            r#"{"error": {"code": "model_not_found", "param": null, "message": "The model `qwen-plux` does not exist or you do not have access to it.", "type": "invalid_request_error"}, "id": "chatcmpl-1", "request_id": "5f0c"}"#,
            "model API error: The model `qwen-plux` does not exist or you do not have access to it. (type invalid_request_error, code model_not_found)",
        ),
        (
            // DashScope native shape.
            r#"{"code": "InvalidApiKey", "message": "Invalid API-key provided.", "request_id": "e5d1"}"#,
            "model API error: Invalid API-key provided. (code InvalidApiKey)",
        ),
        (
            r#"{"error": {"message": "Rate limit reached", "code": 429}}"#,
            "model API error: Rate limit reached (code 429)",
        ),
        (r#"{"error": "upstream unavailable"}"#, "model API error: upstream unavailable"),
    ];
    for (body, expected) in cases {
        let err = decode_response(body.as_bytes()).unwrap_err();
        assert!(matches!(err, DecodeError::Api { .. }), "{body}");
        assert_eq!(err.to_string(), expected);
    }
}

#[test]
fn malformed_payloads_name_what_is_wrong() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"".to_vec(), "the response body is empty"),
        (
            b"<html><body>502 Bad Gateway</body></html>".to_vec(),
            "model response is not JSON (expected value at line 1 column 1): \"<html><body>502 Bad Gateway</body></html>\"",
        ),
        (b"[1]".to_vec(), "response must be a JSON object"),
        (b"{\"id\": \"x\"}".to_vec(), "response has no \"choices\" array"),
        (b"{\"choices\": {}}".to_vec(), "\"choices\" must be an array"),
        (b"{\"choices\": []}".to_vec(), "response has no choices[0].message"),
        (b"{\"choices\": [{\"delta\": {}}]}".to_vec(), "response has no choices[0].message"),
        (message(json!("hi")), "choices[0].message must be an object"),
        (message(json!({"content": 5})), "choices[0].message.content must be a string, an array or null"),
        (message(json!({"content": [{"x": 1}]})), "choices[0].message.content[0] has no \"text\""),
        (message(json!({"tool_calls": {}})), "choices[0].message.tool_calls must be an array"),
        (message(json!({"tool_calls": [{"id": "a"}]})), "choices[0].message.tool_calls[0] has no \"function\" object"),
        (
            message(json!({"tool_calls": [{"function": {"name": "ok", "arguments": "{}"}}, {"function": {"arguments": "{}"}}]})),
            "choices[0].message.tool_calls[1] has no function.name",
        ),
        (
            message(json!({"tool_calls": [{"type": "custom", "custom": {"name": "x", "input": ""}}]})),
            "choices[0].message.tool_calls[0] has unsupported type \"custom\"",
        ),
    ];
    for (body, expected) in cases {
        let err = decode_response(&body).unwrap_err().to_string();
        assert!(
            err.ends_with(expected),
            "{}: {err}",
            String::from_utf8_lossy(&body)
        );
    }
}

#[test]
fn tool_arguments_that_are_not_json_are_kept_as_text_for_the_loop_to_answer() {
    let body = message(json!({"tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "mcp__github__get_issue", "arguments": "{\"owner\": \"vercel\", \"issue_number\": 12"}}]}));
    let response = decode_response(&body).expect("the answer decodes");
    assert_eq!(response.tool_calls[0].name, "mcp__github__get_issue");
    assert_eq!(
        response.tool_calls[0].arguments,
        json!("{\"owner\": \"vercel\", \"issue_number\": 12"),
        "the text as the model sent it"
    );
}
