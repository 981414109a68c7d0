//! Times the start cost of a sandboxed command as the `bash` tool pays it: a `bash` tool call
//! running `true`, started and waited for through the tool itself (clean environment, process
//! group, reaper, pipes), unsandboxed (`off`) and under each mode, interleaved round by round
//! (the order rotating), and prints the medians and the added cost in JSON: wall time, and CPU
//! time (agentwire's and the reaped children's, which other load on the machine disturbs less).
//! Also the parent's share of a sandboxed call (the plan, the rule paths, the filters) alone.
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

/// CPU time used so far by this process and its reaped children.
fn cpu() -> Duration {
    let used = |who| {
        // SAFETY: getrusage fills the struct it is given.
        let mut usage: nix::libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { nix::libc::getrusage(who, &mut usage) };
        let time = |t: nix::libc::timeval| {
            Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
        };
        time(usage.ru_utime) + time(usage.ru_stime)
    };
    used(nix::libc::RUSAGE_SELF) + used(nix::libc::RUSAGE_CHILDREN)
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
        let (began, cpu_before) = (Instant::now(), cpu());
        let out = runtime.block_on(bash.execute(json!({"command": "true"}), ctx));
        assert!(!out.is_error, "bash failed: {}", out.to_model_text());
        (began.elapsed(), cpu() - cpu_before)
    };
    // Warm up (page cache, the first fork).
    for ctx in &contexts {
        call(ctx);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contexts.len()];
    let mut cpus: Vec<Vec<Duration>> = vec![Vec::new(); contexts.len()];
    for round in 0..rounds {
        for i in (0..contexts.len()).map(|i| (i + round) % contexts.len()) {
            let (wall, used) = call(&contexts[i]);
            times[i].push(wall);
            cpus[i].push(used);
        }
    }
    let medians = |all: Vec<Vec<Duration>>| -> [Duration; 3] {
        let m: Vec<Duration> = all.into_iter().map(median).collect();
        m.try_into().expect("three modes")
    };
    let [off, ro, rw] = medians(times);
    let [off_cpu, ro_cpu, rw_cpu] = medians(cpus);
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
         \"added_workspace_write_ms\": {:.3}, \"cpu_off_ms\": {:.3}, \
         \"cpu_added_read_only_ms\": {:.3}, \"cpu_added_workspace_write_ms\": {:.3}, \
         \"prepare_ms\": {:.3}}}",
        ms(off),
        ms(ro),
        ms(rw),
        ms(ro) - ms(off),
        ms(rw) - ms(off),
        ms(off_cpu),
        ms(ro_cpu) - ms(off_cpu),
        ms(rw_cpu) - ms(off_cpu),
        ms(prepare),
    );
}
