//! A running MCP call's progress reaches the observer while the call runs, as `tool_progress`,
//! coalesced per call: a server flooding `notifications/progress` gets the latest shown at most
//! once per interval, and nothing of the flood queues up. Simulated time, scripted server.

mod support;

use agentwire::agent::UiEvent;
use agentwire::agent::DEFAULT_SYSTEM_PROMPT;
use agentwire::driver::{
    McpClient, ModelBackend, ModelStream, PROGRESS_INTERVAL, PROGRESS_MESSAGE_CHARS,
};
use agentwire::model::{ModelRequest, ModelResponse};
use agentwire::policy::Policy;
use agentwire::subagent::{AgentSet, AGENT_TOOL};
use futures::channel::mpsc;
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::async_io::memory_pipe;
use support::host::{answer, calls, Host, Observer, ScriptedModel};
use support::stepper::Stepper;

/// A server that answers the handshake and `tools/list` (one read-only tool, `work`), and
/// keeps every `tools/call` unanswered in `calls`: the test speaks for it from then on.
async fn silent_worker(
    mut from_client: mpsc::UnboundedReceiver<Vec<u8>>,
    to_client: mpsc::UnboundedSender<Vec<u8>>,
    calls: Rc<RefCell<Vec<Value>>>,
) {
    let mut buffer = Vec::new();
    while let Some(chunk) = from_client.next().await {
        buffer.extend_from_slice(&chunk);
        while let Some(pos) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=pos).collect();
            let msg: Value = serde_json::from_slice(&line).unwrap();
            let result = match msg["method"].as_str() {
                Some("initialize") => json!({"protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}}, "serverInfo": {"name": "worker"}}),
                Some("tools/list") => json!({"tools": [{"name": "work",
                    "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}]}),
                Some("tools/call") => {
                    calls.borrow_mut().push(msg);
                    continue;
                }
                _ => continue,
            };
            let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            let _ = to_client.unbounded_send(format!("{reply}\n").into_bytes());
        }
    }
}

struct Rig {
    host: Host,
    client: McpClient,
    to_client: mpsc::UnboundedSender<Vec<u8>>,
    calls: Rc<RefCell<Vec<Value>>>,
}

/// The runtime with `worker` connected and a model that calls `work` once, then answers.
fn rig() -> Rig {
    let model = ScriptedModel::new([
        calls(&[("call_1", "mcp__worker__work", json!({}))]),
        answer("finished"),
    ]);
    rig_with(model)
}

fn rig_with(model: Rc<dyn ModelBackend>) -> Rig {
    let mut host = Host::with_policy(Policy::new(), model);
    let (transport, from_client, to_client) = memory_pipe();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let server = silent_worker(from_client, to_client.clone(), Rc::clone(&calls));
    futures::task::LocalSpawnExt::spawn_local(&host.pool.spawner(), server).unwrap();
    let client = host.add_server("worker", transport);
    Rig {
        host,
        client,
        to_client,
        calls,
    }
}

impl Rig {
    fn send(&self, message: Value) {
        let _ = self
            .to_client
            .unbounded_send(format!("{message}\n").into_bytes());
    }

    /// The progress token of the one `tools/call` the server got.
    fn token(&self) -> Value {
        let calls = self.calls.borrow();
        assert_eq!(calls.len(), 1, "one tools/call reached the server");
        calls[0]["params"]["_meta"]["progressToken"].clone()
    }

    fn progress(&self, progress: u64, total: Option<u64>, message: &str) {
        let mut params = json!({"progressToken": self.token(), "progress": progress,
            "message": message});
        if let Some(total) = total {
            params["total"] = total.into();
        }
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}));
    }
}

/// The `tool_progress` events so far, as JSON.
fn progress_events(observer: &Observer) -> Vec<Value> {
    observer
        .events
        .borrow()
        .iter()
        .filter(|e| matches!(e, UiEvent::ToolProgress { .. }))
        .map(UiEvent::to_value)
        .collect()
}

#[test]
fn progress_during_a_call_is_shown_coalesced_and_bounded() {
    let mut rig = rig();
    let observer = Observer::default();
    let mut run = Stepper::new(rig.host.runtime.run("go", &observer));
    assert!(run.step(&mut rig.host.pool).is_none(), "the call waits");
    assert!(progress_events(&observer).is_empty());

    // The first progress is shown at once, mapped to the agent's call.
    rig.progress(1, Some(10), "one");
    assert!(run.step(&mut rig.host.pool).is_none());
    assert_eq!(
        progress_events(&observer),
        [
            json!({"type": "tool_progress", "id": "call_1", "name": "mcp__worker__work",
                "server": "worker", "progress": 1.0, "total": 10.0, "message": "one"})
        ]
    );

    // A flood within the interval: nothing more shown, nothing queued or dropped elsewhere.
    let long = format!("\u{1b}[2J{}", "x".repeat(10_000));
    for n in 2..=2_000 {
        rig.progress(n, Some(10_000), &long);
    }
    assert!(run.step(&mut rig.host.pool).is_none());
    assert_eq!(progress_events(&observer).len(), 1, "one per interval");
    assert_eq!(
        rig.client.dropped_events(),
        0,
        "the flood went to the call, not to the bounded event queue"
    );

    // When the interval has passed, the latest of the flood is shown, its message cut.
    rig.host
        .clock
        .advance(PROGRESS_INTERVAL.as_millis() as u64 - 1);
    assert!(run.step(&mut rig.host.pool).is_none());
    assert_eq!(
        progress_events(&observer).len(),
        1,
        "not before the interval"
    );
    rig.host.clock.advance(1);
    assert!(run.step(&mut rig.host.pool).is_none());
    let shown = progress_events(&observer);
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[1]["progress"], json!(2_000.0));
    assert_eq!(shown[1]["total"], json!(10_000.0));
    let message = shown[1]["message"].as_str().unwrap();
    assert_eq!(message.chars().count(), PROGRESS_MESSAGE_CHARS);
    assert!(message.starts_with("\u{1b}[2Jxxx"), "cut, not rewritten");

    // Nothing new: a quiet interval shows nothing; progress after a quiet spell shows at once.
    rig.host
        .clock
        .advance(10 * PROGRESS_INTERVAL.as_millis() as u64);
    assert!(run.step(&mut rig.host.pool).is_none());
    assert_eq!(progress_events(&observer).len(), 2);
    rig.progress(9_999, None, "almost");
    assert!(run.step(&mut rig.host.pool).is_none());
    let shown = progress_events(&observer);
    assert_eq!(shown.len(), 3);
    assert_eq!(
        shown[2],
        json!({"type": "tool_progress", "id": "call_1", "name": "mcp__worker__work",
               "server": "worker", "progress": 9_999.0, "message": "almost"})
    );

    // Progress and the result in one read: the result ends the call, its progress goes with it.
    rig.progress(10_000, Some(10_000), "done soon");
    let id = rig.calls.borrow()[0]["id"].clone();
    rig.send(json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": "worked"}]}}));
    let answer = run.step(&mut rig.host.pool).expect("the run ends");
    assert_eq!(answer.unwrap(), "finished");
    let log: Vec<String> = observer
        .take_log()
        .into_iter()
        .filter(|line| line.starts_with("tool_"))
        .collect();
    assert_eq!(
        log,
        [
            "tool_start call_1 mcp__worker__work {}",
            "tool_progress",
            "tool_progress",
            "tool_progress",
            "tool_end call_1 mcp__worker__work ok=true",
        ]
    );
    assert_eq!(rig.client.in_flight(), 0);
    assert_eq!(
        rig.host.clock.live_sleeps(),
        0,
        "no progress timer outlives its call"
    );
}

/// The parent's turns from one script, a child's from another.
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
        match request.system == DEFAULT_SYSTEM_PROMPT {
            true => self.parent.complete(request, on_stream),
            false => self.child.complete(request, on_stream),
        }
    }
}

#[test]
fn a_childs_call_reports_its_progress_labelled_with_the_child() {
    let args = json!({"description": "task", "prompt": "work", "subagent_type": "general-purpose"});
    let parent = ScriptedModel::new([calls(&[("p1", AGENT_TOOL, args)]), answer("all done")]);
    let child = ScriptedModel::new([
        calls(&[("c1", "mcp__worker__work", json!({}))]),
        answer("worked"),
    ]);
    let mut rig = rig_with(Rc::new(Split { parent, child }));
    rig.host.runtime.set_agents(AgentSet::with_builtin());
    let observer = Observer::default();
    let mut run = Stepper::new(rig.host.runtime.run("go", &observer));
    assert!(
        run.step(&mut rig.host.pool).is_none(),
        "the child's call waits"
    );
    rig.progress(5, Some(8), "halfway");
    assert!(run.step(&mut rig.host.pool).is_none());
    let shown: Vec<Value> = observer
        .events
        .borrow()
        .iter()
        .filter(|e| matches!(e, UiEvent::Subagent { event, .. } if matches!(**event, UiEvent::ToolProgress { .. })))
        .map(UiEvent::to_value)
        .collect();
    assert_eq!(
        shown,
        [
            json!({"type": "tool_progress", "id": "c1", "name": "mcp__worker__work",
                "server": "worker", "progress": 5.0, "total": 8.0, "message": "halfway",
                "agent": "general-purpose", "parent_tool_use_id": "p1"})
        ]
    );
    let id = rig.calls.borrow()[0]["id"].clone();
    rig.send(json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": "worked"}]}}));
    let answer = run.step(&mut rig.host.pool).expect("the run ends");
    assert_eq!(answer.unwrap(), "all done");
    assert_eq!(rig.host.clock.live_sleeps(), 0);
}
