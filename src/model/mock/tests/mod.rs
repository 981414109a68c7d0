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

#[cfg(feature = "skill-set")]
mod skills {
    use crate::ext::{parse_skill_md, tools, RenderContext, Scope, SkillSet};
    use crate::model::{ChatMessage, MockModel, ModelRequest};
    use crate::registry::Registry;

    fn request(messages: Vec<ChatMessage>) -> (ModelRequest, SkillSet) {
        let mut set = SkillSet::new();
        for (name, desc) in [
            ("mcp-builder", "Guide for creating high-quality MCP servers that let models call external services"),
            ("pdf", "Extract text and tables from PDF documents, fill forms"),
        ] {
            let text = format!("---\ndescription: {desc}\n---\n# {name} guide\nSteps.");
            set.insert(parse_skill_md("x", name, &text, Scope::User).unwrap());
        }
        let spec = tools::activate_skill_spec(&set.catalog(8000), &Registry::new()).unwrap();
        let request = ModelRequest {
            system: String::new(),
            messages,
            tools: vec![spec.definition()],
        };
        (request, set)
    }

    fn user(text: &str) -> Vec<ChatMessage> {
        vec![ChatMessage::User {
            content: text.into(),
        }]
    }

    fn activated(text: &str) -> Option<String> {
        let (req, _) = request(user(text));
        let reply = MockModel.complete(&req);
        let call = reply.tool_calls.first()?;
        assert_eq!(call.name, "activate_skill");
        Some(call.arguments["name"].as_str()?.to_owned())
    }

    #[test]
    fn the_mock_activates_a_named_or_plainly_matching_skill_and_reports_it() {
        assert_eq!(
            activated("use the mcp-builder skill").as_deref(),
            Some("mcp-builder")
        );
        assert_eq!(activated("请用 pdf 技能").as_deref(), Some("pdf"));
        assert_eq!(
            activated("help me with creating servers for external services").as_deref(),
            Some("mcp-builder")
        );
        assert_eq!(activated("what is the weather like"), None);
        let (req, set) = request(user("use the pdf skill"));
        let body = tools::activate(&set, "pdf", "", &RenderContext::default()).unwrap();
        let mut messages = req.messages.clone();
        messages.push(ChatMessage::Tool {
            tool_call_id: "c".into(),
            name: "activate_skill".into(),
            content: body,
            is_error: false,
        });
        let (req, _) = request(messages);
        assert_eq!(
            MockModel.complete(&req).text.as_deref(),
            Some("Loaded skill pdf: pdf guide")
        );
    }
}
