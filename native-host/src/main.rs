//! The `agentwire` binary.

use agentwire_host::os::reaper;
use clap::Parser;
use std::time::Duration;

fn main() {
    // First of all: the environment holds the model's key, and a process of the same user (a
    // bash call, an MCP server) could read it from /proc/<pid>/environ, or read our memory.
    forbid_dumping();
    let cli = agentwire_host::cli::args::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            std::process::exit(2);
        }
    };
    // Installed first, so a Ctrl-C at any point is ours to handle, not a sudden death.
    let mut signals =
        match runtime.block_on(async { agentwire_host::os::signals::Signals::install() }) {
            Ok(signals) => signals,
            Err(error) => {
                eprintln!("error: cannot install the signal handlers: {error}");
                std::process::exit(2);
            }
        };
    // Everything runs on one thread: the core's futures are !Send by design.
    let local = tokio::task::LocalSet::new();
    let code = runtime.block_on(local.run_until(agentwire_host::cli::main(cli, &mut signals)));
    // Let server shutdowns (close stdin, SIGTERM, SIGKILL: at most ~4 s each, in parallel)
    // finish; one more signal meanwhile, or running out of time, kills what is left at once.
    // Killed before the local set (and with it the children's handles) is dropped, so they are
    // still known then.
    let mut local = local;
    let finished = runtime.block_on(async {
        tokio::select! {
            finished = tokio::time::timeout(Duration::from_secs(5), &mut local) => finished.is_ok(),
            _ = signals.recv() => false,
        }
    });
    if !finished {
        reaper::kill_tracked_groups();
    }
    drop(local);
    // Orphans adopted as subreaper (from bash calls) do not outlive the CLI.
    reaper::sweep_orphans();
    std::process::exit(code);
}

/// Makes the process non-dumpable: `/proc/<pid>/environ`, `mem` and `ptrace` become root's
/// only, and no core file is written. Children get their own attribute back when they exec.
fn forbid_dumping() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Err(error) = nix::sys::prctl::set_dumpable(false) {
        eprintln!(
            "warning: cannot make agentwire non-dumpable ({error}): processes of your user may \
             read its environment"
        );
    }
}
