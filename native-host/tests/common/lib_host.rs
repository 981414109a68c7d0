//! Library-level plumbing: fixture servers as [`StdioTransport`]s driven by [`McpClient`] on a
//! current-thread tokio runtime with a `LocalSet`, as the CLI runs them.

use agentwire::agent::{Agent, AgentConfig, Approval, ApprovalRequest, UiEvent};
use agentwire::audit::AuditRecord;
use agentwire::driver::{McpClient, NoLocalTools, RunObserver, Runtime};
use agentwire::mcp::SessionConfig;
use agentwire::model::MockModel;
use agentwire::policy::Policy;
use agentwire::registry::Registry;
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::stdio::{StderrTail, StdioCommand, StdioTransport};
use futures::future::LocalBoxFuture;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs `future` on a fresh current-thread runtime inside a `LocalSet`, then gives background
/// tasks (server shutdowns) a moment to finish so no child outlives the test.
pub fn local<F: Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("build a tokio runtime");
    let set = tokio::task::LocalSet::new();
    let output = runtime.block_on(set.run_until(future));
    runtime.block_on(async {
        let _ = tokio::time::timeout(Duration::from_secs(5), set).await;
    });
    output
}

/// Runs `future` on a fresh current-thread runtime inside a `LocalSet` and returns at once
/// when it completes (what is still running in the background is dropped).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    tokio::task::LocalSet::new().block_on(&runtime, future)
}

/// The spawner [`McpClient::connect`] takes: a task on the current `LocalSet`.
pub fn spawn_local(future: LocalBoxFuture<'static, ()>) {
    tokio::task::spawn_local(future);
}

/// A connected fixture server.
pub struct Fixture {
    /// The client.
    pub client: McpClient,
    /// The server's stderr tail.
    pub stderr: Arc<Mutex<StderrTail>>,
}

/// Session settings for tests: short timeouts so a hang fails fast.
pub fn session(request_timeout: Duration) -> SessionConfig {
    SessionConfig {
        initialize_timeout: Duration::from_secs(10),
        request_timeout,
        ..SessionConfig::default()
    }
}

/// Starts `node <fixture> <args>` and completes the MCP handshake.
pub async fn connect(name: &str, file: &str, args: &[&str], config: SessionConfig) -> Fixture {
    let mut argv = vec![super::fixture(file)];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let spec = StdioCommand {
        command: "node".into(),
        args: argv,
        ..StdioCommand::default()
    };
    let transport =
        StdioTransport::spawn(name, &spec).unwrap_or_else(|e| panic!("spawn fixture {file}: {e}"));
    let stderr = transport.stderr();
    let (client, _details) = McpClient::connect(config, transport, TokioClock, spawn_local)
        .await
        .unwrap_or_else(|e| panic!("connect to fixture {file}: {e}"));
    Fixture { client, stderr }
}

/// A runtime with no local tools, the mock model and a policy that allows everything.
pub fn runtime() -> Runtime<TokioClock> {
    let mut policy = Policy::new();
    policy.allow("*").expect("`*` is a valid pattern");
    let agent = Agent::new(Registry::new(), policy, AgentConfig::default());
    Runtime::new(
        agent,
        Rc::new(MockModel::new()),
        Rc::new(NoLocalTools),
        TokioClock,
    )
}

/// An observer that approves everything and keeps what it saw.
#[derive(Default)]
pub struct Recorder {
    /// UI events, in order.
    pub events: RefCell<Vec<UiEvent>>,
    /// Audit records, in order.
    pub audit: RefCell<Vec<AuditRecord>>,
    /// Runtime notices, in order.
    pub notices: RefCell<Vec<String>>,
    /// Server events (`server_log`, `tools_changed`, ...), in order.
    pub server_events: RefCell<Vec<serde_json::Value>>,
}

impl RunObserver for Recorder {
    fn on_event(&self, event: &UiEvent) {
        self.events.borrow_mut().push(event.clone());
    }

    fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        Box::pin(async { Approval::Yes })
    }

    fn on_audit(&self, record: &AuditRecord) {
        self.audit.borrow_mut().push(record.clone());
    }

    fn on_notice(&self, message: &str) {
        self.notices.borrow_mut().push(message.to_owned());
    }

    fn on_server_event(&self, event: &serde_json::Value) {
        self.server_events.borrow_mut().push(event.clone());
    }
}

/// Peak resident memory of this process so far (`VmHWM`), in bytes.
pub fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kb| kb * 1024)
        .expect("VmHWM in /proc/self/status")
}
