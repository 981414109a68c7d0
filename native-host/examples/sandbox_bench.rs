//! Times the start cost of a sandboxed command: `bash -c true` started and waited for, plain
//! and under each sandbox mode (building the plan, opening the rule paths and compiling the
//! filters per call, as the `bash` tool does), and prints the medians and the added cost in JSON.
//!
//! ```text
//! cargo run --release -p agentwire-host --example sandbox_bench [ROUNDS]
//! ```
//! Default 100 rounds. The budget is 5 ms added at the median.

use agentwire_host::os::sandbox::{Mode, Prepared};
use agentwire_host::tools::sandbox_policy::{default_deny, plan, SandboxSettings};
use agentwire_host::tools::Workspace;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

/// How the command is started: plain, with an empty `pre_exec` (std then forks instead of
/// spawning, the floor any confinement applied in the child pays), or sandboxed.
enum How<'a> {
    Plain,
    Forked,
    Sandboxed(&'a SandboxSettings),
}

fn start(ws: &Workspace, how: How<'_>) -> Duration {
    let began = Instant::now();
    let mut command = Command::new("bash");
    command.arg("-c").arg("true").current_dir(ws.root());
    if let How::Forked = how {
        // SAFETY: does nothing.
        unsafe {
            command.pre_exec(|| Ok(()));
        }
    }
    if let How::Sandboxed(settings) = how {
        let tmp = std::env::temp_dir();
        let mut prepared = Prepared::new(&plan(settings, ws, &tmp)).expect("the rules");
        // SAFETY: apply_in_child only makes system calls on what Prepared::new made.
        unsafe {
            command.pre_exec(move || prepared.apply_in_child());
        }
    }
    let status = command.status().expect("bash runs");
    assert!(status.success(), "bash failed: {status}");
    began.elapsed()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100)
        .max(1);
    let dir = tempfile::tempdir().expect("a workspace");
    std::fs::create_dir_all(dir.path().join(".git/hooks")).expect("a git folder");
    let ws = Workspace::new(dir.path()).expect("the workspace");
    let deny = default_deny(&|name| std::env::var_os(name));
    let settings = |mode| SandboxSettings {
        mode,
        network: false,
        deny_read: deny.clone(),
        grants: Vec::new(),
        allow: Vec::new(),
    };
    let read_only = settings(Mode::ReadOnly);
    let workspace_write = settings(Mode::WorkspaceWrite);
    start(&ws, How::Plain);
    start(&ws, How::Sandboxed(&workspace_write));
    let (mut plain, mut forked, mut ro, mut rw) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        plain.push(start(&ws, How::Plain));
        forked.push(start(&ws, How::Forked));
        ro.push(start(&ws, How::Sandboxed(&read_only)));
        rw.push(start(&ws, How::Sandboxed(&workspace_write)));
    }
    let forked = median(forked);
    // The parent's share: building the plan, opening the rule paths, compiling the filters.
    let prepare: Vec<Duration> = (0..rounds)
        .map(|_| {
            let began = Instant::now();
            let tmp = std::env::temp_dir();
            let prepared = Prepared::new(&plan(&workspace_write, &ws, &tmp)).expect("the rules");
            drop(prepared);
            began.elapsed()
        })
        .collect();
    let prepare = median(prepare);
    let (plain, ro, rw) = (median(plain), median(ro), median(rw));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{{\"rounds\": {rounds}, \"plain_ms\": {:.3}, \"read_only_ms\": {:.3}, \
         \"workspace_write_ms\": {:.3}, \"added_read_only_ms\": {:.3}, \
         \"added_workspace_write_ms\": {:.3}, \"prepare_ms\": {:.3}, \"forked_ms\": {:.3}}}",
        ms(plain),
        ms(ro),
        ms(rw),
        ms(ro) - ms(plain),
        ms(rw) - ms(plain),
        ms(prepare),
        ms(forked)
    );
}
