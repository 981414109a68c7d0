//! Progress of running MCP calls reaches the user, from real servers as real processes: the
//! npm reference server's long-running tool (legacy `notifications/progress`, from the
//! `progressToken` every `tools/call` carries), a task's status messages (the modern
//! extension fixture, `tasks: true`), and a hostile server flooding progress with terminal
//! escapes. Human output shows `⋯ <tool>: …` lines on stderr; `--json` has `tool_progress`.
//!
//! When the npm packages are missing these tests fail and say how to install them.

mod common;

use common::{npm_fixtures_dir, repo_root, Project};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const LONG: &str = "mcp__everything__trigger-long-running-operation";

fn everything() -> Project {
    let bin = npm_fixtures_dir()
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        bin.is_file(),
        "{} is missing: run scripts/npm-fixtures",
        bin.display()
    );
    let mut project = Project::new();
    project.entry(
        "everything",
        json!({"command": "node", "args": [bin.display().to_string(), "stdio"]}),
    );
    project
}

/// The `tool_progress` events of a `--json` run, checked to sit between their call's
/// `tool_start` and `tool_end`.
fn progress_events(events: &[Value]) -> Vec<Value> {
    let mut open = Vec::new();
    let mut shown = Vec::new();
    for event in events {
        match event["type"].as_str() {
            Some("tool_start") => open.push(event["id"].clone()),
            Some("tool_end") => open.retain(|id| *id != event["id"]),
            Some("tool_progress") => {
                assert!(
                    open.contains(&event["id"]),
                    "progress outside its call: {event}"
                );
                shown.push(event.clone());
            }
            _ => {}
        }
    }
    shown
}

#[test]
fn legacy_progress_of_the_reference_server_is_shown_while_the_call_runs() {
    let project = everything();
    let prompt = format!("call {LONG} {{\"duration\": 1.5, \"steps\": 3}}");
    let out = project.run(&["run", &prompt, "--allow", LONG]);
    assert_eq!(out.code, 0, "{out:?}");
    for step in ["1/3", "2/3"] {
        let line = format!("⋯ {LONG}: {step}");
        assert!(
            out.stderr.contains(&line),
            "{line} on stderr: {}",
            out.stderr
        );
    }
    assert!(
        !out.stdout.contains('⋯'),
        "progress is not on stdout: {}",
        out.stdout
    );

    let out = project.run(&["--json", "run", &prompt, "--allow", LONG]);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let start = events
        .iter()
        .find(|e| e["type"] == "tool_start")
        .expect("tool_start");
    let shown = progress_events(&events);
    let steps: Vec<(f64, f64)> = shown
        .iter()
        .map(|e| {
            (
                e["progress"].as_f64().unwrap(),
                e["total"].as_f64().unwrap(),
            )
        })
        .collect();
    assert!(
        steps.starts_with(&[(1.0, 3.0), (2.0, 3.0)]),
        "steps in order: {steps:?}"
    );
    for event in &shown {
        assert_eq!(event["id"], start["id"], "{event}");
        assert_eq!(event["name"], LONG);
        assert_eq!(event["server"], "everything");
    }
    project.assert_no_server_processes();
}

/// The extension fixture of the npm tests (a stateless modern HTTP server with Tasks), on a
/// loopback port; killed on drop.
struct ExtServer {
    child: Child,
    url: String,
}

impl ExtServer {
    fn start() -> Self {
        let module = repo_root().join("pkg-tests/portable/ext-server.mjs");
        let script = format!(
            "const {{ extensionsServer }} = await import({:?}); \
             const s = await extensionsServer(); console.log(s.url); \
             process.stdin.resume(); process.stdin.on('end', () => process.exit(0));",
            format!("file://{}", module.display())
        );
        let mut child = Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start node");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the server's URL");
        assert!(line.starts_with("http://127.0.0.1:"), "{line:?}");
        ExtServer {
            child,
            url: line.trim().to_owned(),
        }
    }
}

impl Drop for ExtServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_tasks_status_message_is_shown_as_its_calls_progress() {
    let server = ExtServer::start();
    let mut project = Project::new();
    project.entry(
        "ext",
        json!({"type": "http", "url": server.url, "tasks": true}),
    );
    let args = ["run", "call report", "--allow", "mcp__ext__report"];
    let out = project.run(&args);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("report ready after"),
        "the task's result: {}",
        out.stdout
    );
    assert!(
        out.stderr.contains("⋯ mcp__ext__report: started"),
        "the task's first status message: {}",
        out.stderr
    );

    let mut json_args = vec!["--json"];
    json_args.extend(args);
    let out = project.run(&json_args);
    assert_eq!(out.code, 0, "{out:?}");
    let shown = progress_events(&out.ndjson());
    let first = shown
        .first()
        .unwrap_or_else(|| panic!("a tool_progress: {}", out.stdout));
    assert_eq!(first["name"], "mcp__ext__report");
    assert_eq!(first["server"], "ext");
    assert_eq!(first["message"], "started");
    assert!(first.get("total").is_none(), "{first}");
}

#[test]
fn a_progress_flood_is_coalesced_escaped_and_cut() {
    let mut project = Project::new();
    project.fixture("flood", "progress-flood.mjs", &[]);
    let out = project.run(&["run", "call crunch"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("crunched"), "{}", out.stdout);
    let lines: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("⋯ ")).collect();
    assert!(!lines.is_empty(), "progress shown: {}", out.stderr);
    // At most one line per 250 ms of the run, of 5,000 sent.
    let bound = out.elapsed.as_millis() as usize / 250 + 1;
    assert!(
        lines.len() <= bound,
        "{} lines in {:?}",
        lines.len(),
        out.elapsed
    );
    for line in &lines {
        assert!(
            !line
                .chars()
                .any(|c| c == '\x1b' || c == '\r' || c == '\x07' || c == '\u{9b}'),
            "escaped: {line:?}"
        );
        assert!(line.contains("\\u001b[2J\\u000dAllow bash? [y]"), "{line}");
        // The message is cut to 200 characters before escaping (each control: 6 characters).
        assert!(
            line.chars().count() < 300,
            "{} characters: {line}",
            line.chars().count()
        );
    }

    let out = project.run(&["--json", "run", "call crunch"]);
    assert_eq!(out.code, 0, "{out:?}");
    let shown = progress_events(&out.ndjson());
    assert!(!shown.is_empty() && shown.len() <= out.elapsed.as_millis() as usize / 250 + 1);
    for event in &shown {
        let message = event["message"].as_str().unwrap();
        assert_eq!(message.chars().count(), 200, "{event}");
        assert!(
            message.starts_with("\x1b[2J\rAllow"),
            "exact text in JSON: {message:?}"
        );
    }
    assert!(
        !out.stderr.contains("dropped"),
        "the flood was coalesced, not queued and dropped: {}",
        out.stderr
    );
    project.assert_no_server_processes();
}
