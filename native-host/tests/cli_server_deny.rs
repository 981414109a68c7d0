//! A deny rule that covers a whole MCP server (`mcp__h`, `mcp__h__*`, `mcp__*`) covers what
//! it offers beside tools, on every path: the model's `read_mcp_resource` and
//! `list_mcp_resources`, `@h:uri` mentions, `/mcp__h__prompt` commands, Tab completion, and the
//! CLI's `mcp read`, `mcp prompt`, `mcp resources` and `mcp prompts`. A rule naming only some
//! of its tools does not. The server is the `features.mjs` fixture.

mod common;

use common::Project;
use serde_json::Value;

const SECRET: &str = "the secret of features";

fn project() -> Project {
    let mut project = Project::new();
    project
        .fixture("h", "features.mjs", &[])
        .fixture("g", "features.mjs", &[]);
    project
}

fn audit(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("audit lines are JSON"))
        .collect()
}

#[test]
fn a_server_wide_deny_stops_the_model_reading_its_resources() {
    let project = project();
    let call = r#"call read_mcp_resource {"server": "h", "uri": "mem://secret"}"#;
    for pattern in ["mcp__h", "mcp__h__*", "mcp__*"] {
        let log = project
            .path()
            .join(format!("audit-{}.jsonl", pattern.len()));
        let log_arg = log.display().to_string();
        let out = project.run(&[
            "--deny", pattern, "--audit", &log_arg, "--json", "run", call,
        ]);
        assert!(!out.stdout.contains(SECRET), "{pattern}: {out:?}");
        let records = audit(&log);
        let read = records
            .iter()
            .find(|r| r["tool"] == "read_mcp_resource")
            .unwrap_or_else(|| panic!("{pattern}: no audit record in {records:?}"));
        assert_eq!(read["outcome"], "denied", "{pattern}: {read}");
        assert!(
            read["error"]
                .as_str()
                .unwrap_or_default()
                .contains(&format!("deny {pattern}"))
                || out.stdout.contains(&format!("deny {pattern}")),
            "{pattern}: {read} {out:?}"
        );
    }
    // Listing: the denied server's resources are not shown, the other's are.
    let call = r#"call list_mcp_resources {}"#;
    let out = project.run(&["--deny", "mcp__h", "--json", "run", call]);
    assert_eq!(out.code, 0, "{out:?}");
    let result = out
        .ndjson()
        .into_iter()
        .find(|e| e["type"] == "tool_end")
        .unwrap_or_else(|| panic!("no tool_end: {out:?}"));
    let text = result.to_string();
    assert!(
        text.contains(r#"\"server\":\"g\""#) && !text.contains(r#"\"server\":\"h\""#),
        "{text}"
    );
    // A rule naming only some of its tools leaves its resources readable.
    let call = r#"call read_mcp_resource {"server": "h", "uri": "mem://secret"}"#;
    let out = project.run(&["--deny", "mcp__h__get_*", "--json", "run", call]);
    assert!(out.stdout.contains(SECRET), "{out:?}");
}

#[test]
fn the_cli_and_mentions_say_a_denied_server_is_denied() {
    let project = project();
    let denied = "denied by the permission rule `deny mcp__h`";
    for args in [
        vec!["mcp", "read", "h", "mem://secret"],
        vec!["mcp", "prompt", "h", "greet", "who=ada"],
        vec!["mcp", "resources", "h"],
        vec!["mcp", "prompts", "h"],
        vec!["run", "summarise @h:mem://secret please"],
    ] {
        let mut with_deny = vec!["--deny", "mcp__h"];
        with_deny.extend_from_slice(&args);
        let out = project.run(&with_deny);
        assert_ne!(out.code, 0, "{args:?}: {out:?}");
        assert!(out.stderr.contains(denied), "{args:?}: {out:?}");
        assert!(!out.stdout.contains(SECRET), "{args:?}: {out:?}");
        assert!(!out.stdout.contains("Hello ada"), "{args:?}: {out:?}");
    }
    // Listing every server leaves the denied one out.
    let out = project.run(&["--deny", "mcp__h", "--json", "mcp", "prompts"]);
    assert_eq!(out.code, 0, "{out:?}");
    let listed = out.stdout;
    assert!(
        listed.contains(r#""server":"g""#) && !listed.contains(r#""server":"h""#),
        "{listed}"
    );
    // The same commands work without the rule (the test can fail).
    let out = project.run(&["mcp", "read", "h", "mem://secret"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains(SECRET), "{out:?}");
    let out = project.run(&["mcp", "prompt", "h", "greet", "who=ada"]);
    assert!(out.stdout.contains("Hello ada"), "{out:?}");
}
