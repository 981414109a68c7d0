//! `agentwire --json run`: stdout carries only NDJSON UI events, even with servers that print
//! junk, flood stderr or fail at start; a model tool call reaches a real server process.

mod common;

use common::{CliOutput, Project};
use serde_json::Value;

/// The `type` of every event, in order; fails unless every stdout line is an event object.
fn event_types(out: &CliOutput) -> Vec<String> {
    out.ndjson()
        .iter()
        .map(|event| match event["type"].as_str() {
            Some(kind) => kind.to_owned(),
            None => panic!("event without a type: {event}"),
        })
        .collect()
}

fn noisy_project() -> Project {
    let mut project = Project::new();
    project
        .fixture("noisy", "garbage.mjs", &[])
        .fixture("flood", "stderr-flood.mjs", &["--mb", "2"])
        .fixture("broken", "crash-start.mjs", &[]);
    project
}

#[test]
fn json_run_prints_only_ndjson_events() {
    let project = noisy_project();
    let out = project.run(&["--json", "run", "calculate 2+3*4"]);
    assert_eq!(out.code, 0, "{out:?}");
    let types = event_types(&out);
    assert_eq!(
        types,
        [
            "session",
            "step_start",
            "tool_start",
            "tool_end",
            "step_start",
            "model_text",
            "done"
        ],
        "{}",
        out.stdout
    );
    let events = out.ndjson();
    assert_eq!(events[0]["resumed"], false);
    assert_eq!(events[3]["name"], "calculator");
    assert_eq!(events[3]["ok"], true);
    assert_eq!(events[6]["answer"], "The result is 2+3*4 = 14.");
    // Startup status lines go to stderr, never into the event stream.
    assert!(
        out.stderr.contains("MCP server broken failed to connect: "),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("MCP server noisy connected"),
        "{}",
        out.stderr
    );
    project.assert_no_server_processes();
}

#[test]
fn json_run_calls_a_tool_of_a_real_server_process() {
    // The mock model calls `list_issues` for "list issues in OWNER/REPO"; the fixture's echo
    // tool, renamed, answers it, so the result proves the call went through the process.
    let mut project = Project::new();
    project
        .fixture(
            "gh",
            "garbage.mjs",
            &["--tag", "gh", "--echo-tool", "list_issues"],
        )
        .fixture("flood", "stderr-flood.mjs", &["--mb", "2"]);
    let out = project.run(&["--json", "--yes", "run", "list issues in vercel/ai"]);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let start = events
        .iter()
        .find(|e| e["type"] == "tool_start")
        .unwrap_or_else(|| panic!("no tool_start in {}", out.stdout));
    assert_eq!(start["name"], "mcp__gh__list_issues");
    assert_eq!(start["args"]["owner"], "vercel");
    assert_eq!(start["args"]["repo"], "ai");
    let end: &Value = events
        .iter()
        .find(|e| e["type"] == "tool_end")
        .unwrap_or_else(|| panic!("no tool_end in {}", out.stdout));
    assert_eq!(end["ok"], true, "{end}");
    assert_eq!(end["output"], "[gh] ", "the tagged server answered: {end}");
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some("done".into())
    );
    project.assert_no_server_processes();
}

#[test]
fn json_run_without_approval_denies_and_still_prints_only_ndjson() {
    // No --yes, no terminal and no session to pause in: a tool that needs approval is denied,
    // and the run goes on (`cli_sessions` shows the pause with a session).
    let mut project = Project::new();
    project.fixture("gh", "normal.mjs", &["--echo-tool", "list_issues"]);
    let out = project.run(&[
        "--json",
        "--no-session-persistence",
        "--ask",
        "mcp__gh__*",
        "run",
        "list issues in vercel/ai",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        event_types(&out),
        [
            "step_start",
            "tool_start",
            "approval_request",
            "tool_end",
            "step_start",
            "model_text",
            "done"
        ],
        "{}",
        out.stdout
    );
    let events = out.ndjson();
    assert_eq!(events[2]["name"], "mcp__gh__list_issues");
    assert_eq!(
        events[3]["ok"], false,
        "a denied call does not succeed: {}",
        events[3]
    );
    assert!(
        out.stderr.contains("denied mcp__gh__list_issues"),
        "{}",
        out.stderr
    );
    project.assert_no_server_processes();
}

#[test]
fn json_run_survives_a_server_crash_and_a_hang_mid_call() {
    let mut project = Project::new();
    project
        .fixture("crashy", "crash-call.mjs", &["--echo-tool", "list_issues"])
        .fixture_with(
            "stuck",
            "hang.mjs",
            &["--echo-tool", "get_issue"],
            serde_json::json!({"timeout": 500}),
        );
    let tool_end = |out: &CliOutput| -> Value {
        assert_eq!(out.code, 0, "the run itself ends normally: {out:?}");
        let types = event_types(out);
        assert_eq!(
            types.last().map(String::as_str),
            Some("done"),
            "{}",
            out.stdout
        );
        out.ndjson()
            .into_iter()
            .find(|e| e["type"] == "tool_end")
            .unwrap_or_else(|| panic!("no tool_end in {}", out.stdout))
    };

    let out = project.run(&["--json", "--yes", "run", "list issues in vercel/ai"]);
    let end = tool_end(&out);
    assert_eq!(end["name"], "mcp__crashy__list_issues");
    assert_eq!(end["ok"], false);
    let output = end["output"].as_str().unwrap_or_default();
    assert!(output.contains("exited with status 7"), "{output}");
    assert!(output.contains("fatal: boom"), "{output}");
    assert!(
        out.stderr.contains("MCP server crashy disconnected"),
        "{}",
        out.stderr
    );

    let out = project.run(&["--json", "--yes", "run", "show issue 12 in vercel/ai"]);
    let end = tool_end(&out);
    assert_eq!(end["name"], "mcp__stuck__get_issue");
    assert_eq!(end["ok"], false);
    let output = end["output"].as_str().unwrap_or_default();
    assert!(output.contains("did not answer within 500 ms"), "{output}");
    let waited = end["duration_ms"].as_u64().unwrap_or_default();
    assert!((500..1500).contains(&waited), "{end}");
    project.assert_no_server_processes();
}
