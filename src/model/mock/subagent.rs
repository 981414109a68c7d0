//! The mock model dispatches subagents: when the `Agent` tool is offered and the user asks for
//! subagents ("use subagents: list issues in vercel/ai; list issues in facebook/react"), it
//! starts one child per task (the text after the first `: `, split at `;` and new lines), all
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
    // The colon that opens the task list is followed by a space (`plugin:agent` has none).
    let opening = [": ", ":\n", "："]
        .iter()
        .filter_map(|c| text.find(c).map(|at| (at, c.len())))
        .min();
    let (head, tasks) = match opening {
        Some((at, len)) => (&text[..at], &text[at + len..]),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChatMessage, MockModel};
    use crate::subagent::{AgentDefinition, AgentSet};

    fn request(text: &str, with_agent: bool) -> ModelRequest {
        let mut set = AgentSet::with_builtin();
        set.insert(AgentDefinition {
            name: "p:reviewer".into(),
            description: "d".into(),
            source: "plugin:p".into(),
            ..AgentDefinition::default()
        });
        ModelRequest {
            system: String::new(),
            messages: vec![ChatMessage::User {
                content: text.into(),
            }],
            tools: with_agent
                .then(|| set.tool_spec(1000).unwrap().definition())
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn one_call_per_task_with_the_named_agent() {
        let response = MockModel::new().complete(&request(
            "use the p:reviewer subagent: list issues in vercel/ai; read README.md of vercel/ai\nlast",
            true,
        ));
        let calls: Vec<(String, String, String)> = response
            .tool_calls
            .iter()
            .map(|c| {
                let arg = |k: &str| c.arguments[k].as_str().unwrap().to_owned();
                (c.id.clone(), arg("prompt"), arg("subagent_type"))
            })
            .collect();
        assert_eq!(
            calls,
            [
                (
                    "mock_call_1_1".into(),
                    "list issues in vercel/ai".into(),
                    "p:reviewer".into()
                ),
                (
                    "mock_call_1_2".into(),
                    "read README.md of vercel/ai".into(),
                    "p:reviewer".into()
                ),
                ("mock_call_1_3".into(), "last".into(), "p:reviewer".into()),
            ]
        );
        let plain =
            MockModel::new().complete(&request("use subagents to list issues in vercel/ai", true));
        assert_eq!(plain.tool_calls.len(), 1);
        assert_eq!(
            plain.tool_calls[0].arguments["subagent_type"],
            GENERAL_PURPOSE
        );
    }

    #[test]
    fn no_dispatch_without_the_tool_or_the_ask() {
        let none =
            MockModel::new().complete(&request("use subagents: list issues in vercel/ai", false));
        assert!(none.tool_calls.iter().all(|c| c.name != AGENT_TOOL));
        let plain = MockModel::new().complete(&request("list issues in vercel/ai", true));
        assert!(plain.tool_calls.iter().all(|c| c.name != AGENT_TOOL));
    }
}
