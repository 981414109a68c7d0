//! Servers that flood the client with notifications no request waits for, as real processes:
//! the session still answers, the drops are counted and reported, and the CLI still exits in
//! the documented shutdown order although the server never stops flooding.

mod common;

use agentwire::driver::McpClient;
use agentwire::mcp::{CallOptions, SessionConfig, SessionEvent};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use common::lib_host::{block_on, spawn_local};
use common::Project;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn the_cli_answers_reports_drops_and_exits_while_a_stdio_server_floods() {
    let mut project = Project::new();
    // Keeps flooding after its stdin closes and ignores SIGTERM: only SIGKILL stops it.
    project.fixture(
        "flood",
        "flood.mjs",
        &["--after-eof", "flood", "--ignore-term", "1"],
    );
    let out = project.run(&[
        "--allow",
        "mcp__flood__*",
        "run",
        r#"call sleep {"ms": 1500}"#,
    ]);
    assert_eq!(
        out.code, 0,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    assert!(out.stdout.contains("slept 1500 ms"), "{}", out.stdout);
    assert!(
        out.stderr.contains("MCP server flood: dropped") && out.stderr.contains("notifications"),
        "the drops are reported: {}",
        out.stderr
    );
    // Start, 1.5 s of call, then close stdin (2 s), SIGTERM (2 s), SIGKILL: well under 15 s.
    assert!(
        out.elapsed < Duration::from_secs(15),
        "took {:?}",
        out.elapsed
    );
    project.assert_no_server_processes();
}

#[test]
fn a_flooding_sse_stream_leaves_calls_answered_and_counts_what_nobody_read() {
    let mut server = Command::new("node")
        .arg(common::fixture("sse-flood.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the SSE flood server");
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("its stdout"))
        .read_line(&mut line)
        .expect("its address");
    let hello: Value = serde_json::from_str(&line).expect("a JSON line with the address");
    let url = hello["url"].as_str().expect("the url").to_owned();
    block_on(async move {
        let transport = HttpTransport::connect(&url, Vec::new()).expect("a valid URL");
        let finished = transport.finished();
        let (client, _) =
            McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local)
                .await
                .expect("the handshake while the stream floods");
        // Nobody reads the event stream; the flood goes on between the calls.
        for i in 0..5 {
            let out = client
                .call_tool(
                    "echo",
                    json!({"text": format!("hi {i}")}),
                    CallOptions::default(),
                )
                .await
                .expect("the flooded session still answers");
            assert_eq!(out.to_model_text(), format!("hi {i}"));
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(
            client.dropped_events() > 0,
            "the flood was dropped and counted"
        );
        let mut events = client.take_events().expect("the event stream");
        assert!(events.len() <= agentwire::driver::EVENT_QUEUE_CAPACITY);
        assert!(matches!(
            events.try_recv(),
            Ok(SessionEvent::EventsDropped { count }) if count > 0
        ));
        client.close("test done");
        tokio::time::timeout(Duration::from_secs(5), finished)
            .await
            .expect("the transport stops although the stream still floods");
    });
    let _ = server.kill();
    let _ = server.wait();
}
