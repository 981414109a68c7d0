//! Context accounting and the pure compaction steps.

use super::compact::*;
use super::*;
use crate::model::{ToolCall, ToolDefinition};
use serde_json::json;

fn tool(id: &str, name: &str, content: &str) -> ChatMessage {
    ChatMessage::Tool {
        tool_call_id: id.into(),
        name: name.into(),
        content: content.into(),
        is_error: false,
    }
}

fn step(id: &str, name: &str) -> ChatMessage {
    ChatMessage::Assistant {
        content: None,
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: json!({}),
        }],
    }
}

fn user(text: &str) -> ChatMessage {
    ChatMessage::User {
        content: text.into(),
    }
}

#[test]
fn windows_of_common_models() {
    assert_eq!(window_for_model("gpt-4o-mini"), Some(128_000));
    assert_eq!(window_for_model("openai/gpt-4.1"), Some(1_047_576));
    assert_eq!(window_for_model("gpt-4"), Some(8_192));
    assert_eq!(window_for_model("claude-sonnet-4-5"), Some(200_000));
    assert_eq!(window_for_model("Qwen3-32B"), Some(32_768));
    assert_eq!(window_for_model("mock"), None);
}

#[test]
fn context_length_errors_are_recognised_and_their_window_read() {
    let openai = "400: This model's maximum context length is 8192 tokens. However, your messages \
                  resulted in 9000 tokens (context_length_exceeded)";
    assert!(is_context_length_error(openai));
    assert_eq!(window_from_error(openai), Some(8192));
    assert!(is_context_length_error(
        "prompt is too long: 210000 tokens > 200000 maximum"
    ));
    assert!(!is_context_length_error("401 unauthorized"));
    assert_eq!(window_from_error("context window exceeded"), None);
    // Short numbers, and one too long for a u64, are passed over; the number may end the text.
    assert_eq!(
        window_from_error("Context: 12 of 99999999999999999999999 or 20 then 4096"),
        Some(4096)
    );
    assert_eq!(window_from_error("limit 8192, context 42"), None);
}

#[test]
fn estimates_are_refined_by_reported_usage() {
    let mut e = Estimator::default();
    assert_eq!(e.tokens(350), 100);
    e.calibrate(1000, 10);
    assert!(!e.is_calibrated(), "tiny requests do not calibrate");
    e.calibrate(4000, 1000);
    assert!(e.is_calibrated());
    assert_eq!(e.tokens(400), 100);
}

#[test]
fn report_splits_the_request() {
    let request = ModelRequest {
        system: "s".repeat(35),
        messages: vec![user(&"u".repeat(30))],
        tools: vec![ToolDefinition {
            name: "activate_skill".into(),
            description: "d".repeat(100),
            input_schema: json!({}),
        }],
    };
    let config = ContextConfig {
        window: Some(1000),
        ..ContextConfig::default()
    };
    let report = ContextReport::new(RequestBytes::of(&request), &Estimator::default(), &config);
    assert_eq!(report.system, 10);
    assert_eq!(report.history, 20);
    assert_eq!(report.tools, 0);
    assert_eq!(report.skills, 34);
    assert_eq!(report.total, 64);
    assert_eq!(report.free(), Some(936));
    assert_eq!(report.compact_at, Some(800));
    assert_eq!(report.to_value()["free"], 936);
}

#[test]
fn stubs_keep_the_newest_results_calls_and_skills() {
    let big = "x".repeat(500);
    let history = vec![
        user("go"),
        step("a", "read"),
        tool("a", "read", &big),
        step("s", "activate_skill"),
        tool("s", "activate_skill", &big),
        step("b", "read"),
        tool("b", "read", &big),
        step("c", "read"),
        tool("c", "read", &big),
    ];
    let out = stub_tool_results(&history, 1).unwrap();
    assert_eq!(out.len(), history.len());
    let ChatMessage::Tool { content, .. } = &out[2] else {
        panic!()
    };
    assert_eq!(content, &stub_text("read", "a", 500));
    assert_eq!(out[4], history[4], "skill text stays");
    assert_ne!(out[6], history[6]);
    assert_eq!(out[8], history[8], "newest result stays");
    assert_eq!(out[1], history[1], "the call stays");
    // Stubbing again changes nothing.
    assert_eq!(stub_tool_results(&out, 1), None);
}

#[test]
fn summary_request_appends_to_the_current_request() {
    let base = ModelRequest {
        system: "sys".into(),
        messages: vec![user("go"), step("a", "read"), tool("a", "read", "r")],
        tools: vec![],
    };
    let request = summary_request(&base, Some("the parser"));
    assert_eq!(request.messages[..3], base.messages[..]);
    let ChatMessage::User { content } = &request.messages[3] else {
        panic!()
    };
    assert!(content.starts_with(SUMMARY_INSTRUCTION));
    assert!(content.ends_with("Focus the summary on: the parser"));
}

#[test]
fn compacted_history_keeps_the_latest_request_step_and_skills() {
    let history = vec![
        user("first"),
        step("s", "activate_skill"),
        tool("s", "activate_skill", "SKILL BODY"),
        ChatMessage::Assistant {
            content: Some("ok".into()),
            tool_calls: vec![],
        },
        user("second request"),
        step("a", "read"),
        tool("a", "read", "old"),
        step("b", "read"),
        tool("b", "read", "new"),
    ];
    let out = compacted_history(&history, "SUMMARY").unwrap();
    assert_eq!(out.len(), 3);
    let ChatMessage::User { content } = &out[0] else {
        panic!()
    };
    assert!(content.starts_with(SUMMARY_HEADING));
    assert!(content.contains("SUMMARY"));
    assert!(content.contains("SKILL BODY"));
    assert!(content.ends_with("second request"));
    assert_eq!(out[1..], history[7..]);
    // Compacting a compacted history does not nest the latest request.
    let again = compacted_history(&out, "S2").unwrap();
    let ChatMessage::User { content } = &again[0] else {
        panic!()
    };
    assert!(content.ends_with("\nsecond request"));
    assert_eq!(content.matches("latest request").count(), 1);
    assert_eq!(compacted_history(&[], "x"), None);
}
