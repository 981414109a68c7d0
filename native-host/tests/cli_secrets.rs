//! Secrets on the paths the audit redactor does not see: a server's stderr in failure lines
//! and `mcp list`, a server's error text in `mcp call`, user info and query secrets in server
//! URLs and `--base-url`. None may reach stdout, stderr or `--json`.

mod common;

use common::{fixture, CliOutput, Project};
use serde_json::json;

/// The secret parts `leaky.mjs` (and the URLs below) carry; the text around them may stay.
const SECRETS: [&str; 4] = [
    "abcdefghijklmnop1234",
    "hunter2pw",
    "abc123tok",
    "zyxwvutsrqponm9876",
];

/// Server and model URLs are shown without any user info, the user name included.
fn assert_no_user_info(out: &CliOutput) {
    assert!(
        !out.stdout.contains("bob") && !out.stderr.contains("bob"),
        "{out:?}"
    );
}

fn assert_clean(out: &CliOutput) {
    for secret in SECRETS {
        assert!(!out.stdout.contains(secret), "{secret} in stdout: {out:?}");
        assert!(!out.stderr.contains(secret), "{secret} in stderr: {out:?}");
    }
}

fn leaky(project: &mut Project, name: &str, args: &[&str]) {
    let mut argv = vec![fixture("leaky.mjs")];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    project.entry(name, json!({"command": "node", "args": argv}));
}

#[test]
fn server_stderr_is_redacted_in_failure_lines_and_mcp_list() {
    let mut project = Project::new();
    leaky(&mut project, "dead", &["--die-at-start"]);
    let out = project.run(&["mcp", "list"]);
    assert!(
        out.stderr.contains("MCP server dead failed to connect"),
        "{out:?}"
    );
    // The stderr line is still there, minus its secrets.
    assert!(
        out.stderr.contains("fatal: cannot start with ghp_"),
        "{out:?}"
    );
    assert_clean(&out);
    let out = project.run(&["mcp", "list", "--json"]);
    let error = out.json()["servers"][0]["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("exited with status 3"), "{error}");
    assert!(error.contains("example.com"), "{error}");
    assert_clean(&out);
}

#[test]
fn server_error_text_is_redacted_in_mcp_call() {
    let mut project = Project::new();
    leaky(&mut project, "srv", &[]);
    for tool in ["leak_error", "leak_result"] {
        for json in [true, false] {
            let mut args = vec!["mcp", "call", "srv", tool, "{}"];
            if json {
                args.push("--json");
            }
            let out = project.run(&args);
            assert_eq!(out.code, 1, "{out:?}");
            assert!(
                out.stdout.contains("upstream refused") || out.stderr.contains("upstream refused"),
                "{out:?}"
            );
            assert_clean(&out);
        }
    }
}

#[test]
fn user_info_and_query_secrets_in_server_urls_are_never_printed() {
    let mut project = Project::new();
    project.entry(
        "remote",
        json!({"type": "http", "url": "http://bob:hunter2pw@127.0.0.1:1/mcp?access_token=abc123tok"}),
    );
    let out = project.run(&["mcp", "list"]);
    assert!(out.stderr.contains("MCP server remote failed"), "{out:?}");
    assert!(out.stderr.contains("127.0.0.1:1"), "{out:?}");
    assert_clean(&out);
    assert_no_user_info(&out);
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.json()["servers"][0]["status"], "failed");
    assert_clean(&out);
    assert_no_user_info(&out);
}

#[test]
fn user_info_and_query_secrets_in_the_base_url_are_never_printed() {
    let project = Project::new();
    for json in [false, true] {
        let mut args = vec![
            "run",
            "--base-url",
            "http://bob:hunter2pw@127.0.0.1:1/v1?access_token=abc123tok",
            "hello",
        ];
        if json {
            args.push("--json");
        }
        let out = project.run_with_env(
            &args,
            &[
                ("OPENAI_API_KEY", "sk-test-key-not-real"),
                ("AGENTWIRE_MODEL_RETRIES", "0"),
            ],
        );
        // Refused before any request: user info would go out as Basic authorization.
        assert_eq!(out.code, 2, "a settings error: {out:?}");
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(all.contains("127.0.0.1:1"), "{out:?}");
        assert!(all.contains("carries user info"), "{out:?}");
        assert_clean(&out);
        assert_no_user_info(&out);
    }
}
