use serde_json::json;

use crate::model::openai::{decode_response_value, encode_request, OpenAiOptions};
use crate::model::{ChatMessage, ModelRequest, ToolCall, ToolDefinition};

fn conversation() -> ModelRequest {
    ModelRequest {
        system: "You are helpful.".into(),
        messages: vec![
            ChatMessage::User {
                content: "查看 vercel/ai 的 issues 和天气".into(),
            },
            ChatMessage::Assistant {
                content: Some("Let me look.".into()),
                tool_calls: vec![
                    ToolCall {
                        id: "call_1".into(),
                        name: "mcp__github__list_issues".into(),
                        arguments: json!({"owner": "vercel", "repo": "ai"}),
                    },
                    ToolCall {
                        id: "call_2".into(),
                        name: "get_weather".into(),
                        arguments: json!({"city": "北京"}),
                    },
                ],
            },
            ChatMessage::Tool {
                tool_call_id: "call_1".into(),
                name: "mcp__github__list_issues".into(),
                content: "[]".into(),
                is_error: false,
            },
            ChatMessage::Tool {
                tool_call_id: "call_2".into(),
                name: "get_weather".into(),
                content: "timed out after 30s".into(),
                is_error: true,
            },
            ChatMessage::Assistant {
                content: Some("No issues; weather unavailable.".into()),
                tool_calls: vec![],
            },
        ],
        tools: vec![ToolDefinition {
            name: "get_weather".into(),
            description: "Weather for a city".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        }],
    }
}

#[test]
fn encodes_a_full_conversation_in_the_wire_shape() {
    let body = encode_request(&conversation(), &OpenAiOptions::new("qwen-plus"));
    assert_eq!(
        body,
        json!({
            "model": "qwen-plus",
            "stream": false,
            "messages": [
                {"role": "system", "content": "You are helpful."},
                {"role": "user", "content": "查看 vercel/ai 的 issues 和天气"},
                {"role": "assistant", "content": "Let me look.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {
                        "name": "mcp__github__list_issues",
                        "arguments": "{\"owner\":\"vercel\",\"repo\":\"ai\"}"}},
                    {"id": "call_2", "type": "function", "function": {
                        "name": "get_weather", "arguments": "{\"city\":\"北京\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "[]"},
                {"role": "tool", "tool_call_id": "call_2", "content": "[tool error] timed out after 30s"},
                {"role": "assistant", "content": "No issues; weather unavailable."},
            ],
            "tools": [{"type": "function", "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            }}],
        })
    );
}

#[test]
fn options_and_edge_cases() {
    let request = ModelRequest {
        system: String::new(),
        messages: vec![
            ChatMessage::User {
                content: "hi".into(),
            },
            ChatMessage::Assistant {
                content: None,
                tool_calls: vec![],
            },
        ],
        tools: vec![],
    };
    let mut extra = serde_json::Map::new();
    extra.insert("enable_thinking".into(), json!(false));
    extra.insert("temperature".into(), json!(0.0)); // extra wins over the typed field
    let options = OpenAiOptions {
        model: "m".into(),
        stream: true,
        temperature: Some(0.7),
        max_tokens: Some(256),
        extra,
    };
    let body = encode_request(&request, &options);
    assert_eq!(
        body,
        json!({
            "model": "m",
            "stream": true,
            "stream_options": {"include_usage": true},
            "temperature": 0.0,
            "max_tokens": 256,
            "enable_thinking": false,
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": ""},
            ],
        }),
        "no system message, no tools key, empty assistant turn gets \"\"; a stream asks for usage"
    );
    // `extra` can change what is asked of a server that does not know `stream_options`.
    let mut options = options;
    options
        .extra
        .insert("stream_options".into(), json!({"include_usage": false}));
    let body = encode_request(&request, &options);
    assert_eq!(body["stream_options"], json!({"include_usage": false}));
}

#[test]
fn an_assistant_turn_with_only_tool_calls_has_null_content() {
    let request = ModelRequest {
        messages: vec![ChatMessage::Assistant {
            content: None,
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: "t".into(),
                arguments: json!({}),
            }],
        }],
        tools: vec![ToolDefinition {
            name: "t".into(),
            description: String::new(),
            input_schema: serde_json::Value::Null,
        }],
        ..Default::default()
    };
    let body = encode_request(&request, &OpenAiOptions::new("m"));
    assert_eq!(body["messages"][0]["content"], serde_json::Value::Null);
    assert_eq!(
        body["messages"][0]["tool_calls"][0]["function"]["arguments"],
        "{}"
    );
    assert_eq!(
        body["tools"][0]["function"]["parameters"],
        json!({"type": "object", "properties": {}}),
        "a non-object schema is replaced by an empty object schema"
    );
}

#[test]
fn encoded_tool_calls_decode_back_to_the_same_calls() {
    let request = conversation();
    let body = encode_request(&request, &OpenAiOptions::new("m"));
    let echoed = json!({"choices": [{"index": 0, "message": body["messages"][2]}]});
    let decoded = decode_response_value(&echoed).unwrap();
    let ChatMessage::Assistant {
        content,
        tool_calls,
    } = &request.messages[1]
    else {
        unreachable!("fixture")
    };
    assert_eq!(&decoded.text, content);
    assert_eq!(&decoded.tool_calls, tool_calls);
}
