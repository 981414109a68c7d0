//! The `agentwire` binary.

use clap::Parser;
use std::time::Duration;

fn main() {
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
    // Everything runs on one thread: the core's futures are !Send by design.
    let local = tokio::task::LocalSet::new();
    let code = runtime.block_on(local.run_until(agentwire_host::cli::main(cli)));
    // Let server shutdowns (close stdin, SIGTERM, SIGKILL: at most ~4 s each, in parallel) finish.
    runtime.block_on(async {
        let _ = tokio::time::timeout(Duration::from_secs(5), local).await;
    });
    std::process::exit(code);
}
