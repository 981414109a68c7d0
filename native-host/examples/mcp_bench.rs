//! The agentwire side of `bench/run`: spawns an MCP server over stdio, then times connect +
//! `tools/list`, sequential `tools/call` round trips and batches of concurrent calls, and prints
//! one JSON object. `bench/ts-client.mjs` does the same with the TypeScript SDK; both take the
//! same flags, so the two clients measure exactly the same operations against the same command.
//!
//! ```text
//! mcp_bench [--seq N] [--conc N] [--rounds R] [--warmup N] [--warmup-rounds R] [--connects K]
//!           [--tool NAME] [--args JSON] [--expect TEXT] -- COMMAND [ARG...]
//! ```

use agentwire::content::ContentBlock;
use agentwire::driver::McpClient;
use agentwire::mcp::{CallOptions, SessionConfig};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::stdio::{StdioCommand, StdioTransport};
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
    connects: usize,
    tool: String,
    args: Value,
    expect: Option<String>,
    command: Vec<String>,
}

fn usage() -> String {
    "usage: mcp_bench [--seq N] [--conc N] [--rounds R] [--warmup N] [--warmup-rounds R] \
     [--connects K] [--tool NAME] [--args JSON] [--expect TEXT] -- COMMAND [ARG...]"
        .to_owned()
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        seq: 2000,
        conc: 1000,
        rounds: 10,
        warmup: 200,
        warmup_rounds: 2,
        connects: 3,
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
            "--connects" => options.connects = number()?,
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

/// Scheduler time of every thread of process `pid` (`self` for this one) so far, in ns, from
/// `/proc/PID/task/*/schedstat`: `[on a CPU, runnable but waiting for one]`. `None` where /proc
/// is missing. `bench/ts-client.mjs` reads it the same way, so the figures compare like for like.
fn sched_ns(pid: &str) -> Option<[u64; 2]> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = [0, 0];
    for task in tasks.flatten() {
        // A thread may end between the listing and the read: it then counts as nothing.
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        let mut fields = stat
            .split_whitespace()
            .map(|f| f.parse::<u64>().unwrap_or(0));
        total[0] += fields.next().unwrap_or(0);
        total[1] += fields.next().unwrap_or(0);
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

/// Wall time and the scheduler times of both processes over one timed section.
struct Section {
    server: Option<String>,
    wall: Instant,
    client: Option<[u64; 2]>,
    server_sched: Option<[u64; 2]>,
}

impl Section {
    fn start(server: &Option<String>) -> Section {
        let server_sched = server.as_deref().and_then(sched_ns);
        let client = sched_ns("self");
        Section {
            server: server.clone(),
            client,
            server_sched,
            // Last, so reading /proc stays outside the timed window.
            wall: Instant::now(),
        }
    }

    fn finish(self, calls: usize) -> Value {
        let wall = self.wall.elapsed();
        let client = sched_ns("self");
        let server = self.server.as_deref().and_then(sched_ns);
        let used = |before: Option<[u64; 2]>, now: Option<[u64; 2]>, i: usize| match (before, now) {
            (Some(b), Some(n)) => json!(n[i].saturating_sub(b[i]) as f64 / 1e6),
            _ => Value::Null,
        };
        json!({
            "calls": calls,
            "wall_ms": millis(wall),
            "client_cpu_ms": used(self.client, client, 0),
            "client_runq_ms": used(self.client, client, 1),
            "server_cpu_ms": used(self.server_sched, server, 0),
            "server_runq_ms": used(self.server_sched, server, 1),
        })
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

/// Spawns the server, connects and lists its tools: the "connect + list" operation.
async fn connect_and_list(spec: &StdioCommand) -> Result<(McpClient, Vec<Value>), String> {
    let transport = StdioTransport::spawn("bench", spec)?;
    let (client, _details) =
        McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local)
            .await
            .map_err(|e| format!("connect failed: {e}"))?;
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    Ok((client, tools))
}

/// Waits (at most 10 s) until process `pid` has exited and been reaped by the transport.
async fn wait_gone(pid: &str) {
    let path = format!("/proc/{pid}");
    for _ in 0..2000 {
        if !std::path::Path::new(&path).exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn run(options: Options) -> Result<Value, String> {
    let spec = StdioCommand {
        command: options.command[0].clone(),
        args: options.command[1..].to_vec(),
        ..StdioCommand::default()
    };

    // Connect + list, `--connects` times: each a fresh server, timed from just before the spawn
    // to the tool list in hand. All but the last connection are closed, and their server has
    // exited, before the next sample; the last one serves the calls.
    let mut connects = Vec::new();
    let (client, tools) = loop {
        let started = Instant::now();
        let (client, tools) = connect_and_list(&spec).await?;
        connects.push(millis(started.elapsed()));
        if connects.len() >= options.connects.max(1) {
            break (client, tools);
        }
        let pid = server_pid();
        client.close("next connect sample");
        drop(client);
        if let Some(pid) = pid {
            wait_gone(&pid).await;
        }
    };
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
        "connect_list_ms": connects,
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
