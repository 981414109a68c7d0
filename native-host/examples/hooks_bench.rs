//! Times what hooks add to a tool call: one run of ROUNDS tool calls without hooks, one with 20
//! `PreToolUse` command hooks that exit 0 (each a real `sh -c` process, all started at once),
//! through the runtime exactly as the CLI drives it; prints the medians per call and the added
//! cost in JSON.
//!
//! ```text
//! cargo run --release -p agentwire-host --example hooks_bench [ROUNDS]
//! ```
//! Default 50 calls. The budget is 15 ms added per tool call at the median. It also prints the
//! floor: the same 20 processes started and waited for without agentwire, which on a loaded
//! or virtualised machine alone can exceed the budget; and the CPU time per call of agentwire
//! and of the hook processes, which the load does not change.

use agentwire::agent::{Agent, AgentConfig, Approval, ApprovalRequest, UiEvent};
use agentwire::content::ToolOutput;
use agentwire::driver::{LocalTools, ModelBackend, ModelStream, RunObserver, Runtime};
use agentwire::hooks::{HookContext, HookSet, HookSource};
use agentwire::model::{ModelRequest, ModelResponse, ToolCall};
use agentwire::policy::Policy;
use agentwire::registry::{Registry, Risk, ToolSpec};
use agentwire_host::extensions::hook_runner::HookProcesses;
use agentwire_host::os::clock::TokioClock;
use futures::future::LocalBoxFuture;
use serde_json::json;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Calls `noop` `rounds` times (different arguments each time), then answers.
struct Caller {
    left: Cell<usize>,
    n: Cell<usize>,
}

impl ModelBackend for Caller {
    fn complete<'a>(
        &'a self,
        _request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        let reply = if self.left.get() == 0 {
            ModelResponse::text("done")
        } else {
            self.left.set(self.left.get() - 1);
            self.n.set(self.n.get() + 1);
            ModelResponse {
                text: None,
                tool_calls: vec![ToolCall {
                    id: format!("c{}", self.n.get()),
                    name: "noop".into(),
                    arguments: json!({"n": self.n.get()}),
                }],
                usage: None,
            }
        };
        Box::pin(async move { Ok(reply) })
    }
}

/// `noop`, timing the gaps between its calls.
struct Noop {
    calls: RefCell<Vec<Instant>>,
}

impl LocalTools for Noop {
    fn call<'a>(
        &'a self,
        _name: &'a str,
        _args: serde_json::Value,
    ) -> LocalBoxFuture<'a, ToolOutput> {
        self.calls.borrow_mut().push(Instant::now());
        Box::pin(async { ToolOutput::text("ok") })
    }
}

struct Quiet;

impl RunObserver for Quiet {
    fn on_event(&self, _event: &UiEvent) {}
    fn approve<'a>(&'a self, _r: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        Box::pin(async { Approval::Yes })
    }
}

/// CPU time so far of this process and of its reaped children (hooks), from `/proc/self/stat`
/// (utime, stime, cutime, cstime in clock ticks, 100 per second on Linux).
fn cpu_times() -> (Duration, Duration) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let tick = |n: u64| Duration::from_millis(n * 10);
    match fields.as_slice() {
        [utime, stime, cutime, cstime] => (tick(utime + stime), tick(cutime + cstime)),
        _ => (Duration::ZERO, Duration::ZERO),
    }
}

/// Per-call durations of one run of `rounds` calls with `hooks` PreToolUse hooks.
fn per_call(rounds: usize, hooks: usize) -> Vec<Duration> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut registry = Registry::new();
    let spec = ToolSpec::builtin(
        "noop",
        "does nothing",
        json!({"type": "object"}),
        Risk::Read,
    );
    registry.register_builtin(spec).expect("register noop");
    let config = AgentConfig {
        max_steps: u32::try_from(rounds + 2).unwrap_or(u32::MAX),
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(registry, Policy::new(), config);
    let commands: Vec<_> = (0..hooks)
        .map(|i| json!({"type": "command", "command": format!("exit 0 # hook {i}")}))
        .collect();
    let mut set = HookSet::new();
    let source = HookSource {
        label: "bench".into(),
        plugin_root: None,
        blocked: None,
    };
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "noop", "hooks": commands}]}});
    assert!(set.add_settings(&settings, &source).is_empty());
    agent.set_hooks(set, HookContext::default());
    let model = Rc::new(Caller {
        left: Cell::new(rounds),
        n: Cell::new(0),
    });
    let tools = Rc::new(Noop {
        calls: RefCell::new(Vec::new()),
    });
    let runtime = Runtime::new(agent, model, tools.clone(), TokioClock);
    runtime.set_hook_runner(Some(
        HookProcesses::new(dir.path().to_path_buf(), None).runner(),
    ));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let started = Instant::now();
    tokio::task::LocalSet::new()
        .block_on(&rt, runtime.run("go", &Quiet))
        .expect("the run answers");
    let calls = tools.calls.borrow();
    assert_eq!(calls.len(), rounds, "every call ran");
    std::iter::once(started)
        .chain(calls.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| w[1] - w[0])
        .collect()
}

/// The floor on this machine: 20 `sh -c 'exit 0'` started at once and waited for, without
/// agentwire (the median of `rounds` tries).
fn spawn_floor(rounds: usize) -> Duration {
    let tries = (0..rounds)
        .map(|_| {
            let began = Instant::now();
            let children: Vec<_> = (0..20)
                .map(|_| {
                    std::process::Command::new("sh")
                        .arg("-c")
                        .arg("exit 0")
                        .spawn()
                        .expect("sh starts")
                })
                .collect();
            for mut child in children {
                child.wait().expect("sh ends");
            }
            began.elapsed()
        })
        .collect();
    median(tries)
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn main() {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let plain = median(per_call(rounds, 0));
    let (own_before, children_before) = cpu_times();
    let hooked = median(per_call(rounds, 20));
    let (own_after, children_after) = cpu_times();
    let per = |d: Duration| d / u32::try_from(rounds.max(1)).unwrap_or(u32::MAX);
    let own_cpu = per(own_after.saturating_sub(own_before));
    let hooks_cpu = per(children_after.saturating_sub(children_before));
    let added = hooked.saturating_sub(plain);
    let floor = spawn_floor(rounds);
    let ms = |d: Duration| (d.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0;
    println!(
        "{}",
        json!({
            "rounds": rounds,
            "hooks": 20,
            "median_ms_per_call_without_hooks": ms(plain),
            "median_ms_per_call_with_hooks": ms(hooked),
            "added_ms": ms(added),
            "floor_ms_20_sh_processes_without_agentwire": ms(floor),
            "added_over_floor_ms": ms(added.saturating_sub(floor)),
            // CPU per call, which the machine's load does not change: agentwire's own
            // (spawning, reading, merging) and the 20 hook processes' (sh starting and exiting).
            "cpu_ms_per_call_agentwire": ms(own_cpu),
            "cpu_ms_per_call_hook_processes": ms(hooks_cpu),
            "cpus": std::thread::available_parallelism().map_or(1, usize::from),
            "budget_ms": 15.0,
            "within_budget": added <= Duration::from_millis(15),
        })
    );
}
