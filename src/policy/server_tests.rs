//! A deny that covers a whole MCP server covers what it offers beside tools: its resources
//! (the resource tools' `server` argument), prompts and completions.

use super::*;
use serde_json::json;

fn deny(pattern: &str) -> Policy {
    Policy::from_lists::<&str>(&[], &[], &[pattern]).unwrap()
}

fn denied_by(decision: Decision) -> Option<String> {
    match decision {
        Decision::Deny { rule } => Some(rule),
        _ => None,
    }
}

#[test]
fn server_wide_patterns_deny_the_server_and_narrower_ones_do_not() {
    for pattern in [
        "mcp__h",
        "mcp__h__*",
        "mcp__*",
        "*",
        "mcp__h*",
        "mcp*",
        "m*",
    ] {
        assert_eq!(
            denied_by(deny(pattern).decide_server("h")),
            Some(format!("deny {pattern}")),
            "{pattern}"
        );
    }
    for pattern in [
        "mcp__h__get_*",
        "mcp__h__read",
        "mcp__hx",
        "mcp__hx__*",
        "mcp__g__*",
        "read_mcp_resource",
        "plugin__h",
        "mcp__h__",
    ] {
        assert_eq!(
            deny(pattern).decide_server("h"),
            Decision::Allow,
            "{pattern}"
        );
    }
    assert_eq!(Policy::new().decide_server("h"), Decision::Allow);
    // Allow and ask rules decide nothing here.
    let p = Policy::from_lists::<&str>(&["mcp__h"], &["mcp__*"], &[]).unwrap();
    assert_eq!(p.decide_server("h"), Decision::Allow);
}

#[test]
fn the_server_is_named_as_in_tool_names_sanitised_or_in_full() {
    // `my.server` appears as `mcp__my_server`.
    assert!(denied_by(deny("mcp__my_server").decide_server("my.server")).is_some());
    assert_eq!(
        deny("mcp__my_server").decide_server("my_server2"),
        Decision::Allow
    );
    // A name over 32 characters: cut in model-facing names, whole in full names.
    let long = "a-very-long-server-name-of-forty-characters";
    let cut = "mcp__a-very-long-server-name-of-forty";
    let whole = "mcp__a-very-long-server-name-of-forty-characters";
    assert_eq!(names::mcp_server_prefix(long), cut);
    assert!(denied_by(deny(cut).decide_server(long)).is_some(), "{cut}");
    assert!(
        denied_by(deny(whole).decide_server(long)).is_some(),
        "{whole}"
    );
}

#[test]
fn a_run_denial_of_the_server_covers_it_too() {
    let mut p = Policy::new();
    p.deny_for_run("mcp__h__*").unwrap();
    assert_eq!(
        denied_by(p.decide_server("h")),
        Some("disallowed-tools mcp__h__* (this run)".into())
    );
    p.deny_for_run("mcp__g__x").unwrap();
    assert_eq!(p.decide_server("g"), Decision::Allow);
    p.clear_run();
    assert_eq!(p.decide_server("h"), Decision::Allow);
}

#[test]
fn resource_tool_calls_are_denied_for_a_denied_server_only() {
    let read = ToolSpec::builtin("read_mcp_resource", "", json!({}), Risk::Read);
    let list = ToolSpec::builtin("list_mcp_resources", "", json!({}), Risk::Read);
    let p = deny("mcp__h");
    let on = |server: &str| json!({"server": server, "uri": "mem://x"});
    for spec in [&read, &list] {
        assert_eq!(
            denied_by(p.decide_call(spec, &on("h"))),
            Some("deny mcp__h".into()),
            "{}",
            spec.name
        );
        assert_eq!(p.decide_call(spec, &on("g")), Decision::Allow);
        assert_eq!(p.decide_call(spec, &json!({})), Decision::Allow);
        assert_eq!(p.decide_call(spec, &json!({"server": 7})), Decision::Allow);
    }
    // A deny of the tool itself still holds whatever the server, and is the rule named.
    let p = deny("read_mcp_resource");
    assert!(denied_by(p.decide_call(&read, &on("g"))).is_some());
    let both = Policy::from_lists::<&str>(&[], &[], &["read_mcp_resource", "mcp__h"]).unwrap();
    assert_eq!(
        denied_by(both.decide_call(&read, &on("h"))),
        Some("deny read_mcp_resource".into())
    );
    // Without a matching rule the tool's own verdict stands (ask for a risky tool).
    let risky = ToolSpec::builtin("read_mcp_resource", "", json!({}), Risk::Write);
    assert_eq!(deny("mcp__h").decide_call(&risky, &on("g")), Decision::Ask);
    // Another built-in tool with a `server` argument is not a server's tool.
    let other = ToolSpec::builtin("deploy", "", json!({}), Risk::Read);
    assert_eq!(
        deny("mcp__h").decide_call(&other, &on("h")),
        Decision::Allow
    );
    // Nor is an MCP tool that happens to be called read_mcp_resource on another server.
    let mut reg = crate::registry::Registry::new();
    reg.load_server(
        "g",
        &[json!({"name": "read_mcp_resource", "inputSchema": {"type": "object"}})],
    );
    let foreign = reg.server_tools("g").next().unwrap().clone();
    assert_eq!(
        deny("mcp__h").decide_call(&foreign, &on("h")),
        Decision::Allow
    );
}
