//! A runtime with real hook processes, a scripted model that records every request, and a
//! local tool that leaves a marker file when it runs (so "it never ran" is a fact on disk).

// Shared by several test binaries, each using a part.
#![allow(dead_code)]

use agentwire::agent::{Agent, AgentConfig, Approval, ApprovalRequest, UiEvent};
use agentwire::audit::AuditRecord;
use agentwire::content::ToolOutput;
use agentwire::driver::{LocalTools, ModelBackend, ModelStream, RunObserver, Runtime};
use agentwire::hooks::{HookContext, HookSet, HookSource};
use agentwire::model::{ChatMessage, ModelRequest, ModelResponse, ToolCall};
use agentwire::policy::Policy;
use agentwire::registry::{Registry, Risk, ToolSpec};
use agentwire_host::extensions::hook_runner::HookProcesses;
use agentwire_host::os::clock::TokioClock;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Answers with the scripted responses in order, then plain text; keeps every request.
pub struct Scripted {
    pub replies: RefCell<VecDeque<ModelResponse>>,
    pub requests: RefCell<Vec<ModelRequest>>,
}

impl ModelBackend for Scripted {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        self.requests.borrow_mut().push(request);
        let reply = self
            .replies
            .borrow_mut()
            .pop_front()
            .unwrap_or_else(|| ModelResponse::text("done"));
        Box::pin(async move { Ok(reply) })
    }
}

/// `touch_marker` (execute risk) writes `<dir>/ran-<n>`; `peek` (read risk) answers its `echo`
/// argument (`times` times), else "peeked".
pub struct MarkerTools {
    pub dir: PathBuf,
}

impl LocalTools for MarkerTools {
    fn call<'a>(&'a self, name: &'a str, arguments: Value) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            if name == "touch_marker" {
                let n = arguments["n"].as_u64().unwrap_or(0);
                std::fs::write(self.dir.join(format!("ran-{n}")), arguments.to_string()).unwrap();
                ToolOutput::text(format!("touched {n}"))
            } else if let Some(echo) = arguments["echo"].as_str() {
                let times = arguments["times"].as_u64().unwrap_or(1) as usize;
                ToolOutput::text(echo.repeat(times))
            } else {
                ToolOutput::text("peeked")
            }
        })
    }
}

/// Keeps events; answers approvals from a script (default no).
#[derive(Default)]
pub struct Observer {
    pub events: RefCell<Vec<UiEvent>>,
    pub approvals: RefCell<Vec<String>>,
    pub audit: RefCell<Vec<AuditRecord>>,
}

impl RunObserver for Observer {
    fn on_event(&self, event: &UiEvent) {
        self.events.borrow_mut().push(event.clone());
    }
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        self.approvals.borrow_mut().push(request.name.clone());
        Box::pin(async { Approval::No })
    }
    fn on_audit(&self, record: &AuditRecord) {
        self.audit.borrow_mut().push(record.clone());
    }
}

impl Observer {
    /// The `hook_notice` messages.
    pub fn notices(&self) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .filter_map(|e| match e {
                UiEvent::HookNotice { message, .. } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }
}

/// One test's world: a temporary project folder, the runtime, the model.
pub struct World {
    pub dir: tempfile::TempDir,
    pub runtime: Runtime<TokioClock>,
    pub model: Rc<Scripted>,
}

/// A model turn calling `name` with `arguments` (id `c<i>`).
pub fn call(i: usize, name: &str, arguments: Value) -> ModelResponse {
    ModelResponse {
        text: None,
        tool_calls: vec![ToolCall {
            id: format!("c{i}"),
            name: name.to_owned(),
            arguments,
        }],
        usage: None,
    }
}

impl World {
    /// A world whose hooks are `settings` (as the user's own) and whose model says `replies`.
    pub fn new(policy: Policy, settings: Value, replies: Vec<ModelResponse>) -> World {
        let dir = tempfile::tempdir().unwrap();
        let mut set = HookSet::new();
        let source = HookSource {
            label: "test settings".into(),
            plugin_root: None,
            blocked: None,
        };
        let warnings = set.add_settings(&settings, &source);
        assert!(warnings.is_empty(), "{warnings:?}");
        World::with_set(dir, policy, set, replies)
    }

    /// A world with a ready hook set.
    pub fn with_set(
        dir: tempfile::TempDir,
        policy: Policy,
        set: HookSet,
        replies: Vec<ModelResponse>,
    ) -> World {
        let mut registry = Registry::new();
        for (name, risk) in [("touch_marker", Risk::Execute), ("peek", Risk::Read)] {
            registry
                .register_builtin(ToolSpec::builtin(
                    name,
                    "test tool",
                    json!({"type": "object"}),
                    risk,
                ))
                .unwrap();
        }
        let mut agent = Agent::new(registry, policy, AgentConfig::default());
        let context = HookContext {
            session_id: "test-session".into(),
            transcript_path: None,
            cwd: dir.path().display().to_string(),
            permission_mode: "default".into(),
        };
        agent.set_hooks(set, context);
        let model = Rc::new(Scripted {
            replies: RefCell::new(replies.into()),
            requests: RefCell::new(Vec::new()),
        });
        let tools = Rc::new(MarkerTools {
            dir: dir.path().to_path_buf(),
        });
        let runtime = Runtime::new(agent, model.clone(), tools, TokioClock);
        let audit = std::fs::File::create(dir.path().join("audit.jsonl")).unwrap();
        let processes = HookProcesses::new(dir.path().to_path_buf(), Some(audit));
        runtime.set_hook_runner(Some(processes.runner()));
        World {
            dir,
            runtime,
            model,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn ran(&self, n: u64) -> bool {
        self.path().join(format!("ran-{n}")).exists()
    }

    /// The tool results the model saw, in order.
    pub fn tool_results(&self) -> Vec<String> {
        let requests = self.model.requests.borrow();
        let last = requests.last().expect("a model request");
        last.messages
            .iter()
            .filter_map(|m| match m {
                ChatMessage::Tool { content, .. } => Some(content.clone()),
                _ => None,
            })
            .collect()
    }

    /// The audit lines of hook runs.
    pub fn hook_audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path().join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// `{"hooks": {event: [{"matcher": matcher, "hooks": [command hooks…]}]}}`.
pub fn settings(event: &str, matcher: &str, hooks: &[Value]) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": hooks}]}})
}

/// A command hook with an optional timeout in seconds.
pub fn command(command: &str, timeout: Option<f64>) -> Value {
    let mut hook = json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        hook["timeout"] = json!(t);
    }
    hook
}

/// Whether a process with `pid` exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// Runs `future` on a current-thread runtime in a `LocalSet`, as the CLI does.
pub fn local<F: std::future::Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tokio::task::LocalSet::new().block_on(&runtime, future)
}
