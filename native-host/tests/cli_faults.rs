//! `agentwire mcp call` against misbehaving server processes: hangs, crashes mid-call, junk on
//! stdout, a stderr flood, byte-at-a-time writes, a 20 MB result, and a server that pings back
//! in the middle of a call. Every test also checks that no server process outlives the CLI.

mod common;

use common::Project;
use serde_json::json;
use std::time::Duration;

#[test]
fn hung_call_times_out_at_the_configured_timeout() {
    let mut project = Project::new();
    project.fixture_with("hang", "hang.mjs", &[], json!({"timeout": 700}));
    let out = project.run(&["mcp", "call", "hang", "echo", r#"{"text":"x"}"#]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("error: mcp__hang__echo timed out after 700 ms"),
        "{}",
        out.stderr
    );
    assert!(
        out.elapsed >= Duration::from_millis(700),
        "{:?}",
        out.elapsed
    );
    // Start (~0.2 s) + 0.7 s + an orderly stop; a stop that needed SIGTERM would add 2 s.
    assert!(
        out.elapsed < Duration::from_millis(2500),
        "{:?}",
        out.elapsed
    );
    project.assert_no_server_processes();
}

#[test]
fn crash_mid_call_fails_with_exit_status_and_stderr() {
    let mut project = Project::new();
    project.fixture("crash", "crash-call.mjs", &[]);
    let out = project.run(&["mcp", "call", "crash", "echo", r#"{"text":"x"}"#, "--json"]);
    assert_eq!(out.code, 1, "{out:?}");
    let error = out.json()["error"].as_str().unwrap_or_default().to_owned();
    assert!(error.contains("exited with status 7"), "{error}");
    assert!(error.contains("fatal: boom"), "{error}");
    assert!(out.elapsed < Duration::from_secs(2), "{:?}", out.elapsed);
    project.assert_no_server_processes();
}

#[test]
fn junk_between_messages_does_not_break_calls() {
    let mut project = Project::new();
    project.fixture("noisy", "garbage.mjs", &["--tag", "noisy"]);
    let out = project.run(&[
        "mcp",
        "call",
        "noisy",
        "add",
        r#"{"a":20,"b":22}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["structuredContent"], json!({"sum": 42}));
    assert_eq!(out.json()["content"][0]["text"], "[noisy] 42");
    project.assert_no_server_processes();
}

#[test]
fn stderr_flood_does_not_stall_the_server() {
    let mut project = Project::new();
    project.fixture("flood", "stderr-flood.mjs", &["--mb", "10"]);
    // `sleep` keeps the server busy long enough for much of the flood to go out first.
    let out = project.run(&["mcp", "call", "flood", "sleep", r#"{"ms":300}"#, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["content"][0]["text"], "slept 300 ms");
    assert!(out.elapsed < Duration::from_secs(5), "{:?}", out.elapsed);
    // The server's stderr is kept for diagnostics, not copied to ours.
    assert!(
        out.stderr.len() < 10_000,
        "{} bytes on stderr",
        out.stderr.len()
    );
    project.assert_no_server_processes();
}

#[test]
fn byte_at_a_time_responses_are_reassembled() {
    let mut project = Project::new();
    project.fixture("bytes", "byte-by-byte.mjs", &["--delay-ms", "1"]);
    let out = project.run(&[
        "mcp",
        "call",
        "bytes",
        "echo",
        r#"{"text":"héllo, 世界"}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json(),
        json!({"content": [{"type": "text", "text": "héllo, 世界"}], "isError": false})
    );
    project.assert_no_server_processes();
}

#[test]
fn a_20_mb_result_comes_through_whole_on_mcp_call() {
    let mut project = Project::new();
    project.fixture("big", "big-result.mjs", &[]);
    // `mcp call` is the user's own call: the output is printed whole (only the model's view is
    // truncated; see faults_big.rs).
    let out = project.run(&["mcp", "call", "big", "big"]);
    assert_eq!(out.code, 0, "code {} stderr {}", out.code, out.stderr);
    let text = out.stdout.trim_end_matches('\n');
    assert_eq!(text.len(), 20 * 1024 * 1024);
    assert!(text.starts_with("0123456789012"), "{}", &text[..20]);
    assert!(text.bytes().all(|b| b.is_ascii_digit()));
    project.assert_no_server_processes();
}

#[test]
fn server_ping_and_notifications_mid_call_work() {
    let mut project = Project::new();
    project.fixture("chatty", "chatty.mjs", &[]);
    let out = project.run(&["mcp", "call", "chatty", "work", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json(),
        json!({"content": [{"type": "text", "text": "work done after ping"}], "isError": false})
    );
    project.assert_no_server_processes();
}

#[test]
fn a_wrapper_and_everything_it_started_are_stopped_at_exit() {
    // Servers are often started through wrappers (`sh -c`, `npx`). This one outlives the server:
    // when the server exits (stdin closed) it waits on a helper process, so agentwire has to
    // signal it, and the signal must reach the helper too, not only the wrapper.
    let mut project = Project::new();
    let helper_pid = project.path().join("helper.pid");
    let script = format!(
        "node '{}' --pid-file '{}'; sleep 30 & echo $! > '{}'; wait",
        common::fixture("normal.mjs"),
        project.path().join("server.pid").display(),
        helper_pid.display()
    );
    project.entry("wrapped", json!({"command": "sh", "args": ["-c", script]}));
    let out = project.run(&[
        "mcp",
        "call",
        "wrapped",
        "echo",
        r#"{"text":"x"}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["content"][0]["text"], "x");
    let read_pid = |path: &std::path::Path| -> i32 {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(|| panic!("{} was not written", path.display()))
    };
    let context = format!("agentwire ran {:?}, stderr: {}", out.elapsed, out.stderr);
    let server = read_pid(&project.path().join("server.pid"));
    common::assert_process_not_running(server, &format!("the server ({context})"));
    let helper = read_pid(&helper_pid);
    common::assert_process_not_running(helper, &format!("the wrapper's helper ({context})"));
    // 2 s for the wrapper to exit on its own, then SIGTERM.
    assert!(out.elapsed < Duration::from_secs(4), "{:?}", out.elapsed);
}

#[test]
fn one_broken_server_does_not_affect_the_others() {
    let mut project = Project::new();
    project
        .fixture("broken", "crash-start.mjs", &[])
        .fixture("crash", "crash-call.mjs", &[])
        .fixture("hang", "hang.mjs", &[])
        .fixture("noisy", "garbage.mjs", &[])
        .fixture("bytes", "byte-by-byte.mjs", &[])
        .fixture("flood", "stderr-flood.mjs", &[])
        .fixture("chatty", "chatty.mjs", &[])
        .fixture("alpha", "normal.mjs", &[]);
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();
    for entry in list["servers"].as_array().into_iter().flatten() {
        common::assert_server_shape(entry);
        let expected = if entry["name"] == "broken" {
            "failed"
        } else {
            "connected"
        };
        assert_eq!(entry["status"], expected, "{entry}");
    }
    assert_eq!(list["servers"].as_array().map(Vec::len), Some(8));
    assert_eq!(
        common::tool_names(common::server_entry(&list, "chatty")).len(),
        5
    );
    project.assert_no_server_processes();
}
