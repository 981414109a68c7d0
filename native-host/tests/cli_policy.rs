//! Permission rules against real servers' tools: clashing names settled in config order, a deny
//! written with a tool's full name, and the start-up warning for rules that match no tool.

mod common;

use common::Project;
use serde_json::Value;

fn tool_source(tools: &Value, name: &str) -> Option<String> {
    tools["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == name)
        .and_then(|t| t["source"].as_str().map(str::to_owned))
}

#[test]
fn the_server_configured_first_keeps_the_plain_name_whichever_starts_first() {
    // "my__srv" and "my_srv" both name their tools mcp__my_srv__*. The first one configured is
    // slow to start, so it connects last; it must still keep the plain names.
    let mut project = Project::new();
    project
        .fixture("my__srv", "normal.mjs", &["--start-delay-ms", "600"])
        .fixture("my_srv", "normal.mjs", &[]);
    let out = project.run(&["tools", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let tools = out.json();
    assert_eq!(
        tool_source(&tools, "mcp__my_srv__echo").as_deref(),
        Some("mcp:my__srv"),
        "{tools}"
    );
    let suffixed = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["source"] == "mcp:my_srv")
        .filter_map(|t| t["name"].as_str())
        .find(|n| n.starts_with("mcp__my_srv__echo_"));
    assert!(suffixed.is_some(), "the second gets the suffix: {tools}");
    project.assert_no_server_processes();
}

#[test]
fn a_deny_written_with_a_long_tool_name_stops_the_call() {
    let long = format!("echo_{}", "x".repeat(70));
    let mut project = Project::new();
    project.fixture("s", "normal.mjs", &["--echo-tool", &long]);
    let rule = format!("mcp__s__{long}");
    let out = project.run(&[
        "mcp",
        "call",
        "s",
        &long,
        r#"{"text":"hi"}"#,
        "--deny",
        &rule,
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(&format!("deny {rule}")), "{out:?}");
    assert!(!out.stdout.contains("hi"), "{out:?}");
    // Without the rule the same call runs: the test is about the rule.
    let out = project.run(&["mcp", "call", "s", &long, r#"{"text":"hi"}"#]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("hi"), "{out:?}");
}

#[test]
fn rules_that_match_no_tool_are_warned_about_at_start() {
    let project = Project::new();
    let out = project.run(&[
        "run",
        "--json",
        "--deny",
        "BASH",
        "--allow",
        "mcp__nowhere",
        "--deny",
        "bash",
        "what is 2+3",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "warning: permission rule `deny BASH` matches no tool (did you mean `bash`?)"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("warning: permission rule `allow mcp__nowhere` matches no tool"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("`deny bash`"), "{}", out.stderr);
    let warnings: Vec<Value> = out
        .ndjson()
        .into_iter()
        .filter(|e| e["type"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 2, "{}", out.stdout);
    assert_eq!(warnings[0]["rule"], "allow mcp__nowhere");
    assert_eq!(warnings[1]["rule"], "deny BASH");
}
