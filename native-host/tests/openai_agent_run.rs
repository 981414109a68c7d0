//! A whole agent run over HTTP: the OpenAI backend (against the replay server) asks for a tool,
//! the runtime calls the in-process mock GitHub MCP server, and the model answers from the result.

#[path = "fixtures/openai/replay.rs"]
mod replay;

use agentwire::agent::{Agent, AgentConfig, Approval, ApprovalRequest, UiEvent};
use agentwire::audit::AuditRecord;
use agentwire::driver::{McpClient, MockGithubTransport, NoLocalTools, RunObserver, Runtime};
use agentwire::mcp::SessionConfig;
use agentwire::policy::Policy;
use agentwire::registry::Registry;
use agentwire_host::model::OpenAiBackend;
use agentwire_host::os::clock::TokioClock;
use futures::future::LocalBoxFuture;
use replay::ReplayServer;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// Remembers everything the runtime shows; refuses (and counts) approvals, which a read-only
/// call must not need.
#[derive(Default)]
struct Recorder {
    events: RefCell<Vec<UiEvent>>,
    deltas: RefCell<Vec<String>>,
    approvals: RefCell<Vec<String>>,
    audit: RefCell<Vec<AuditRecord>>,
}

impl RunObserver for Recorder {
    fn on_event(&self, event: &UiEvent) {
        self.events.borrow_mut().push(event.clone());
    }
    fn on_text_delta(&self, text: &str) {
        self.deltas.borrow_mut().push(text.to_owned());
    }
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        self.approvals.borrow_mut().push(request.name.clone());
        Box::pin(async { Approval::No })
    }
    fn on_audit(&self, record: &AuditRecord) {
        self.audit.borrow_mut().push(record.clone());
    }
}

const PROMPT: &str = "List the open issues in vercel/ai.";
const ANSWER: &str = "vercel/ai has open issues, among them #6241 about MCP pagination.";

#[tokio::test]
async fn model_tool_call_tool_result_answer() {
    let local = tokio::task::LocalSet::new();
    local.run_until(run()).await;
}

async fn run() {
    let server = ReplayServer::start().await;
    let backend = OpenAiBackend::new(server.settings(true)).unwrap();
    let agent = Agent::new(Registry::new(), Policy::new(), AgentConfig::default());
    let runtime = Runtime::new(agent, Rc::new(backend), Rc::new(NoLocalTools), TokioClock);
    let spawn = |future| {
        tokio::task::spawn_local(future);
    };
    let (client, _) = McpClient::connect(
        SessionConfig::default(),
        MockGithubTransport::default(),
        TokioClock,
        spawn,
    )
    .await
    .expect("the mock GitHub server connects");
    let tools = runtime.add_server("github", client).await.unwrap();
    assert!(tools > 0);

    let recorder = Recorder::default();
    let answer = runtime.run(PROMPT, &recorder).await.expect("an answer");
    assert_eq!(answer, ANSWER);
    let requests = server.requests().await;

    // Text streamed out as it came, both turns' worth.
    let streamed = recorder.deltas.borrow().concat();
    assert_eq!(streamed, format!("Let me look that up.{ANSWER}"));
    assert!(recorder.deltas.borrow().len() >= 3);

    let events = recorder.events.borrow();
    let started = events.iter().find_map(|e| match e {
        UiEvent::ToolStart { name, args, .. } => Some((name.clone(), args.clone())),
        _ => None,
    });
    assert_eq!(
        started,
        Some((
            "mcp__github__list_issues".to_owned(),
            json!({"owner": "vercel", "repo": "ai", "state": "open"})
        ))
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, UiEvent::ToolEnd { ok: true, .. })));
    assert!(matches!(
        events.last(),
        Some(UiEvent::Done { steps: 2, .. })
    ));
    // Each step's last chunk reported usage: one step_end each, summed in done.
    let per_step: Vec<(u32, u64, Option<u64>)> = events
        .iter()
        .filter_map(|e| match e {
            UiEvent::StepEnd { step, usage } => {
                Some((*step, usage.input_tokens, usage.cache_read_tokens))
            }
            _ => None,
        })
        .collect();
    assert_eq!(per_step, [(1, 2006, Some(0)), (2, 3214, Some(1920))]);
    let Some(UiEvent::Done {
        usage: Some(total), ..
    }) = events.last()
    else {
        panic!("done without usage: {:?}", events.last());
    };
    assert_eq!(
        (
            total.input_tokens,
            total.output_tokens,
            total.cache_read_tokens
        ),
        (5220, 55, Some(1920))
    );
    assert!(recorder.approvals.borrow().is_empty(), "a read is allowed");
    let audit = recorder.audit.borrow();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].server.as_deref(), Some("github"));

    assert_eq!(requests.len(), 2, "one model call per step");
    let offered: Vec<&str> = requests[0]["body"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"mcp__github__list_issues"), "{offered:?}");

    // The second request carries the model's call and the mock server's real answer to it.
    let messages = requests[1]["body"]["messages"].as_array().unwrap();
    let call = messages
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("the assistant turn");
    assert_eq!(call["tool_calls"][0]["id"], "call_list_1");
    let arguments: Value = serde_json::from_str(
        call["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(arguments["state"], "open");
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("the tool result");
    assert_eq!(result["tool_call_id"], "call_list_1");
    let text = result["content"].as_str().unwrap();
    assert!(text.contains("6241"), "{text}");
    assert!(text.contains("nextCursor"), "{text}");
    assert!(
        !text.contains("onFinish is not called"),
        "a closed issue slipped through the state filter: {text}"
    );
    runtime.close();
}
