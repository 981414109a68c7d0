//! Terminal escape injection: a hostile server's control sequences (in a tool's description, its
//! result, its stderr and its failure line) and the model's answer built from them reach the
//! user's terminal only as visible `\uXXXX` escapes, never raw. `--json` stays valid JSON and
//! carries the exact text.

mod common;

use common::Project;
use serde_json::Value;

/// Characters a terminal acts on (as `native-host/src/term_safe.rs` defines them), found in
/// `text`.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
                | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

fn assert_no_raw_controls(what: &str, text: &str) {
    let found = raw_controls(text);
    assert!(
        found.is_empty(),
        "{what} carries raw controls {found:?}: {text:?}"
    );
}

fn hostile_project() -> Project {
    let mut project = Project::new();
    project.fixture("esc", "escapes.mjs", &[]);
    project
}

#[test]
fn mcp_list_and_tools_show_a_hostile_description_escaped() {
    let project = hostile_project();
    for args in [&["mcp", "list"][..], &["tools"][..]] {
        let out = project.run(args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(out.stdout.contains("paint"), "{args:?}: {}", out.stdout);
        assert_no_raw_controls(&format!("{args:?} stdout"), &out.stdout);
        assert_no_raw_controls(&format!("{args:?} stderr"), &out.stderr);
        assert!(
            out.stdout.contains("Paints\\u001b]52;c;"),
            "{args:?}: the escape is visible: {}",
            out.stdout
        );
    }
    project.assert_no_server_processes();
}

#[test]
fn mcp_call_shows_a_hostile_result_escaped_and_json_keeps_it_exact() {
    let project = hostile_project();
    let out = project.run(&["mcp", "call", "esc", "paint", "{}"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_no_raw_controls("stdout", &out.stdout);
    assert_no_raw_controls("stderr", &out.stderr);
    for shown in [
        "\\u001b]52;c;cm0gLXJmIH4=\\u0007",
        "\\u001b[2J",
        "ok\\u000dAllow bash",
        "\\u009b31m",
        "\\u202etxt.exe",
        "\\u007f\\u0008",
    ] {
        assert!(out.stdout.contains(shown), "{shown} in {}", out.stdout);
    }

    let out = project.run(&["mcp", "call", "esc", "paint", "{}", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_no_raw_controls("--json stdout", &out.stdout);
    let result = out.json();
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("\x1b]52;c;") && text.contains("ok\rAllow") && text.contains('\u{9b}'),
        "JSON carries the exact text: {text:?}"
    );
    project.assert_no_server_processes();
}

#[test]
fn a_run_shows_tool_output_and_the_answer_escaped() {
    let project = hostile_project();
    let out = project.run(&["run", "call paint {}", "--allow", "mcp__esc__paint"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("← mcp__esc__paint ok"),
        "{}",
        out.stdout
    );
    assert_no_raw_controls("run stdout", &out.stdout);
    assert_no_raw_controls("run stderr", &out.stderr);
    assert!(out.stdout.contains("\\u001b[2J"), "{}", out.stdout);

    let out = project.run(&[
        "run",
        "call paint {}",
        "--allow",
        "mcp__esc__paint",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_no_raw_controls("run --json stdout", &out.stdout);
    let events: Vec<Value> = out.ndjson();
    let end = events
        .iter()
        .find(|e| e["type"] == "tool_end")
        .expect("a tool_end event");
    let output = end["output"].as_str().unwrap_or_default();
    assert!(
        output.contains("\x1b[2J"),
        "NDJSON carries the exact text: {end}"
    );
    project.assert_no_server_processes();
}

#[test]
fn a_failing_servers_stderr_is_shown_escaped() {
    let mut project = Project::new();
    project.fixture("esc", "escapes.mjs", &["--crash", "1"]);
    let out = project.run(&["tools"]);
    assert!(
        out.stderr.contains("failed to connect"),
        "the failure line: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("fatal: \\u001b]52;"),
        "with the stderr tail, escaped: {}",
        out.stderr
    );
    assert_no_raw_controls("stderr", &out.stderr);
    assert_no_raw_controls("stdout", &out.stdout);

    let out = project.run(&["mcp", "list"]);
    assert!(out.stdout.contains("esc: failed"), "{}", out.stdout);
    assert_no_raw_controls("mcp list stdout", &out.stdout);
    assert_no_raw_controls("mcp list stderr", &out.stderr);
}
