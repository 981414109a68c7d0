//! Mock model tests: intents in both languages, answers read from tool results.

mod answers;
mod explicit;
mod intents;

use serde_json::{json, Value};

use crate::model::{ChatMessage, MockModel, ModelRequest, ModelResponse, ToolCall, ToolDefinition};

fn tool(name: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: format!("{name} tool"),
        input_schema: json!({"type": "object"}),
    }
}

/// The GitHub MCP server's tools as the registry names them, plus two local tools.
fn all_tools() -> Vec<ToolDefinition> {
    [
        "mcp__github__search_repositories",
        "mcp__github__get_file_contents",
        "mcp__github__create_issue",
        "mcp__github__list_issues",
        "mcp__github__get_issue",
        "mcp__github__list_pull_requests",
        "calculator",
        "get_weather",
    ]
    .into_iter()
    .map(tool)
    .collect()
}

fn user(text: &str) -> ChatMessage {
    ChatMessage::User {
        content: text.into(),
    }
}

fn ask(text: &str, tools: Vec<ToolDefinition>) -> ModelResponse {
    MockModel::new().complete(&ModelRequest {
        system: "You are an agent.".into(),
        messages: vec![user(text)],
        tools,
    })
}

/// The conversation after the model called `name` with `args` and the tool answered `result`.
fn after_tool(prompt: &str, name: &str, args: Value, result: &str, is_error: bool) -> ModelRequest {
    ModelRequest {
        system: String::new(),
        messages: vec![
            user(prompt),
            ChatMessage::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: "mock_call_1".into(),
                    name: name.into(),
                    arguments: args,
                }],
            },
            ChatMessage::Tool {
                tool_call_id: "mock_call_1".into(),
                name: name.into(),
                content: result.into(),
                is_error,
            },
        ],
        tools: all_tools(),
    }
}

/// The final text the mock writes from one tool result.
fn answer(prompt: &str, name: &str, args: Value, result: &str) -> String {
    let response = MockModel::new().complete(&after_tool(prompt, name, args, result, false));
    assert!(
        response.tool_calls.is_empty(),
        "must not loop: {response:?}"
    );
    response.text.expect("an answer")
}
