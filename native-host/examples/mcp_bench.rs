//! The agentwire side of `bench/run`: spawns an MCP server over stdio, then times connect +
//! `tools/list`, sequential `tools/call` round trips and batches of concurrent calls, and prints
//! one JSON object. `bench/ts-client.mjs` does the same with the TypeScript SDK; both take the
//! same flags, so the two clients measure exactly the same operations against the same command.
//!
//! ```text
//! mcp_bench [--seq N] [--conc N] [--rounds R] [--warmup N] [--warmup-rounds R] [--tool NAME]
//!           [--args JSON] [--expect TEXT] -- COMMAND [ARG...]
//! ```

use agentwire::content::ContentBlock;
use agentwire::driver::McpClient;
use agentwire::mcp::{CallOptions, SessionConfig};
use agentwire_host::clock::TokioClock;
use agentwire_host::stdio::{StdioCommand, StdioTransport};
use futures::future::{join_all, LocalBoxFuture};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What to run and how much.
struct Options {
    seq: usize,
    conc: usize,
    rounds: usize,
    warmup: usize,
    warmup_rounds: usize,
    tool: String,
    args: Value,
    expect: Option<String>,
    command: Vec<String>,
}

fn usage() -> String {
    "usage: mcp_bench [--seq N] [--conc N] [--rounds R] [--warmup N] [--warmup-rounds R] \
     [--tool NAME] [--args JSON] [--expect TEXT] -- COMMAND [ARG...]"
        .to_owned()
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        seq: 2000,
        conc: 1000,
        rounds: 5,
        warmup: 200,
        warmup_rounds: 2,
        tool: "echo".into(),
        args: json!({"text": "hello"}),
        expect: None,
        command: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--" {
            options.command = args.by_ref().collect();
            break;
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value; {}", usage()))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|e| format!("{flag} {value:?}: {e}"))
        };
        match flag.as_str() {
            "--seq" => options.seq = number()?,
            "--conc" => options.conc = number()?,
            "--rounds" => options.rounds = number()?,
            "--warmup" => options.warmup = number()?,
            "--warmup-rounds" => options.warmup_rounds = number()?,
            "--tool" => options.tool = value,
            "--args" => {
                options.args =
                    serde_json::from_str(&value).map_err(|e| format!("--args {value:?}: {e}"))?
            }
            "--expect" => options.expect = Some(value),
            _ => return Err(format!("unknown flag {flag:?}; {}", usage())),
        }
    }
    if options.command.is_empty() {
        return Err(format!("no server command; {}", usage()));
    }
    Ok(options)
}

fn spawn_local(future: LocalBoxFuture<'static, ()>) {
    tokio::task::spawn_local(future);
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// CPU time used so far by every thread of process `pid` (`self` for this one), in ns, from
/// `/proc/PID/task/*/schedstat`; `None` where /proc is missing. Read the same way by
/// `bench/ts-client.mjs`, so the two clients' CPU figures compare like for like.
fn cpu_ns(pid: &str) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0;
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        total += stat
            .split_whitespace()
            .next()
            .and_then(|ns| ns.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Some(total)
}

/// The pid of our only child, the server (the transport keeps its `Child` private).
fn server_pid() -> Option<String> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    tasks.flatten().find_map(|task| {
        let children = std::fs::read_to_string(task.path().join("children")).ok()?;
        children.split_whitespace().next().map(str::to_owned)
    })
}

/// Wall time and the CPU time of both processes over one timed section.
struct Section {
    server: Option<String>,
    wall: Instant,
    client_cpu: Option<u64>,
    server_cpu: Option<u64>,
}

impl Section {
    fn start(server: &Option<String>) -> Section {
        let server_cpu = server.as_deref().and_then(cpu_ns);
        let client_cpu = cpu_ns("self");
        Section {
            server: server.clone(),
            client_cpu,
            server_cpu,
            // Last, so reading /proc stays outside the timed window.
            wall: Instant::now(),
        }
    }

    fn finish(self, calls: usize) -> Value {
        let wall = self.wall.elapsed();
        let used = |before: Option<u64>, now: Option<u64>| match (before, now) {
            (Some(b), Some(n)) => json!(n.saturating_sub(b) as f64 / 1e6),
            _ => Value::Null,
        };
        let client = used(self.client_cpu, cpu_ns("self"));
        let server = used(self.server_cpu, self.server.as_deref().and_then(cpu_ns));
        json!({"calls": calls, "wall_ms": millis(wall), "client_cpu_ms": client, "server_cpu_ms": server})
    }
}

/// One `tools/call`, checked: an error or a text other than the expected one fails the run, so
/// a broken server cannot make a client look fast.
async fn call(client: &McpClient, options: &Options) -> Result<(), String> {
    let output = client
        .call_tool(&options.tool, options.args.clone(), CallOptions::default())
        .await
        .map_err(|e| format!("tools/call failed: {e}"))?;
    if output.is_error {
        return Err(format!("tools/call returned isError: {output:?}"));
    }
    if let Some(expect) = &options.expect {
        match output.content.first() {
            Some(ContentBlock::Text { text }) if text == expect => {}
            other => return Err(format!("expected text {expect:?}, got {other:?}")),
        }
    }
    Ok(())
}

/// `count` calls in flight at once on one connection, all awaited together.
async fn batch(client: &McpClient, options: &Options, count: usize) -> Result<(), String> {
    let calls = (0..count).map(|_| call(client, options));
    join_all(calls).await.into_iter().collect()
}

async fn run(options: Options) -> Result<Value, String> {
    let spec = StdioCommand {
        command: options.command[0].clone(),
        args: options.command[1..].to_vec(),
        ..StdioCommand::default()
    };

    // Connect + list: from just before the spawn to the tool list in hand.
    let started = Instant::now();
    let transport = StdioTransport::spawn("bench", &spec)?;
    let (client, _details) =
        McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local)
            .await
            .map_err(|e| format!("connect failed: {e}"))?;
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    let connect_list = started.elapsed();
    if !tools
        .iter()
        .any(|t| t.get("name").and_then(Value::as_str) == Some(options.tool.as_str()))
    {
        return Err(format!("the server has no tool {:?}", options.tool));
    }

    // Warm-up, untimed: sequential calls, then concurrent batches.
    for _ in 0..options.warmup {
        call(&client, &options).await?;
    }
    for _ in 0..options.warmup_rounds {
        batch(&client, &options, options.conc).await?;
    }

    let server = server_pid();
    let section = Section::start(&server);
    for _ in 0..options.seq {
        call(&client, &options).await?;
    }
    let seq = section.finish(options.seq);

    let mut rounds = Vec::with_capacity(options.rounds);
    for _ in 0..options.rounds {
        let section = Section::start(&server);
        batch(&client, &options, options.conc).await?;
        rounds.push(section.finish(options.conc));
    }

    client.close("benchmark finished");
    Ok(json!({
        "client": "agentwire",
        "tools": tools.len(),
        "connect_list_ms": millis(connect_list),
        "seq": seq,
        "conc": rounds,
    }))
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("mcp_bench: {message}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp_bench: cannot start the async runtime: {error}");
            std::process::exit(2);
        }
    };
    // The same setup as the `agentwire` binary: one thread, the core's !Send futures in a LocalSet.
    let local = tokio::task::LocalSet::new();
    let result = runtime.block_on(local.run_until(run(options)));
    // Let the driver close the server's stdin and reap it.
    runtime.block_on(async {
        let _ = tokio::time::timeout(Duration::from_secs(5), local).await;
    });
    match result {
        Ok(report) => println!("{report}"),
        Err(message) => {
            eprintln!("mcp_bench: {message}");
            std::process::exit(1);
        }
    }
}
