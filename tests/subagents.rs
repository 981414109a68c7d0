//! Subagents end to end, in process: the mock model dispatches children through the `Agent`
//! tool, each child is a nested agent machine on the same model and the same MCP connection to
//! the mock GitHub server, and the runtime labels, gates and stops them. Time is simulated.

mod support;

use agentwire::agent::{Approval, UiEvent, DEFAULT_SYSTEM_PROMPT};
use agentwire::driver::{McpClient, MockGithubTransport, ModelBackend, ModelStream};
use agentwire::mcp::CallOptions;
use agentwire::mock_github::MockGithubServer;
use agentwire::model::openai::{encode_request, OpenAiOptions};
use agentwire::model::{ChatMessage, MockModel, ModelRequest, ModelResponse, ToolCall, Usage};
use agentwire::policy::Policy;
use agentwire::subagent::{AgentDefinition, AgentSet, AGENT_TOOL};
use agentwire::Instant;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use support::async_io::ManualClock;
use support::host::{Host, Observer, RecordingModel, ScriptedModel};
use support::stepper::Stepper;

const EIGHT: &str = "use subagents: list issues in vercel/ai; list issues in vercel/next.js; \
    list issues in facebook/react; list issues in rust-lang/rust; list pull requests in \
    vercel/ai; list pull requests in facebook/react; list pull requests in \
    modelcontextprotocol/servers; list pull requests in rust-lang/rust";

/// A host with `model`, `policy`, the mock GitHub server as `github` and the built-in agent.
fn github_host(model: Rc<dyn ModelBackend>, policy: Policy) -> (Host, McpClient) {
    let mut host = Host::with_policy(policy, model);
    let client = host.add_server("github", MockGithubTransport::default());
    host.runtime.set_agents(AgentSet::with_builtin());
    (host, client)
}

/// Estimated prompt tokens of `request` on the wire (OpenAI encoding, 4 bytes a token).
fn prompt_tokens(request: &ModelRequest) -> usize {
    encode_request(request, &OpenAiOptions::new("m")).to_string().len() / 4
}

/// Titles of what `tool` of the mock server lists for `owner/repo`.
fn titles(host: &mut Host, client: &McpClient, tool: &str, repo: &str) -> Vec<String> {
    let (owner, name) = repo.split_once('/').unwrap();
    let call = client.call_tool(tool, json!({"owner": owner, "repo": name}), CallOptions::default());
    let output = Stepper::new(call).step(&mut host.pool).unwrap().unwrap();
    let items: Value = serde_json::from_str(&output.to_model_text()).unwrap();
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap().to_owned())
        .collect()
}

/// Children's events of kind `kind`, as `(agent, parent call id)`.
fn child_events(observer: &Observer, kind: &str) -> Vec<(String, String)> {
    observer
        .events
        .borrow()
        .iter()
        .filter_map(|e| match e {
            UiEvent::Subagent {
                agent,
                parent_tool_use_id,
                event,
            } if event.kind() == kind => Some((agent.clone(), parent_tool_use_id.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn eight_children_each_calling_mcp_finish_matched_and_the_parent_keeps_only_their_answers() {
    let model = RecordingModel::new(MockModel::new());
    let (mut host, client) = github_host(model.clone(), Policy::new());
    let observer = Observer::default();
    let answer = host.run(EIGHT, &observer).unwrap();

    // The parent: one turn of eight Agent calls, eight results, one answer.
    let history = host.history();
    assert_eq!(history.len(), 1 + 1 + 8 + 1, "{history:#?}");
    let ChatMessage::Assistant { tool_calls, .. } = &history[1] else {
        panic!("{:?}", history[1])
    };
    assert_eq!(tool_calls.len(), 8);
    let transcripts = host.runtime.subagent_transcripts();
    assert_eq!(transcripts.len(), 8);
    for (call, result) in tool_calls.iter().zip(&history[2..10]) {
        assert_eq!(call.name, AGENT_TOOL);
        let prompt = call.arguments["prompt"].as_str().unwrap();
        let repo = prompt.rsplit(' ').next().unwrap();
        let tool = if prompt.contains("pull") { "list_pull_requests" } else { "list_issues" };
        let ChatMessage::Tool { tool_call_id, content, is_error, .. } = result else {
            panic!("{result:?}")
        };
        assert_eq!(tool_call_id, &call.id);
        assert!(!is_error, "{content}");
        let want = titles(&mut host, &client, tool, repo);
        assert!(!want.is_empty(), "{repo} has items to list");
        for title in want.iter().take(20) {
            assert!(content.contains(title.as_str()), "{title:?} of {repo} missing from {content}");
        }
        // The child that answered is the one started by this call, and it called the server.
        let child = transcripts.iter().find(|t| t.parent_tool_use_id == call.id).unwrap();
        assert_eq!(child.agent, "general-purpose");
        assert!(matches!(&child.outcome, Some(Ok(a)) if content.starts_with(a.trim_end())));
        assert!(child.history.iter().any(|m| matches!(m,
            ChatMessage::Tool { name, is_error: false, .. } if *name == format!("mcp__github__{tool}"))));
        assert!(answer.contains(content.lines().next().unwrap()), "the parent quotes each report");
    }

    // All eight ran at once: every child had started before the first one finished.
    let log = observer.events.borrow();
    let first_done = log
        .iter()
        .position(|e| matches!(e, UiEvent::Subagent { event, .. } if event.kind() == "done"))
        .unwrap();
    let started_before = log[..first_done]
        .iter()
        .filter(|e| matches!(e, UiEvent::Subagent { event, .. } if event.kind() == "tool_start"))
        .count();
    assert_eq!(started_before, 8, "each child's MCP call was in flight together");
    drop(log);
    assert_eq!(child_events(&observer, "done").len(), 8);
    assert_eq!(observer.events.borrow().iter().filter(|e| e.is_terminal()).count(), 1);
    assert_eq!(client.in_flight(), 0);
    assert_eq!(host.runtime.running_subagents(), 0);

    // Audit: the children's calls carry their agent and parent call id.
    let audits = observer.take_audits();
    let child_audits: Vec<_> = audits.iter().filter(|r| r.tool.starts_with("mcp__github__")).collect();
    assert_eq!(child_audits.len(), 8);
    for record in child_audits {
        assert_eq!(record.origin, "agent:general-purpose");
        let parent = record.parent_tool_use_id.as_deref().unwrap();
        assert!(tool_calls.iter().any(|c| c.id == parent));
        assert_eq!(record.to_value()["parent_tool_use_id"], parent);
    }

    // The parent's context grew by the answers only: compare its last prompt with the same
    // work done in one context (the children's eight MCP calls made by the parent itself).
    let parent_prompt = model
        .requests
        .borrow()
        .iter()
        .filter(|r| r.system == DEFAULT_SYSTEM_PROMPT)
        .map(prompt_tokens)
        .last()
        .unwrap();
    let mut calls = Vec::new();
    for child in &transcripts {
        for message in &child.history {
            if let ChatMessage::Assistant { tool_calls, .. } = message {
                calls.extend(tool_calls.iter().cloned());
            }
        }
    }
    assert_eq!(calls.len(), 8);
    for (n, call) in calls.iter_mut().enumerate() {
        call.id = format!("one_{n}");
    }
    let single = ScriptedModel::new([
        ModelResponse { text: None, tool_calls: calls, usage: None },
        ModelResponse::text("done"),
    ]);
    let (mut one, _client) = github_host(single.clone(), Policy::new());
    one.run(EIGHT, &Observer::default()).unwrap();
    let one_context = prompt_tokens(single.requests.borrow().last().unwrap());
    eprintln!("parent prompt tokens with 8 subagents: {parent_prompt}; in one context: {one_context}");
    assert!(parent_prompt < one_context, "{parent_prompt} >= {one_context}");
}
