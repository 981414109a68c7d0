//! Times the start cost of a sandboxed command as the `bash` tool pays it: a `bash` tool call
//! running `true`, started and waited for through the tool itself (clean environment, process
//! group, reaper, pipes), unsandboxed (`off`) and under each mode, interleaved round by round,
//! and prints the medians and the added cost in JSON. Also the parent's share of a sandboxed
//! call (the plan, the rule paths, the filters) on its own.
//!
//! ```text
//! cargo build --release -p agentwire-host --example sandbox_bench
//! target/release/examples/sandbox_bench [ROUNDS]
//! ```
//! Default 300 rounds. The budget is 5 ms added at the median.

use agentwire_host::os::sandbox::{Mode, Prepared};
use agentwire_host::tools::sandbox_policy::{default_deny, plan, SandboxSettings};
use agentwire_host::tools::{builtin_tools, find_tool, ToolContext, Workspace};
use serde_json::json;
use std::time::{Duration, Instant};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300)
        .max(1);
    let dir = tempfile::tempdir().expect("a workspace");
    // A workspace like a real one: a git folder with hooks and config, an `.mcp.json`.
    std::fs::create_dir_all(dir.path().join(".git/hooks")).expect("a git folder");
    std::fs::write(dir.path().join(".git/config"), "").expect("git config");
    std::fs::write(dir.path().join(".mcp.json"), "{}").expect(".mcp.json");
    let ws = Workspace::new(dir.path()).expect("the workspace");
    let tools = builtin_tools(ws.clone());
    let bash = find_tool(&tools, "bash").expect("the bash tool");
    let deny = default_deny(&|name| std::env::var_os(name));
    let context = |mode| {
        let mut ctx = ToolContext::default();
        ctx.sandbox = SandboxSettings {
            mode,
            network: false,
            deny_read: deny.clone(),
            grants: Vec::new(),
            allow: Vec::new(),
        };
        ctx
    };
    let modes = [Mode::Off, Mode::ReadOnly, Mode::WorkspaceWrite];
    let contexts: Vec<ToolContext> = modes.iter().map(|&m| context(m)).collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let call = |ctx: &ToolContext| {
        let began = Instant::now();
        let out = runtime.block_on(bash.execute(json!({"command": "true"}), ctx));
        assert!(!out.is_error, "bash failed: {}", out.to_model_text());
        began.elapsed()
    };
    // Warm up (page cache, the first fork).
    for ctx in &contexts {
        call(ctx);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contexts.len()];
    for _ in 0..rounds {
        for (ctx, times) in contexts.iter().zip(&mut times) {
            times.push(call(ctx));
        }
    }
    let [off, ro, rw]: [Duration; 3] = times
        .into_iter()
        .map(median)
        .collect::<Vec<_>>()
        .try_into()
        .expect("three modes");
    // The parent's share: building the plan, opening the rule paths, compiling the filters.
    let tmp = std::env::temp_dir();
    let prepare = median(
        (0..rounds)
            .map(|_| {
                let began = Instant::now();
                let plan = plan(&contexts[2].sandbox, &ws, &tmp);
                drop(Prepared::new(&plan).expect("the rules"));
                began.elapsed()
            })
            .collect(),
    );
    println!(
        "{{\"rounds\": {rounds}, \"off_ms\": {:.3}, \"read_only_ms\": {:.3}, \
         \"workspace_write_ms\": {:.3}, \"added_read_only_ms\": {:.3}, \
         \"added_workspace_write_ms\": {:.3}, \"prepare_ms\": {:.3}}}",
        ms(off),
        ms(ro),
        ms(rw),
        ms(ro) - ms(off),
        ms(rw) - ms(off),
        ms(prepare),
    );
}
