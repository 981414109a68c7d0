//! The mock model dispatches subagents: when the `Agent` tool is offered and the user asks for
//! subagents ("use subagents: list issues in vercel/ai; list issues in facebook/react"), it
//! starts one child per task (the text after the first colon, split at `;` and new lines), all
//! in one turn, so they run in parallel. A named agent ("use the reviewer agent: …") is used
//! when the catalog has it.

use crate::model::{ModelRequest, ModelResponse, ToolCall, ToolDefinition};
use crate::subagent::{AGENT_TOOL, GENERAL_PURPOSE};
use serde_json::json;

/// Phrases that ask for subagents, lower-cased.
const ASKS: [&str; 7] = [
    "subagent",
    "sub-agent",
    "parallel agents",
    "agents in parallel",
    "the agent tool",
    "子代理",
    "子智能体",
];

/// The `Agent` calls for `text`, or `None` when it asks for no subagent or none is offered.
pub(super) fn dispatch(
    request: &ModelRequest,
    tools: &[ToolDefinition],
    text: &str,
) -> Option<ModelResponse> {
    let tool = tools.iter().find(|t| t.name == AGENT_TOOL)?;
    let lower = text.to_lowercase();
    if !ASKS.iter().any(|ask| lower.contains(ask)) {
        return None;
    }
    let (head, tasks) = match text.find([':', '：']) {
        Some(at) => {
            let colon = text[at..].chars().next().map_or(1, char::len_utf8);
            (&text[..at], &text[at + colon..])
        }
        None => ("", text),
    };
    let names: Vec<&str> = tool.input_schema["properties"]["subagent_type"]["enum"]
        .as_array()
        .map(|names| names.iter().filter_map(|n| n.as_str()).collect())
        .unwrap_or_default();
    let head = head.to_lowercase();
    let agent = names
        .iter()
        .filter(|n| **n != GENERAL_PURPOSE)
        .find(|n| head.contains(&n.to_lowercase()))
        .copied()
        .unwrap_or(GENERAL_PURPOSE);
    let tool_calls: Vec<ToolCall> = tasks
        .split([';', '；', '\n'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(n, task)| ToolCall {
            id: format!("mock_call_{}_{}", request.messages.len(), n + 1),
            name: AGENT_TOOL.to_owned(),
            arguments: json!({
                "description": task.split_whitespace().take(5).collect::<Vec<_>>().join(" "),
                "prompt": task,
                "subagent_type": agent,
            }),
        })
        .collect();
    if tool_calls.is_empty() {
        return None;
    }
    Some(ModelResponse {
        text: None,
        tool_calls,
        usage: None,
    })
}
