//! Library-level fault tests: `StdioTransport` + `McpClient` (and `Runtime`) against real
//! fixture processes on a current-thread runtime, for the timing-sensitive behaviour.

mod common;

use agentwire::mcp::{CallOptions, RequestError, SessionEvent};
use common::lib_host::{connect, local, runtime, session, Recorder};
use serde_json::json;
use std::time::{Duration, Instant};

const DEFAULT: Duration = Duration::from_secs(10);

fn text_of(output: &agentwire::content::ToolOutput) -> String {
    output.to_model_text()
}

#[test]
fn crash_mid_call_fails_the_pending_calls_fast_with_status_and_stderr() {
    local(async {
        let crash = connect("crash", "crash-call.mjs", &[], session(DEFAULT)).await;
        let started = Instant::now();
        // Two calls in flight: both must fail when the process dies, neither waits for a timeout.
        let first = crash
            .client
            .call_tool("echo", json!({"text": "a"}), CallOptions::default());
        let second = crash
            .client
            .call_tool("sleep", json!({"ms": 50}), CallOptions::default());
        let (first, second) = futures::join!(first, second);
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");
        for result in [first, second] {
            match result {
                Err(RequestError::Closed(reason)) => {
                    assert!(reason.contains("exited with status 7"), "{reason}");
                    assert!(reason.contains("fatal: boom"), "{reason}");
                    assert!(reason.contains("\"crash\""), "names the server: {reason}");
                }
                other => panic!("expected a closed connection, got {other:?}"),
            }
        }
        // Later calls fail at once with the same reason.
        let started = Instant::now();
        let later = crash
            .client
            .call_tool("echo", json!({"text": "b"}), CallOptions::default())
            .await;
        assert!(started.elapsed() < Duration::from_millis(50));
        assert!(
            matches!(&later, Err(RequestError::Closed(r)) if r.contains("exited with status 7")),
            "{later:?}"
        );
        assert_eq!(
            crash
                .client
                .closed_reason()
                .map(|r| r.contains("fatal: boom")),
            Some(true)
        );
    });
}

#[test]
fn hung_call_times_out_while_other_servers_answer() {
    local(async {
        let timeout = Duration::from_millis(800);
        let (hang, normal) = futures::join!(
            connect("hang", "hang.mjs", &[], session(timeout)),
            connect("normal", "normal.mjs", &["--tag", "n"], session(timeout))
        );
        let started = Instant::now();
        let hung = async {
            let result = hang
                .client
                .call_tool("echo", json!({"text": "never"}), CallOptions::default())
                .await;
            (result, started.elapsed())
        };
        let others = async {
            let mut done = Vec::new();
            for i in 0..5 {
                let output = normal
                    .client
                    .call_tool(
                        "echo",
                        json!({"text": format!("call {i}")}),
                        CallOptions::default(),
                    )
                    .await
                    .expect("the normal server answers");
                done.push((text_of(&output), started.elapsed()));
            }
            let slept = normal
                .client
                .call_tool("sleep", json!({"ms": 200}), CallOptions::default())
                .await
                .expect("sleep answers");
            done.push((text_of(&slept), started.elapsed()));
            done
        };
        let ((hung, hung_after), done) = futures::join!(hung, others);
        for (i, (text, at)) in done.iter().take(5).enumerate() {
            assert_eq!(text, &format!("[n] call {i}"));
            assert!(*at < Duration::from_millis(400), "call {i} waited {at:?}");
        }
        assert_eq!(done[5].0, "[n] slept 200 ms");
        assert!(done[5].1 < Duration::from_millis(700), "{:?}", done[5].1);

        match hung {
            Err(RequestError::Timeout { method, waited }) => {
                assert_eq!(method, "tools/call");
                assert!(waited >= timeout, "{waited:?}");
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
        // The core's clock counts whole milliseconds, so a deadline may fire up to 1 ms early.
        assert!(
            hung_after + Duration::from_millis(2) >= timeout,
            "{hung_after:?}"
        );
        assert!(
            hung_after < timeout + Duration::from_millis(700),
            "{hung_after:?}"
        );

        // The hung server is still connected (only that call failed) and was told to give up.
        hang.client
            .request("ping", None, CallOptions::default())
            .await
            .expect("the hung server still answers ping");
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let lines = hang.stderr.lock().map(|t| t.last(20)).unwrap_or_default();
            if lines.iter().any(|l| l.contains("fixture: cancelled")) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no notifications/cancelled: {lines:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // A per-call timeout overrides the session's.
        let started = Instant::now();
        let short = CallOptions {
            timeout: Some(Duration::from_millis(200)),
            max_total: None,
        };
        let result = hang.client.call_tool("echo", json!({}), short).await;
        assert!(
            matches!(result, Err(RequestError::Timeout { .. })),
            "{result:?}"
        );
        let elapsed = started.elapsed();
        assert!(
            elapsed >= Duration::from_millis(198) && elapsed < Duration::from_millis(700),
            "{elapsed:?}"
        );
    });
}

#[test]
fn stderr_flood_does_not_slow_calls() {
    local(async {
        let flood = connect(
            "flood",
            "stderr-flood.mjs",
            &["--mb", "10"],
            session(DEFAULT),
        )
        .await;
        let started = Instant::now();
        const CALLS: usize = 100;
        for i in 0..CALLS {
            let output = flood
                .client
                .call_tool(
                    "echo",
                    json!({"text": format!("#{i}")}),
                    CallOptions::default(),
                )
                .await
                .unwrap_or_else(|e| panic!("call {i} failed: {e}"));
            assert_eq!(text_of(&output), format!("#{i}"));
        }
        let calls = started.elapsed();
        let during = flood.stderr.lock().map(|t| t.total_bytes()).unwrap_or(0);
        eprintln!("{CALLS} calls in {calls:?}; {during} bytes of stderr drained by then");
        // Wait for the whole flood to be drained: if stderr were not read, the server would have
        // blocked on the full pipe long before and the calls above would have stalled.
        let deadline = Instant::now() + Duration::from_secs(10);
        let total = loop {
            let total = flood.stderr.lock().map(|t| t.total_bytes()).unwrap_or(0);
            if total >= 10 * 1024 * 1024 || Instant::now() > deadline {
                break total;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(
            total >= 10 * 1024 * 1024,
            "only {total} bytes of stderr drained"
        );
        assert!(
            calls < Duration::from_secs(5),
            "{CALLS} calls took {calls:?}"
        );
        // The kept tail is bounded however much the server wrote.
        let kept = flood
            .stderr
            .lock()
            .map(|t| t.last(usize::MAX))
            .unwrap_or_default();
        let kept_bytes: usize = kept.iter().map(String::len).sum();
        assert!(
            kept.len() <= 200 && kept_bytes <= 64 * 1024,
            "{} lines",
            kept.len()
        );
        // The client still works after the flood.
        flood
            .client
            .call_tool("echo", json!({"text": "after"}), CallOptions::default())
            .await
            .expect("a call after the flood");
    });
}

#[test]
fn byte_at_a_time_responses_work() {
    local(async {
        // The handshake and tools/list arrive byte by byte too.
        let bytes = connect("bytes", "byte-by-byte.mjs", &[], session(DEFAULT)).await;
        let tools = bytes.client.list_tools().await.expect("tools/list");
        assert_eq!(tools.len(), 4);
        let long = "ab€𝄞".repeat(500);
        let calls = (0..4).map(|i| {
            let client = bytes.client.clone();
            let text = format!("{i}:{long}");
            async move {
                let output = client
                    .call_tool(
                        "echo",
                        json!({"text": text.clone()}),
                        CallOptions::default(),
                    )
                    .await
                    .expect("echo");
                assert_eq!(text_of(&output), text, "call {i} got another call's answer");
            }
        });
        futures::future::join_all(calls).await;
        let output = bytes
            .client
            .call_tool("add", json!({"a": 1.5, "b": 2}), CallOptions::default())
            .await
            .expect("add");
        assert_eq!(output.structured_content, Some(json!({"sum": 3.5})));
    });
}

#[test]
fn chatty_server_notifications_and_ping_mid_call() {
    local(async {
        let chatty = connect("chatty", "chatty.mjs", &[], session(DEFAULT)).await;
        let mut events = chatty
            .client
            .take_events()
            .expect("events are available once");
        let output = chatty
            .client
            .call_tool("work", json!({}), CallOptions::default())
            .await
            .expect("the call completes after the server's ping");
        assert!(!output.is_error);
        assert_eq!(text_of(&output), "work done after ping");

        let mut progress = Vec::new();
        let (mut logs, mut changed) = (Vec::new(), 0);
        while let Ok(event) = events.try_recv() {
            match event {
                SessionEvent::Progress {
                    progress: p, total, ..
                } => progress.push((p, total)),
                SessionEvent::Log { level, data, .. } => logs.push((level, data)),
                SessionEvent::ToolsListChanged => changed += 1,
                SessionEvent::ServerRequest { method, .. } => {
                    panic!("ping must be answered by the session itself, got {method}")
                }
                _ => {}
            }
        }
        assert_eq!(
            progress,
            [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))],
            "progress is routed to the call by its token"
        );
        assert_eq!(logs, [("info".to_owned(), json!("working hard"))]);
        assert_eq!(changed, 1);
        let names: Vec<String> = chatty
            .client
            .list_tools()
            .await
            .expect("tools/list")
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        assert!(names.contains(&"late_tool".to_owned()), "{names:?}");
    });
}

#[test]
fn runtime_refreshes_tools_after_list_changed_mid_call() {
    local(async {
        let chatty = connect("chatty", "chatty.mjs", &[], session(DEFAULT)).await;
        let runtime = runtime();
        let count = runtime
            .add_server("chatty", chatty.client.clone())
            .await
            .expect("register chatty");
        assert_eq!(count, 5);
        let recorder = Recorder::default();
        let call = runtime
            .call_tool("mcp__chatty__work", json!({}), &recorder)
            .await
            .expect("the call is allowed");
        assert_eq!(call.shaped.text, "work done after ping");
        assert!(!call.shaped.is_error);
        runtime.refresh_servers(&recorder).await;
        let has_late =
            runtime.with_agent(|agent| agent.registry().get("mcp__chatty__late_tool").is_some());
        assert!(has_late, "late_tool registered after list_changed");
        assert_eq!(
            recorder.notices.borrow().as_slice(),
            ["MCP server chatty changed its tools: now 6"]
        );
        assert!(
            runtime
                .server_log("chatty")
                .iter()
                .any(|l| l == "[info] working hard"),
            "{:?}",
            runtime.server_log("chatty")
        );
        let late = runtime
            .call_tool("mcp__chatty__late_tool", json!({}), &recorder)
            .await
            .expect("late_tool is callable");
        assert_eq!(late.shaped.text, "late");
        runtime.close();
    });
}

#[test]
fn junk_on_stdout_is_reported_and_skipped() {
    local(async {
        let noisy = connect("noisy", "garbage.mjs", &["--tag", "g"], session(DEFAULT)).await;
        let mut events = noisy.client.take_events().expect("events");
        for i in 0..10 {
            let output = noisy
                .client
                .call_tool("add", json!({"a": i, "b": 1}), CallOptions::default())
                .await
                .unwrap_or_else(|e| panic!("call {i}: {e}"));
            assert_eq!(output.structured_content, Some(json!({"sum": i + 1})));
        }
        let (mut protocol_errors, mut unexpected) = (0, 0);
        while let Ok(event) = events.try_recv() {
            match event {
                SessionEvent::ProtocolError { .. } => protocol_errors += 1,
                SessionEvent::UnexpectedResponse { .. } => unexpected += 1,
                SessionEvent::Closed { reason } => panic!("closed: {reason}"),
                _ => {}
            }
        }
        assert!(
            protocol_errors > 0,
            "junk lines are reported, not silently eaten"
        );
        assert!(unexpected > 0, "the response to id 999999 is reported");
        assert!(noisy.client.closed_reason().is_none());
    });
}

#[test]
fn same_tool_name_on_two_servers_reaches_the_right_one() {
    local(async {
        let (alpha, beta) = futures::join!(
            connect("alpha", "normal.mjs", &["--tag", "alpha"], session(DEFAULT)),
            connect("beta", "normal.mjs", &["--tag", "beta"], session(DEFAULT))
        );
        let runtime = runtime();
        assert_eq!(runtime.add_server("alpha", alpha.client).await, Ok(4));
        assert_eq!(runtime.add_server("beta", beta.client).await, Ok(4));
        let recorder = Recorder::default();
        let (a, b) = futures::join!(
            runtime.call_tool("mcp__alpha__echo", json!({"text": "x"}), &recorder),
            runtime.call_tool("mcp__beta__echo", json!({"text": "x"}), &recorder)
        );
        assert_eq!(a.expect("alpha").shaped.text, "[alpha] x");
        assert_eq!(b.expect("beta").shaped.text, "[beta] x");
        let servers: Vec<Option<String>> = recorder
            .audit
            .borrow()
            .iter()
            .map(|r| r.server.clone())
            .collect();
        assert_eq!(servers.len(), 2);
        assert!(servers.contains(&Some("alpha".into())) && servers.contains(&Some("beta".into())));
        runtime.close();
    });
}

#[test]
fn a_server_that_crashes_at_start_fails_connect_with_its_reason() {
    local(async {
        let spec = agentwire_host::transport::stdio::StdioCommand {
            command: "node".into(),
            args: vec![common::fixture("crash-start.mjs")],
            ..Default::default()
        };
        let transport = agentwire_host::transport::stdio::StdioTransport::spawn("boom", &spec)
            .expect("the process itself starts");
        let started = Instant::now();
        let result = agentwire::driver::McpClient::connect(
            session(DEFAULT),
            transport,
            agentwire_host::os::clock::TokioClock,
            |f| {
                tokio::task::spawn_local(f);
            },
        )
        .await;
        let error = match result {
            Ok(_) => panic!("connect must fail"),
            Err(error) => error.to_string(),
        };
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        assert!(error.contains("exited with status 3"), "{error}");
        assert!(error.contains("FIXTURE_API_KEY"), "{error}");
    });
}

#[test]
fn the_last_stderr_line_before_a_crash_is_always_in_the_reason() {
    // Thousands of stderr lines then the crash: when the exit is seen, the stderr reader may
    // still be behind by a pipe's worth of lines. The reason must wait for it, not race it.
    local(async {
        use agentwire::driver::Transport;
        let script = "exec 1>&-; i=0; while [ $i -lt 4000 ]; do \
                      echo \"noise $i: a line of chatter on stderr\" >&2; i=$((i+1)); done; \
                      echo 'fatal: boom' >&2; exit 7";
        for _ in 0..3 {
            let spec = agentwire_host::transport::stdio::StdioCommand {
                command: "sh".into(),
                args: vec!["-c".into(), script.into()],
                ..Default::default()
            };
            let transport =
                agentwire_host::transport::stdio::StdioTransport::spawn("chatty", &spec)
                    .expect("sh starts");
            assert!(transport.recv().await.is_none(), "stdout is closed");
            let reason = transport.closed_reason().await;
            assert!(reason.contains("exited with status 7"), "{reason}");
            assert!(reason.ends_with("fatal: boom"), "{reason}");
        }
    });
}
