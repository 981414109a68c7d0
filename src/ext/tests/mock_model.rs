//! The mock model with a skill set: it activates a named or plainly matching skill, then
//! reports it (here, not in the model's tests: the model does not import `ext` or the registry).

use crate::ext::{parse_skill_md, tools, RenderContext, Scope, SkillSet};
use crate::model::{ChatMessage, MockModel, ModelRequest};
use crate::registry::Registry;

fn request(messages: Vec<ChatMessage>) -> (ModelRequest, SkillSet) {
    let mut set = SkillSet::new();
    for (name, desc) in [
        (
            "mcp-builder",
            "Guide for creating high-quality MCP servers that let models call external services",
        ),
        (
            "pdf",
            "Extract text and tables from PDF documents, fill forms",
        ),
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
