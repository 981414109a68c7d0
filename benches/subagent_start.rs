//! What starting a child costs the host before the child's first model request: deriving its
//! tools and gate from the parent's (the mock GitHub server's tools plus the built-in agent),
//! building its agent machine, and driving it to its first `CallModel`. Measured between the
//! parent's model handing back an `Agent` call and the child's model being asked, in process,
//! with no network and no sleeping. Run with `cargo bench --bench subagent_start`.

use agentwire::agent::{Agent, AgentConfig, DEFAULT_SYSTEM_PROMPT};
use agentwire::driver::{
    Clock, McpClient, MockGithubTransport, ModelBackend, ModelStream, NoLocalTools, RunObserver,
    Runtime,
};
use agentwire::mcp::SessionConfig;
use agentwire::model::{ModelRequest, ModelResponse, ToolCall};
use agentwire::policy::Policy;
use agentwire::registry::Registry;
use agentwire::subagent::{AgentSet, AGENT_TOOL};
use agentwire::Instant;
use criterion::{criterion_group, criterion_main, Criterion};
use futures::executor::LocalPool;
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

/// Time stands still: nothing in this bench waits for it.
#[derive(Clone, Copy)]
struct Frozen;

impl Clock for Frozen {
    fn now(&self) -> Instant {
        Instant::from_millis(0)
    }
    fn sleep_until(&self, _deadline: Instant) -> impl std::future::Future<Output = ()> {
        futures::future::pending()
    }
}

/// The parent asks for one child, the child answers at once; records the gap between.
#[derive(Default)]
struct Timing {
    handed: Cell<Option<std::time::Instant>>,
    total: Cell<Duration>,
}

impl ModelBackend for Timing {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        let response = if request.system != DEFAULT_SYSTEM_PROMPT {
            if let Some(start) = self.handed.take() {
                self.total.set(self.total.get() + start.elapsed());
            }
            ModelResponse::text("child answer")
        } else if request.messages.len() == 1 {
            self.handed.set(Some(std::time::Instant::now()));
            ModelResponse {
                text: None,
                tool_calls: vec![ToolCall {
                    id: "p1".into(),
                    name: AGENT_TOOL.into(),
                    arguments: json!({"description": "d", "prompt": "list issues in vercel/ai"}),
                }],
                usage: None,
            }
        } else {
            ModelResponse::text("done")
        };
        Box::pin(async move { Ok(response) })
    }
}

struct Quiet;

impl RunObserver for Quiet {
    fn on_event(&self, _event: &agentwire::agent::UiEvent) {}
    fn approve<'a>(
        &'a self,
        _request: &'a agentwire::agent::ApprovalRequest,
    ) -> LocalBoxFuture<'a, agentwire::agent::Approval> {
        Box::pin(async { agentwire::agent::Approval::No })
    }
}

fn bench(c: &mut Criterion) {
    let mut pool = LocalPool::new();
    let model = Rc::new(Timing::default());
    let agent = Agent::new(Registry::new(), Policy::new(), AgentConfig::default());
    let runtime = Runtime::new(agent, model.clone(), Rc::new(NoLocalTools), Frozen);
    let spawner = pool.spawner();
    let spawn = move |f| spawner.spawn_local(f).expect("the pool runs tasks");
    let connect = McpClient::connect(
        SessionConfig::default(),
        MockGithubTransport::default(),
        Frozen,
        spawn,
    );
    let (client, _) = pool.run_until(connect).expect("the mock server connects");
    pool.run_until(runtime.add_server("github", client))
        .expect("its tools load");
    runtime.set_agents(AgentSet::with_builtin());
    let tools = runtime.with_agent(|a| a.registry().len());
    eprintln!("parent tools: {tools}");
    c.bench_function("subagent start to first model request", |b| {
        b.iter_custom(|iters| {
            model.total.set(Duration::ZERO);
            for _ in 0..iters {
                runtime.with_agent(|a| a.clear_history()).expect("idle");
                pool.run_until(runtime.run("go", &Quiet))
                    .expect("the run answers");
            }
            model.total.get()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
