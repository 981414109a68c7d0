//! Subagents end to end, in process: the mock model dispatches children through the `Agent`
//! tool, each child is a nested agent machine on the same model and the same MCP connection to
//! the mock GitHub server, and the runtime labels, gates and stops them. Time is simulated.

mod support;

use agentwire::agent::{Approval, UiEvent, DEFAULT_SYSTEM_PROMPT};
use agentwire::driver::Clock;
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
use std::cell::RefCell;
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

/// Every child transcript `runtime` files from now on, collected by a sink that gives no
/// reference (results then name each child by its index).
fn filed<C: agentwire::driver::Clock>(
    runtime: &agentwire::driver::Runtime<C>,
) -> Rc<RefCell<Vec<agentwire::subagent::ChildTranscript>>> {
    let kept: Rc<RefCell<Vec<agentwire::subagent::ChildTranscript>>> = Rc::default();
    let sink = Rc::clone(&kept);
    runtime.set_child_transcript_sink(Some(Rc::new(move |transcript| {
        sink.borrow_mut().push(transcript.clone());
        None
    })));
    kept
}

/// The transcripts `kept` holds, in the order their children started.
fn in_start_order(
    kept: &RefCell<Vec<agentwire::subagent::ChildTranscript>>,
) -> Vec<agentwire::subagent::ChildTranscript> {
    let mut all = kept.borrow().clone();
    all.sort_by_key(|t| t.index);
    all
}

/// Estimated prompt tokens of `request` on the wire (OpenAI encoding, 4 bytes a token).
fn prompt_tokens(request: &ModelRequest) -> usize {
    encode_request(request, &OpenAiOptions::new("m"))
        .to_string()
        .len()
        / 4
}

/// Titles of what `tool` of the mock server lists for `owner/repo`.
fn titles(host: &mut Host, client: &McpClient, tool: &str, repo: &str) -> Vec<String> {
    let (owner, name) = repo.split_once('/').unwrap();
    let call = client.call_tool(
        tool,
        json!({"owner": owner, "repo": name}),
        CallOptions::default(),
    );
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
    let kept = filed(&host.runtime);
    let observer = Observer::default();
    let answer = host.run(EIGHT, &observer).unwrap();

    // The parent: one turn of eight Agent calls, eight results, one answer.
    let history = host.history();
    assert_eq!(history.len(), 1 + 1 + 8 + 1, "{history:#?}");
    let ChatMessage::Assistant { tool_calls, .. } = &history[1] else {
        panic!("{:?}", history[1])
    };
    assert_eq!(tool_calls.len(), 8);
    let transcripts = in_start_order(&kept);
    assert_eq!(transcripts.len(), 8);
    for (call, result) in tool_calls.iter().zip(&history[2..10]) {
        assert_eq!(call.name, AGENT_TOOL);
        let prompt = call.arguments["prompt"].as_str().unwrap();
        let repo = prompt.rsplit(' ').next().unwrap();
        let tool = if prompt.contains("pull") {
            "list_pull_requests"
        } else {
            "list_issues"
        };
        let ChatMessage::Tool {
            tool_call_id,
            content,
            is_error,
            ..
        } = result
        else {
            panic!("{result:?}")
        };
        assert_eq!(tool_call_id, &call.id);
        assert!(!is_error, "{content}");
        let want = titles(&mut host, &client, tool, repo);
        assert!(!want.is_empty(), "{repo} has items to list");
        for title in want.iter().take(20) {
            assert!(
                content.contains(title.as_str()),
                "{title:?} of {repo} missing from {content}"
            );
        }
        // The child that answered is the one started by this call, and it called the server.
        let child = transcripts
            .iter()
            .find(|t| t.parent_tool_use_id == call.id)
            .unwrap();
        assert_eq!(child.agent, "general-purpose");
        assert!(matches!(&child.outcome, Some(Ok(a)) if content.starts_with(a.trim_end())));
        assert!(child.history.iter().any(|m| matches!(m,
            ChatMessage::Tool { name, is_error: false, .. } if *name == format!("mcp__github__{tool}"))));
        assert!(
            answer.contains(content.lines().next().unwrap()),
            "the parent quotes each report"
        );
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
    assert_eq!(
        started_before, 8,
        "each child's MCP call was in flight together"
    );
    drop(log);
    assert_eq!(child_events(&observer, "done").len(), 8);
    assert_eq!(
        observer
            .events
            .borrow()
            .iter()
            .filter(|e| e.is_terminal())
            .count(),
        1
    );
    assert_eq!(client.in_flight(), 0);
    assert_eq!(host.runtime.running_subagents(), 0);

    // Audit: the children's calls carry their agent and parent call id.
    let audits = observer.take_audits();
    let child_audits: Vec<_> = audits
        .iter()
        .filter(|r| r.tool.starts_with("mcp__github__"))
        .collect();
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
        .rev()
        .find(|r| r.system == DEFAULT_SYSTEM_PROMPT)
        .map(prompt_tokens)
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
        ModelResponse {
            text: None,
            tool_calls: calls,
            usage: None,
        },
        ModelResponse::text("done"),
    ]);
    let (mut one, _client) = github_host(single.clone(), Policy::new());
    one.run(EIGHT, &Observer::default()).unwrap();
    let one_context = prompt_tokens(single.requests.borrow().last().unwrap());
    eprintln!(
        "parent prompt tokens with 8 subagents: {parent_prompt}; in one context: {one_context}"
    );
    assert!(
        parent_prompt < one_context,
        "{parent_prompt} >= {one_context}"
    );
}

/// A deterministic generator for the chaos test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The mock model, answering after a delay of the manual clock.
struct SlowModel {
    clock: ManualClock,
    delays: RefCell<Rng>,
}

impl ModelBackend for SlowModel {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        let delay = 1 + self.delays.borrow_mut().below(8);
        let until = Instant::from_millis(self.clock.now().as_millis() + delay);
        Box::pin(async move {
            agentwire::driver::Clock::sleep_until(&self.clock, until).await;
            Ok(MockModel::new().complete(&request))
        })
    }
}

/// The mock GitHub server in process, each reply held back for a few milliseconds.
struct SlowGithub {
    server: RefCell<MockGithubServer>,
    queue: RefCell<VecDeque<(u64, Vec<u8>)>>,
    clock: ManualClock,
    delays: RefCell<Rng>,
    notify: futures::channel::mpsc::UnboundedSender<()>,
    wake: futures::lock::Mutex<futures::channel::mpsc::UnboundedReceiver<()>>,
    /// `tools/call` ids sent, and ids cancelled.
    calls: RefCell<Vec<Value>>,
    cancelled: RefCell<Vec<Value>>,
    /// Response ids the client received.
    delivered: RefCell<Vec<Value>>,
}

impl SlowGithub {
    fn new(clock: ManualClock, seed: u64) -> Rc<Self> {
        let (notify, wake) = futures::channel::mpsc::unbounded();
        Rc::new(SlowGithub {
            server: RefCell::new(MockGithubServer::new()),
            queue: RefCell::new(VecDeque::new()),
            clock,
            delays: RefCell::new(Rng(seed)),
            notify,
            wake: futures::lock::Mutex::new(wake),
            calls: RefCell::new(Vec::new()),
            cancelled: RefCell::new(Vec::new()),
            delivered: RefCell::new(Vec::new()),
        })
    }
}

/// The client's handle on a shared [`SlowGithub`].
struct SlowTransport(Rc<SlowGithub>);

impl agentwire::driver::Transport for SlowTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        let s = &self.0;
        for line in String::from_utf8_lossy(&bytes).lines() {
            if let Ok(message) = serde_json::from_str::<Value>(line) {
                match message["method"].as_str() {
                    Some("tools/call") => s.calls.borrow_mut().push(message["id"].clone()),
                    Some("notifications/cancelled") => s
                        .cancelled
                        .borrow_mut()
                        .push(message["params"]["requestId"].clone()),
                    _ => {}
                }
            }
        }
        let reply = s.server.borrow_mut().handle_bytes(&bytes);
        if !reply.is_empty() {
            // The handshake answers at once; tool calls take a few milliseconds.
            let delay = if s.calls.borrow().is_empty() {
                0
            } else {
                1 + s.delays.borrow_mut().below(6)
            };
            let due = s.clock.now().as_millis() + delay;
            s.queue.borrow_mut().push_back((due, reply));
            let _ = s.notify.unbounded_send(());
        }
        Ok(())
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        use futures::StreamExt;
        let s = &self.0;
        loop {
            let front = s.queue.borrow().front().map(|(due, _)| *due);
            match front {
                Some(due) if s.clock.now().as_millis() >= due => {
                    let (_, bytes) = s.queue.borrow_mut().pop_front()?;
                    for line in String::from_utf8_lossy(&bytes).lines() {
                        if let Ok(message) = serde_json::from_str::<Value>(line) {
                            s.delivered.borrow_mut().push(message["id"].clone());
                        }
                    }
                    return Some(Ok(bytes));
                }
                Some(due) => {
                    agentwire::driver::Clock::sleep_until(&s.clock, Instant::from_millis(due))
                        .await;
                }
                None => {
                    s.wake.lock().await.next().await?;
                }
            }
        }
    }

    async fn close(&self) {}
}

#[test]
fn aborting_at_a_random_moment_leaves_nothing_running_a_hundred_times() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut interrupted = 0;
    let mut cancelled_on_server = 0;
    for round in 0..100u64 {
        let clock = ManualClock::default();
        let model = Rc::new(SlowModel {
            clock: clock.clone(),
            delays: RefCell::new(Rng(round + 7)),
        });
        let agent = agentwire::agent::Agent::new(
            agentwire::registry::Registry::new(),
            Policy::new(),
            agentwire::agent::AgentConfig::default(),
        );
        let mut host = Host {
            pool: futures::executor::LocalPool::new(),
            runtime: agentwire::driver::Runtime::new(
                agent,
                model,
                Rc::new(agentwire::driver::NoLocalTools),
                clock.clone(),
            ),
            clock: clock.clone(),
        };
        let server = SlowGithub::new(clock.clone(), round + 11);
        let client = host.add_server("github", SlowTransport(Rc::clone(&server)));
        let kept = filed(&host.runtime);
        host.runtime.set_agents(AgentSet::with_builtin());
        let timers_before = clock.live_sleeps();
        let interrupt = host.runtime.interrupt_handle();
        let observer = Observer::default();
        let children = 1 + rng.below(8) as usize;
        let tasks: Vec<&str> = EIGHT
            .split(": ")
            .nth(1)
            .unwrap()
            .split("; ")
            .take(children)
            .collect();
        let prompt = format!("use subagents: {}", tasks.join("; "));
        let moment = rng.below(30);
        let mut run = Stepper::new(host.runtime.run(&prompt, &observer));
        let mut ended = run.step(&mut host.pool);
        for _ in 0..moment {
            if ended.is_some() {
                break;
            }
            clock.advance(1);
            ended = run.step(&mut host.pool);
        }
        let result = match ended {
            Some(result) => result,
            None => {
                interrupt.interrupt("Ctrl-C").unwrap();
                interrupted += 1;
                run.step(&mut host.pool)
                    .expect("an interrupted run ends at once")
            }
        };
        drop(run);
        host.pool.run_until_stalled();
        // Replies the server still sends to cancelled calls arrive (and are dropped as late);
        // after that the test transport holds no timer, so any left is the runtime's.
        clock.advance(10);
        host.pool.run_until_stalled();

        let events = observer.events.borrow();
        let terminal: Vec<_> = events.iter().filter(|e| e.is_terminal()).collect();
        assert_eq!(terminal.len(), 1, "round {round}: {terminal:?}");
        assert_eq!(result.is_ok(), matches!(terminal[0], UiEvent::Done { .. }));
        assert_eq!(host.runtime.running_subagents(), 0, "round {round}");
        assert_eq!(
            client.in_flight(),
            0,
            "round {round}: a request is still pending"
        );
        assert_eq!(
            clock.live_sleeps(),
            timers_before,
            "round {round}: a timer leaked"
        );
        // Every child started has exactly one terminal event; every call sent that got no
        // answer was cancelled on the server.
        let children = in_start_order(&kept);
        assert_eq!(
            children.len(),
            host.runtime.subagents_started(),
            "round {round}"
        );
        for child in children {
            let ends = events
                .iter()
                .filter(|e| {
                    matches!(e, UiEvent::Subagent { parent_tool_use_id, event, .. }
                    if *parent_tool_use_id == child.parent_tool_use_id && event.is_terminal())
                })
                .count();
            assert_eq!(ends, 1, "round {round}: child {}", child.parent_tool_use_id);
            assert!(child.outcome.is_some(), "round {round}");
        }
        cancelled_on_server += server.cancelled.borrow().len();
        for id in server.calls.borrow().iter() {
            assert!(
                server.delivered.borrow().contains(id) || server.cancelled.borrow().contains(id),
                "round {round}: call {id} was neither answered nor cancelled"
            );
        }
        // The history stays consistent: every call has its result.
        let history = host.history();
        let calls: usize = history
            .iter()
            .map(|m| match m {
                ChatMessage::Assistant { tool_calls, .. } => tool_calls.len(),
                _ => 0,
            })
            .sum();
        let results = history
            .iter()
            .filter(|m| matches!(m, ChatMessage::Tool { .. }))
            .count();
        assert_eq!(calls, results, "round {round}");
    }
    assert!(
        interrupted > 50,
        "most rounds were interrupted mid-way: {interrupted}"
    );
    assert!(
        cancelled_on_server > 20,
        "children's MCP calls were in flight: {cancelled_on_server}"
    );
    eprintln!("{interrupted} of 100 runs interrupted; {cancelled_on_server} MCP calls cancelled");
}

/// Answers the main agent from one script and every child from another.
struct Split {
    parent: Rc<ScriptedModel>,
    child: Rc<ScriptedModel>,
}

impl ModelBackend for Split {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        if request.system == DEFAULT_SYSTEM_PROMPT {
            self.parent.complete(request, on_stream)
        } else {
            self.child.complete(request, on_stream)
        }
    }
}

fn agent_call(id: &str, agent: &str, prompt: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: AGENT_TOOL.into(),
        arguments: json!({"description": "task", "prompt": prompt, "subagent_type": agent}),
    }
}

fn calls(calls: Vec<ToolCall>) -> ModelResponse {
    ModelResponse {
        text: None,
        tool_calls: calls,
        usage: None,
    }
}

#[test]
fn a_childs_approvals_reach_the_same_prompt_labelled_and_denied_stays_denied() {
    let mut policy = Policy::new();
    policy.ask("mcp__github__list_issues").unwrap();
    policy.deny("mcp__github__list_pull_requests").unwrap();
    let model = RecordingModel::new(MockModel::new());
    let (mut host, client) = github_host(model.clone(), policy);
    let observer = Observer::answering([Approval::Always]);
    let prompt = "use subagents: list issues in vercel/ai; list pull requests in vercel/ai";
    host.run(prompt, &observer).unwrap();

    let asked = observer.asked.borrow();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].name, "mcp__github__list_issues");
    assert_eq!(asked[0].agent.as_deref(), Some("general-purpose"));
    let approvals = child_events(&observer, "approval_request");
    assert_eq!(approvals.len(), 1);
    // "always" in a child holds for the session, the main agent included.
    let allowed = host
        .runtime
        .with_agent(|a| a.policy().session_allows().to_vec());
    assert_eq!(allowed, ["mcp__github__list_issues"]);

    // The denied tool was never offered to any child, never audited as run, never sent.
    for request in model.requests.borrow().iter() {
        if request.system != DEFAULT_SYSTEM_PROMPT {
            assert!(request
                .tools
                .iter()
                .all(|t| t.name != "mcp__github__list_pull_requests"));
            assert!(
                request.tools.iter().all(|t| t.name != AGENT_TOOL),
                "depth limit 1"
            );
            assert!(request.tools.iter().all(|t| t.name != "activate_skill"));
        }
    }
    let audits = observer.take_audits();
    assert!(
        audits
            .iter()
            .all(|r| r.tool != "mcp__github__list_pull_requests"),
        "{audits:?}"
    );
    assert_eq!(client.in_flight(), 0);
}

#[test]
fn a_child_that_asks_for_a_denied_tool_anyway_is_refused() {
    let mut policy = Policy::new();
    policy.deny("mcp__github__create_issue").unwrap();
    let child = ScriptedModel::new([
        calls(vec![ToolCall {
            id: "c1".into(),
            name: "mcp__github__create_issue".into(),
            arguments: json!({"owner": "vercel", "repo": "ai", "title": "x"}),
        }]),
        ModelResponse::text("could not"),
    ]);
    let parent = ScriptedModel::new([
        calls(vec![agent_call("p1", "general-purpose", "file an issue")]),
        ModelResponse::text("ok"),
    ]);
    let (mut host, client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        policy,
    );
    let observer = Observer::default();
    host.run("go", &observer).unwrap();
    let results = child.tool_results(1);
    assert_eq!(results.len(), 1);
    assert!(results[0].2, "refused: {results:?}");
    assert!(
        results[0].1.contains("unknown tool") || results[0].1.contains("denied"),
        "{results:?}"
    );
    let audits = observer.take_audits();
    assert!(audits
        .iter()
        .all(|r| r.outcome.as_str() != "ok" || r.tool != "mcp__github__create_issue"));
    assert_eq!(client.in_flight(), 0);
}

#[test]
fn the_depth_limit_and_bad_requests_are_answered_as_errors() {
    let parent = ScriptedModel::new([
        calls(vec![
            agent_call("p1", "nobody", "x"),
            ToolCall {
                id: "p2".into(),
                name: AGENT_TOOL.into(),
                arguments: json!({"description": "d"}),
            },
            agent_call("p3", "general-purpose", "nest"),
        ]),
        ModelResponse::text("ok"),
    ]);
    // The child tries to start a grandchild it was never offered.
    let child = ScriptedModel::new([
        calls(vec![agent_call("g1", "general-purpose", "deeper")]),
        ModelResponse::text("stayed at my depth"),
    ]);
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        Policy::new(),
    );
    let kept = filed(&host.runtime);
    host.run("go", &Observer::default()).unwrap();
    let results = parent.tool_results(1);
    assert!(
        results[0].2 && results[0].1.contains("unknown subagent_type \"nobody\""),
        "{results:?}"
    );
    assert!(
        results[0].1.contains("general-purpose"),
        "names what exists"
    );
    assert!(
        results[1].2 && results[1].1.contains("`prompt` is required"),
        "{results:?}"
    );
    assert!(
        !results[2].2 && results[2].1.starts_with("stayed at my depth"),
        "{results:?}"
    );
    let grandchild = child.tool_results(1);
    assert!(grandchild[0].2, "{grandchild:?}");
    assert_eq!(kept.borrow().len(), 1, "no grandchild ran");
    assert_eq!(host.runtime.subagents_started(), 1);

    // With depth 2, the child may start one.
    let parent = ScriptedModel::new([
        calls(vec![agent_call("p1", "general-purpose", "nest")]),
        ModelResponse::text("ok"),
    ]);
    let child = ScriptedModel::new([
        calls(vec![agent_call("g1", "general-purpose", "deeper")]),
        ModelResponse::text("grandchild answer"),
        ModelResponse::text("child relays"),
    ]);
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        Policy::new(),
    );
    host.runtime.set_subagent_limits(2, 1_000_000);
    let kept = filed(&host.runtime);
    let observer = Observer::default();
    host.run("go", &observer).unwrap();
    let transcripts = in_start_order(&kept);
    assert_eq!(transcripts.len(), 2);
    assert_eq!(
        (
            transcripts[1].depth,
            transcripts[1].parent_tool_use_id.as_str()
        ),
        (2, "g1")
    );
    assert_eq!(child_events(&observer, "done").len(), 2);
}

#[test]
fn a_child_over_its_token_budget_or_turns_stops_and_says_why() {
    let heavy = |text: &str| ModelResponse {
        usage: Some(Usage {
            input_tokens: 600,
            output_tokens: 10,
            ..Usage::default()
        }),
        ..calls(vec![ToolCall {
            id: format!("c_{text}"),
            name: "mcp__github__list_issues".into(),
            arguments: json!({"owner": "vercel", "repo": text}),
        }])
    };
    let child = ScriptedModel::new([heavy("ai"), heavy("next.js"), heavy("x")]);
    let parent = ScriptedModel::new([
        calls(vec![agent_call("p1", "general-purpose", "work")]),
        ModelResponse::text("ok"),
    ]);
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        Policy::new(),
    );
    host.runtime.set_subagent_limits(1, 1_000);
    host.run("go", &Observer::default()).unwrap();
    let results = parent.tool_results(1);
    assert!(results[0].2, "{results:?}");
    assert!(
        results[0].1.contains("the token budget of 1000"),
        "{results:?}"
    );
    assert!(
        results[0].1.contains("1200 input / 20 output tokens"),
        "{results:?}"
    );

    // maxTurns: the definition's step limit.
    let mut set = AgentSet::default();
    set.insert(AgentDefinition {
        name: "brief".into(),
        description: "d".into(),
        instructions: "Be brief.".into(),
        max_turns: Some(1),
        source: "host".into(),
        ..AgentDefinition::default()
    });
    let child = ScriptedModel::new([heavy("ai"), ModelResponse::text("never")]);
    let parent = ScriptedModel::new([
        calls(vec![agent_call("p1", "brief", "work")]),
        ModelResponse::text("ok"),
    ]);
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        Policy::new(),
    );
    host.runtime.set_agents(set);
    host.run("go", &Observer::default()).unwrap();
    let results = parent.tool_results(1);
    assert!(
        results[0].2 && results[0].1.contains("step limit of 1"),
        "{results:?}"
    );
    assert_eq!(child.requests.borrow()[0].system, "Be brief.");
}

#[test]
fn a_named_model_runs_the_child_when_the_host_resolves_it() {
    let mut set = AgentSet::with_builtin();
    set.insert(AgentDefinition {
        name: "fast".into(),
        description: "d".into(),
        model: Some("small".into()),
        source: "host".into(),
        ..AgentDefinition::default()
    });
    set.insert(AgentDefinition {
        name: "typo".into(),
        description: "d".into(),
        model: Some("sonet".into()),
        source: "/home/me/.claude/agents/typo.md".into(),
        ..AgentDefinition::default()
    });
    let parent = ScriptedModel::new([
        calls(vec![
            agent_call("p1", "fast", "a"),
            agent_call("p2", "general-purpose", "b"),
            agent_call("p3", "typo", "c"),
        ]),
        ModelResponse::text("ok"),
    ]);
    let inherited = ScriptedModel::new([ModelResponse::text("from the parent's model")]);
    let small = ScriptedModel::new([ModelResponse::text("from the small model")]);
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: inherited.clone(),
        }),
        Policy::new(),
    );
    host.runtime.set_agents(set);
    let named: Rc<dyn ModelBackend> = small.clone();
    host.runtime
        .set_model_resolver(Some(Rc::new(move |def: &AgentDefinition| {
            match def.model.as_deref() {
                Some("small") => Ok(Some(Rc::clone(&named))),
                Some("inherit") => Ok(None),
                other => Err(format!("{}: unknown model {other:?}", def.source)),
            }
        })));
    host.run("go", &Observer::default()).unwrap();
    let results = parent.tool_results(1);
    assert!(
        results[0].1.starts_with("from the small model"),
        "{results:?}"
    );
    assert!(
        results[1].1.starts_with("from the parent's model"),
        "{results:?}"
    );
    // A name the host does not know starts no child, and the error names the agent's file.
    assert!(
        results[2]
            .1
            .contains("agent typo: /home/me/.claude/agents/typo.md: unknown model Some(\"sonet\")")
            && results[2].2,
        "{results:?}"
    );
    assert_eq!(host.runtime.subagents_started(), 2, "no child for the typo");
    assert_eq!(
        inherited.requests.borrow().len(),
        1,
        "the parent's model answered one child"
    );
}

#[test]
fn each_childs_transcript_reaches_the_hosts_sink_once_and_the_result_names_it() {
    let parent = ScriptedModel::new([
        calls(vec![
            agent_call("p1", "general-purpose", "first"),
            agent_call("p2", "general-purpose", "second"),
        ]),
        ModelResponse::text("ok"),
    ]);
    let child = ScriptedModel::new([
        ModelResponse::text("first answer"),
        ModelResponse::text("second answer"),
    ]);
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        Policy::new(),
    );
    host.runtime.set_agents(AgentSet::with_builtin());
    let kept: Rc<RefCell<Vec<agentwire::subagent::ChildTranscript>>> = Rc::default();
    let sink_kept = Rc::clone(&kept);
    host.runtime
        .set_child_transcript_sink(Some(Rc::new(move |transcript| {
            sink_kept.borrow_mut().push(transcript.clone());
            Some(format!("/sessions/s1.agents/{}.jsonl", transcript.index))
        })));
    host.run("go", &Observer::default()).unwrap();
    let kept = kept.borrow();
    assert_eq!(kept.len(), 2, "one call per child");
    assert_eq!(
        host.runtime.subagents_started(),
        2,
        "every child started was filed"
    );
    // Each child is filed under its own index, for its own call of the parent.
    let mut filed: Vec<(usize, &str)> = kept
        .iter()
        .map(|t| (t.index, t.parent_tool_use_id.as_str()))
        .collect();
    filed.sort();
    assert_eq!(filed.iter().map(|f| f.0).collect::<Vec<_>>(), [0, 1]);
    let mut calls: Vec<&str> = filed.iter().map(|f| f.1).collect();
    calls.sort();
    assert_eq!(calls, ["p1", "p2"]);
    for transcript in kept.iter() {
        assert_eq!(transcript.agent, "general-purpose");
        assert_eq!(transcript.depth, 1);
    }
    for transcript in kept.iter() {
        assert!(matches!(transcript.outcome, Some(Ok(_))), "{transcript:?}");
        assert!(
            matches!(&transcript.history[0], ChatMessage::User { content } if content == "first" || content == "second"),
            "{transcript:?}"
        );
    }
    let results = parent.tool_results(1);
    for (call, content, _) in &results {
        let index = kept
            .iter()
            .find(|t| t.parent_tool_use_id == *call)
            .unwrap()
            .index;
        assert!(
            content.ends_with(&format!("transcript /sessions/s1.agents/{index}.jsonl]")),
            "{results:?}"
        );
    }
}

// The skill is built with the skill set's own parser (the npm runtime asks its host instead).
#[cfg(feature = "skill-set")]
#[test]
fn a_definitions_skills_are_preloaded_into_the_childs_first_request_and_never_widen_it() {
    let mut set = AgentSet::with_builtin();
    for (name, skills) in [("reviewer", vec!["review"]), ("lost", vec!["missing"])] {
        set.insert(AgentDefinition {
            name: name.into(),
            description: "d".into(),
            instructions: "Review.".into(),
            skills: skills.into_iter().map(str::to_owned).collect(),
            source: "user".into(),
            ..AgentDefinition::default()
        });
    }
    let parent = ScriptedModel::new([
        calls(vec![
            agent_call("p1", "reviewer", "review the diff"),
            agent_call("p2", "lost", "x"),
        ]),
        ModelResponse::text("ok"),
    ]);
    let child = ScriptedModel::new([
        calls(vec![
            ToolCall {
                id: "c1".into(),
                name: "mcp__github__list_issues".into(),
                arguments: json!({"owner": "vercel", "repo": "ai"}),
            },
            ToolCall {
                id: "c2".into(),
                name: "mcp__github__list_pull_requests".into(),
                arguments: json!({"owner": "vercel", "repo": "ai"}),
            },
        ]),
        ModelResponse::text("reviewed"),
    ]);
    let mut policy = Policy::new();
    policy
        .add_rule(
            agentwire::policy::RuleKind::Ask,
            "mcp__github__list_pull_requests",
        )
        .unwrap();
    let (mut host, _client) = github_host(
        Rc::new(Split {
            parent: parent.clone(),
            child: child.clone(),
        }),
        policy,
    );
    host.runtime.set_agents(set);
    // A skill that grants one tool and disallows another.
    let text = "---\ndescription: Reviews\nallowed-tools: mcp__github__list_pull_requests\ndisallowed-tools: \
                mcp__github__list_issues\n---\nCheck every line twice.";
    let skill = agentwire::ext::parse_skill_md(
        "skills/review/SKILL.md",
        "review",
        text,
        agentwire::ext::Scope::User,
    )
    .unwrap();
    host.runtime
        .with_agent(|agent| agent.skills_mut().insert(skill));
    let observer = Observer::default();
    host.run("go", &observer).unwrap();
    let requests = child.requests.borrow();
    let first = requests[0].messages.iter().find_map(|m| match m {
        ChatMessage::User { content } => Some(content.clone()),
        _ => None,
    });
    let first = first.unwrap();
    assert!(first.starts_with("review the diff\n\n"), "{first}");
    assert!(first.contains("Check every line twice."), "{first}");
    // The skill's disallowed tool is denied in the child; its grant loosens nothing: the
    // tool the parent asks about is still asked about (and refused here).
    let results = child.tool_results(1);
    assert!(
        results[0].2 && results[0].1.contains("denied"),
        "{results:?}"
    );
    assert!(results[1].2, "{results:?}");
    let asked: Vec<String> = observer
        .asked
        .borrow()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(asked, ["mcp__github__list_pull_requests"]);
    let results = parent.tool_results(1);
    assert!(
        results[1].1.contains("agent lost: skill missing:") && results[1].2,
        "{results:?}"
    );
}

#[test]
fn the_agent_tool_is_refused_as_a_direct_call() {
    let (mut host, _client) = github_host(RecordingModel::new(MockModel::new()), Policy::new());
    let observer = Observer::default();
    let call = host.runtime.call_tool(
        AGENT_TOOL,
        json!({"description": "d", "prompt": "p"}),
        &observer,
    );
    let output = Stepper::new(call).step(&mut host.pool).unwrap().unwrap();
    assert!(output.shaped.is_error, "{output:?}");
    assert!(
        output
            .failure
            .as_deref()
            .unwrap_or("")
            .contains("only when a model calls it"),
        "{output:?}"
    );
    assert_eq!(host.runtime.subagents_started(), 0);
}
