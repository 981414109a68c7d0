//! `agentwire mcp list` and `agentwire mcp call` against real fixture server processes: JSON
//! shapes, exit codes, the failed-to-connect line, concurrent start-up, `--deny` with the audit
//! log, and no server process left behind.

mod common;

use common::{assert_server_shape, server_entry, tool_names, Project};
use serde_json::{json, Value};
use std::time::Duration;

const NORMAL_TOOLS: [&str; 4] = ["echo", "add", "sleep", "fail"];

fn namespaced(server: &str) -> Vec<String> {
    NORMAL_TOOLS
        .iter()
        .map(|t| format!("mcp__{server}__{t}"))
        .collect()
}

#[test]
fn mcp_list_json_reports_every_server_with_its_status_and_tools() {
    let mut project = Project::new();
    project
        .fixture("alpha", "normal.mjs", &["--tag", "alpha"])
        .fixture("beta", "normal.mjs", &["--tag", "beta"])
        .fixture("broken", "crash-start.mjs", &[])
        .fixture("noisy", "garbage.mjs", &[])
        .fixture_with("off", "normal.mjs", &[], json!({"disabled": true}));
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(
        out.code, 0,
        "a failed server does not fail the listing: {out:?}"
    );
    let list = out.json();
    let servers = list["servers"].as_array().expect("servers array");
    let mut names: Vec<&str> = servers.iter().filter_map(|s| s["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["alpha", "beta", "broken", "noisy", "off"]);
    for entry in servers {
        assert_server_shape(entry);
    }

    // Two servers with the same tool names: both sets are there, apart by their namespace.
    for name in ["alpha", "beta", "noisy"] {
        let entry = server_entry(&list, name);
        assert_eq!(entry["status"], "connected", "{entry}");
        assert_eq!(tool_names(entry), namespaced(name));
        let originals: Vec<&str> = entry["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["original_name"].as_str())
            .collect();
        assert_eq!(originals, NORMAL_TOOLS);
    }

    let broken = server_entry(&list, "broken");
    assert_eq!(broken["status"], "failed");
    assert_eq!(broken["tools"], json!([]));
    let error = broken["error"].as_str().unwrap_or_default();
    assert!(error.contains("exited with status 3"), "{error}");
    assert!(
        error.contains("fatal: cannot start: missing configuration FIXTURE_API_KEY"),
        "the reason carries the server's stderr: {error}"
    );

    let off = server_entry(&list, "off");
    assert_eq!(off["status"], "disabled");
    assert_eq!(off["tools"], json!([]));
    assert_eq!(
        project.pid("off"),
        None,
        "a disabled server is never started"
    );

    // `--json` keeps the startup lines off stderr, so scripts can parse stdout alone.
    assert!(!out.stderr.contains("MCP server"), "{}", out.stderr);
    project.assert_no_server_processes();
}

#[test]
fn failed_server_prints_the_continuing_without_line_on_stderr() {
    let mut project = Project::new();
    project
        .fixture("alpha", "normal.mjs", &[])
        .fixture("broken", "crash-start.mjs", &[]);
    let out = project.run(&["mcp", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("MCP server broken failed to connect: "))
        .unwrap_or_else(|| panic!("no failed-to-connect line in stderr:\n{}", out.stderr));
    assert!(
        line.ends_with(". Continuing without broken tools."),
        "{line}"
    );
    assert!(line.contains("exited with status 3"), "{line}");
    assert!(
        out.stderr
            .contains("MCP server alpha connected with 4 tools"),
        "{}",
        out.stderr
    );
    // The human listing goes to stdout.
    assert!(
        out.stdout.contains("alpha: connected, 4 tools"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("broken: failed"), "{}", out.stdout);
    project.assert_no_server_processes();
}

#[test]
fn mcp_call_json_prints_the_mcp_result_and_sets_the_exit_code() {
    let mut project = Project::new();
    project
        .fixture("alpha", "normal.mjs", &["--tag", "alpha"])
        .fixture("beta", "normal.mjs", &["--tag", "beta"]);

    let out = project.run(&["mcp", "call", "alpha", "echo", r#"{"text":"hi"}"#, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json(),
        json!({"content": [{"type": "text", "text": "[alpha] hi"}], "isError": false})
    );

    // Same tool name on the other server: the call reaches that server, not the first one.
    let out = project.run(&["mcp", "call", "beta", "echo", r#"{"text":"hi"}"#, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["content"][0]["text"], "[beta] hi");

    // The namespaced name works too, and structuredContent is passed through.
    let out = project.run(&[
        "mcp",
        "call",
        "beta",
        "mcp__beta__add",
        r#"{"a":2,"b":3}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json(),
        json!({
            "content": [{"type": "text", "text": "[beta] 5"}],
            "isError": false,
            "structuredContent": {"sum": 5}
        })
    );

    // A tool execution error is a result with isError, and exit status 1.
    let out = project.run(&["mcp", "call", "alpha", "fail", "--json"]);
    assert_eq!(out.code, 1, "{out:?}");
    let result = out.json();
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "[alpha] this tool always fails"
    );

    // Human output: the text itself.
    let out = project.run(&["mcp", "call", "alpha", "echo", r#"{"text":"plain"}"#]);
    assert_eq!(
        (out.code, out.stdout.trim()),
        (0, "[alpha] plain"),
        "{out:?}"
    );
    project.assert_no_server_processes();
}

#[test]
fn mcp_call_errors_are_json_with_exit_status_1() {
    let mut project = Project::new();
    project
        .fixture("alpha", "normal.mjs", &[])
        .fixture("broken", "crash-start.mjs", &[]);
    let error_of = |out: &common::CliOutput| -> String {
        assert_eq!(out.code, 1, "{out:?}");
        let value = out.json();
        assert_eq!(value.as_object().map(|o| o.len()), Some(1), "{value}");
        value["error"].as_str().unwrap_or_default().to_owned()
    };

    let out = project.run(&["mcp", "call", "broken", "echo", "--json"]);
    let error = error_of(&out);
    assert!(
        error.starts_with("MCP server broken failed to connect: "),
        "{error}"
    );
    assert!(error.contains("FIXTURE_API_KEY"), "{error}");

    let error = error_of(&project.run(&["mcp", "call", "alpha", "nope", "--json"]));
    assert!(error.contains("no tool named \"nope\""), "{error}");

    let error = error_of(&project.run(&["mcp", "call", "alpha", "echo", "[1]", "--json"]));
    assert!(error.contains("must be a JSON object"), "{error}");

    let error = error_of(&project.run(&["mcp", "call", "alpha", "echo", "{", "--json"]));
    assert!(error.contains("not valid JSON"), "{error}");

    let out = project.run(&["mcp", "call", "ghost", "echo"]);
    assert_eq!(out.code, 2, "an unknown server is a usage error: {out:?}");
    assert!(
        out.stderr.contains("no MCP server named \"ghost\""),
        "{}",
        out.stderr
    );
    project.assert_no_server_processes();
}

#[test]
fn servers_start_concurrently() {
    // Each server needs about 1 s to start. Started one after another, three would take 2 s
    // longer than one; started together, about as long as one. A single slow server measures
    // the CLI's own overhead on this machine right now, so a busy machine does not fail this.
    let mut one = Project::new();
    one.fixture("slow", "normal.mjs", &["--start-delay-ms", "1000"]);
    let single = one.run(&["mcp", "list", "--json"]);
    assert_eq!(single.code, 0, "{single:?}");

    let mut project = Project::new();
    for name in ["slow1", "slow2", "slow3"] {
        project.fixture(name, "normal.mjs", &["--start-delay-ms", "1000"]);
    }
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();
    for name in ["slow1", "slow2", "slow3"] {
        assert_eq!(server_entry(&list, name)["status"], "connected", "{list}");
    }
    eprintln!(
        "startup: one 1 s server {:?}, three 1 s servers {:?}",
        single.elapsed, out.elapsed
    );
    assert!(
        out.elapsed >= Duration::from_millis(1000),
        "the start delay did not happen: {:?}",
        out.elapsed
    );
    assert!(
        out.elapsed < single.elapsed + Duration::from_millis(700),
        "three 1 s start-ups took {:?}, one took {:?}: not concurrent",
        out.elapsed,
        single.elapsed
    );
    assert!(out.elapsed < Duration::from_secs(3), "{:?}", out.elapsed);
    one.assert_no_server_processes();
    project.assert_no_server_processes();
}

#[test]
fn startup_timeout_and_missing_command_fail_only_their_server() {
    let mut project = Project::new();
    project
        .fixture_with(
            "slow",
            "normal.mjs",
            &["--start-delay-ms", "5000"],
            json!({"startupTimeout": 500}),
        )
        .fixture("ok", "normal.mjs", &[])
        .entry(
            "nosuch",
            json!({"command": "/nonexistent/agentwire-test-server"}),
        );
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();
    assert_eq!(server_entry(&list, "ok")["status"], "connected");
    let slow = server_entry(&list, "slow");
    assert_eq!(slow["status"], "failed");
    assert_eq!(
        slow["error"], "server did not answer initialize within 500 ms",
        "{slow}"
    );
    let nosuch = server_entry(&list, "nosuch");
    assert_eq!(nosuch["status"], "failed");
    let error = nosuch["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("could not start `/nonexistent/agentwire-test-server`"),
        "{error}"
    );
    // The slow server ignores stdin while it "starts": it is stopped with SIGTERM after the
    // 2 s grace period, well before its 5 s start would end.
    assert!(out.elapsed < Duration::from_secs(4), "{:?}", out.elapsed);
    project.assert_no_server_processes();
}

#[test]
fn deny_blocks_mcp_call_and_the_audit_log_records_it() {
    let mut project = Project::new();
    project.fixture("alpha", "normal.mjs", &[]);
    let audit = project.path().join("audit.jsonl");
    let audit_arg = audit.display().to_string();

    let out = project.run(&[
        "--deny",
        "mcp__alpha__echo",
        "--audit",
        &audit_arg,
        "mcp",
        "call",
        "alpha",
        "echo",
        r#"{"text":"secret"}"#,
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "nothing ran, nothing printed: {}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("denied by permission rule `deny mcp__alpha__echo`"),
        "{}",
        out.stderr
    );

    // Another tool of the same server is not covered by the rule.
    let out = project.run(&[
        "--deny",
        "mcp__alpha__echo",
        "--audit",
        &audit_arg,
        "mcp",
        "call",
        "alpha",
        "add",
        r#"{"a":1,"b":1}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");

    let text = std::fs::read_to_string(&audit).expect("the audit log exists");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("audit lines are JSON"))
        .collect();
    assert_eq!(records.len(), 2, "one record per call: {text}");
    assert_eq!(records[0]["tool"], "mcp__alpha__echo");
    assert_eq!(records[0]["server"], "alpha");
    assert_eq!(records[0]["outcome"], "denied");
    assert!(
        records[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("deny mcp__alpha__echo")),
        "{}",
        records[0]
    );
    assert_eq!(records[1]["tool"], "mcp__alpha__add");
    assert_eq!(records[1]["outcome"], "ok");
    project.assert_no_server_processes();
}

#[test]
fn tools_json_lists_builtin_and_both_duplicate_servers() {
    let mut project = Project::new();
    project
        .fixture("alpha", "normal.mjs", &[])
        .fixture("beta", "normal.mjs", &[]);
    let out = project.run(&["tools", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let tools = out.json()["tools"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for expected in namespaced("alpha").iter().chain(namespaced("beta").iter()) {
        assert!(
            names.contains(&expected.as_str()),
            "{expected} missing from {names:?}"
        );
    }
    let source = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["source"].clone())
    };
    assert_eq!(source("mcp__alpha__echo"), Some(json!("mcp:alpha")));
    assert_eq!(source("mcp__beta__echo"), Some(json!("mcp:beta")));
    assert!(
        tools.iter().any(|t| t["source"] == "builtin"),
        "built-in tools are listed too: {names:?}"
    );
    project.assert_no_server_processes();
}

#[test]
fn process_checks_tell_running_zombie_and_gone_apart() {
    // The no-leftover-process checks above are only as good as this helper.
    let mut child = std::process::Command::new("sleep")
        .arg("5")
        .spawn()
        .expect("start sleep");
    let pid = i32::try_from(child.id()).expect("pid fits i32");
    let running = common::process_state(pid);
    assert!(matches!(running, Some('S' | 'R')), "{running:?}");
    assert_eq!(common::leftover(pid), Some("still running"));
    child.kill().expect("kill sleep");
    // Killed but not yet waited for: a zombie.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while common::process_state(pid) != Some('Z') {
        assert!(
            std::time::Instant::now() < deadline,
            "never became a zombie"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        common::leftover(pid),
        Some("a zombie (exited but never reaped)")
    );
    child.wait().expect("reap sleep");
    assert_eq!(common::leftover(pid), None);
}
