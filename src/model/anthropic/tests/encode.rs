//! The request body: field names from Anthropic's public Messages API reference, and the
//! prompt-caching breakpoints whose prefixes must stay byte-identical between turns.

use serde_json::{json, Value};

use crate::model::anthropic::{encode_request, AnthropicOptions, DEFAULT_MAX_TOKENS};
use crate::model::{ChatMessage, ModelRequest, ToolCall, ToolDefinition};

fn tool(name: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: format!("{name} things"),
        input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
    }
}

fn turn_one() -> ModelRequest {
    ModelRequest {
        system: "You are terse.".into(),
        messages: vec![ChatMessage::User {
            content: "issue 7?".into(),
        }],
        tools: vec![tool("get_issue"), tool("list_issues")],
    }
}

/// Turn one plus the model's tool call and its two results (one failed).
fn turn_two() -> ModelRequest {
    let mut request = turn_one();
    request.messages.push(ChatMessage::Assistant {
        content: Some("Looking.".into()),
        tool_calls: vec![
            ToolCall {
                id: "toolu_1".into(),
                name: "get_issue".into(),
                arguments: json!({"n": 7}),
            },
            ToolCall {
                id: "toolu_2".into(),
                name: "list_issues".into(),
                arguments: json!("{not json"),
            },
        ],
    });
    request.messages.push(ChatMessage::Tool {
        tool_call_id: "toolu_1".into(),
        name: "get_issue".into(),
        content: "Issue 7: crash".into(),
        is_error: false,
    });
    request.messages.push(ChatMessage::Tool {
        tool_call_id: "toolu_2".into(),
        name: "list_issues".into(),
        content: "arguments are not JSON".into(),
        is_error: true,
    });
    request
}

/// Checked against the Messages API reference ("Create a Message"): top-level `model`,
/// `max_tokens`, `system`, `messages[].role/content`, content blocks `text{text}`,
/// `tool_use{id,name,input}`, `tool_result{tool_use_id,content,is_error}`, `tools[].name/
/// description/input_schema`, `tool_choice{type}`, `stream`; and the prompt caching guide's
/// `cache_control: {"type": "ephemeral"}` on a tool definition and a content block.
#[test]
fn request_uses_the_documented_field_names() {
    let options = AnthropicOptions {
        tool_choice: Some(json!({"type": "auto"})),
        stream: true,
        ..AnthropicOptions::new("claude-sonnet-4-5")
    };
    let body = encode_request(&turn_two(), &options);
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": DEFAULT_MAX_TOKENS,
            "tools": [
                {"name": "get_issue", "description": "get_issue things",
                 "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
                {"name": "list_issues", "description": "list_issues things",
                 "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                 "cache_control": ephemeral},
            ],
            "tool_choice": {"type": "auto"},
            "system": "You are terse.",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "issue 7?"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_issue", "input": {"n": 7}},
                    {"type": "tool_use", "id": "toolu_2", "name": "list_issues",
                     "input": {"invalid_json": "{not json"}},
                ]},
                // Both results in the one user turn right after the tool_use turn.
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Issue 7: crash"},
                    {"type": "tool_result", "tool_use_id": "toolu_2",
                     "content": "arguments are not JSON", "is_error": true,
                     "cache_control": ephemeral},
                ]},
            ],
            "stream": true,
        })
    );
}

/// Where each `cache_control` marker starts in `bytes`.
fn breakpoints(bytes: &str) -> Vec<usize> {
    bytes
        .match_indices(",\"cache_control\"")
        .map(|(at, _)| at)
        .collect()
}

#[test]
fn bytes_before_each_breakpoint_are_identical_in_the_next_turn() {
    let options = AnthropicOptions::new("claude-sonnet-4-5");
    let mut third = turn_two();
    third.messages.push(ChatMessage::Assistant {
        content: Some("Issue 7 is a crash.".into()),
        tool_calls: vec![],
    });
    third.messages.push(ChatMessage::User {
        content: "and issue 8?".into(),
    });
    let turns: Vec<String> = [turn_one(), turn_two(), third]
        .iter()
        .map(|r| encode_request(r, &options).to_string())
        .collect();
    for pair in turns.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let marks = breakpoints(before);
        assert_eq!(marks.len(), 2, "a tool and a message breakpoint: {before}");
        for at in marks {
            assert!(
                after.starts_with(&before[..at]),
                "the next turn changed the prefix before byte {at}:\n{before}\n{after}"
            );
        }
    }
}

#[test]
fn caching_off_sends_no_marker_and_an_empty_request_has_no_tools_or_system() {
    let options = AnthropicOptions {
        cache: false,
        ..AnthropicOptions::new("m")
    };
    let text = encode_request(&turn_two(), &options).to_string();
    assert!(!text.contains("cache_control"), "{text}");
    let bare = ModelRequest {
        system: String::new(),
        messages: vec![ChatMessage::User {
            content: "hi".into(),
        }],
        tools: vec![],
    };
    let body = encode_request(&bare, &AnthropicOptions::new("m"));
    assert_eq!(body.get("tools"), None);
    assert_eq!(body.get("system"), None);
    assert_eq!(
        body["messages"][0]["content"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
}

#[test]
fn empty_text_is_left_out_and_same_role_turns_merge() {
    let request = ModelRequest {
        system: String::new(),
        messages: vec![
            ChatMessage::User {
                content: "a".into(),
            },
            ChatMessage::Assistant {
                content: Some(String::new()),
                tool_calls: vec![],
            },
            ChatMessage::User {
                content: "b".into(),
            },
        ],
        tools: vec![ToolDefinition {
            input_schema: Value::Null,
            ..tool("t")
        }],
    };
    let body = encode_request(&request, &AnthropicOptions::new("m"));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{body}");
    assert_eq!(messages[0]["content"].as_array().unwrap().len(), 2);
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
}
