//! Rules against the tools a registry really holds: model-facing names with hash suffixes,
//! full names, and rules that match nothing.

use super::*;
use crate::registry::{names, Registry};
use serde_json::{json, Value};

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

fn spec<'a>(reg: &'a Registry, server: &'a str, original: &str) -> &'a ToolSpec {
    reg.server_tools(server)
        .find(|t| t.call_name() == original)
        .unwrap_or_else(|| panic!("no tool {original} on {server}"))
}

fn deny(pattern: &str) -> Policy {
    Policy::from_lists::<&str>(&[], &[], &[pattern]).unwrap()
}

#[test]
fn a_deny_by_full_name_stops_a_tool_whose_model_name_got_a_suffix() {
    // Two servers whose names squeeze to the same part: the second one's tool lands on the
    // suffix (a host tool can no longer hold an `mcp__` name).
    let mut reg = Registry::new();
    reg.load_server("clash", &[tool("delete_repo")]);
    reg.load_server("clash.", &[tool("delete_repo")]);
    let target = spec(&reg, "clash.", "delete_repo");
    assert_ne!(target.name, "mcp__clash__delete_repo", "suffixed");
    let policy = deny("mcp__clash__delete_repo");
    assert_eq!(
        policy.decide_tool(target),
        Decision::Deny {
            rule: "deny mcp__clash__delete_repo".into()
        }
    );
    // The one-name form sees only the model-facing name.
    assert_eq!(policy.decide(&target.name, Risk::Read), Decision::Allow);
    // A prefix pattern also reaches the full name.
    let policy = deny("mcp__clash__delete_*");
    assert!(matches!(policy.decide_tool(target), Decision::Deny { .. }));
}

#[test]
fn a_deny_with_a_name_over_64_characters_stops_that_tool() {
    let long = format!("delete_{}", "x".repeat(70));
    let mut reg = Registry::new();
    reg.load_server("gh", &[tool(&long), tool("get_issue")]);
    let target = spec(&reg, "gh", &long);
    assert!(target.name.len() <= names::MAX_TOOL_NAME_CHARS);
    let rule = format!("mcp__gh__{long}");
    let policy = deny(&rule);
    assert_eq!(
        policy.decide_tool(target),
        Decision::Deny {
            rule: format!("deny {rule}")
        }
    );
    assert_eq!(
        policy.decide_tool(spec(&reg, "gh", "get_issue")),
        Decision::Allow,
        "only that tool"
    );
}

#[test]
fn full_names_count_for_ask_and_allow_too_and_session_approvals_use_the_model_name() {
    let long = format!("get_{}", "y".repeat(80));
    let mut reg = Registry::new();
    reg.load_server("s", &[tool(&long)]);
    let target = spec(&reg, "s", &long).clone();
    let full = format!("mcp__s__{long}");
    let mut ask = Policy::from_lists::<&str>(&[], &[&full], &[]).unwrap();
    // A read tool runs unasked by default; the ask rule by full name holds.
    assert_eq!(target.risk, Risk::Read);
    assert_eq!(ask.decide_tool(&target), Decision::Ask);
    ask.allow_always(&full);
    assert_eq!(
        ask.decide_tool(&target),
        Decision::Ask,
        "kept by model name"
    );
    ask.allow_always(&target.name);
    assert_eq!(ask.decide_tool(&target), Decision::Allow);

    let mut write = target.clone();
    write.risk = Risk::Write;
    let allow = Policy::from_lists::<&str>(&[&full], &[], &[]).unwrap();
    assert_eq!(allow.decide_tool(&write), Decision::Allow);
    assert_eq!(Policy::new().decide_tool(&write), Decision::Ask);
}

#[test]
fn built_in_tools_match_by_their_one_name() {
    let spec = ToolSpec::builtin("bash", "", json!({}), Risk::Execute);
    assert!(matches!(
        deny("bash").decide_tool(&spec),
        Decision::Deny { .. }
    ));
    assert_eq!(deny("BASH").decide_tool(&spec), Decision::Ask);
    let allow = Policy::from_lists::<&str>(&["bash"], &[], &[]).unwrap();
    assert_eq!(allow.decide_tool(&spec), Decision::Allow);
}

#[test]
fn a_server_pattern_does_not_reach_a_lookalike_server_through_full_names() {
    let mut reg = Registry::new();
    reg.load_server("github__evil", &[tool("x")]);
    let allow = Policy::from_lists::<&str>(&["mcp__github"], &[], &[]).unwrap();
    let mut target = spec(&reg, "github__evil", "x").clone();
    target.risk = Risk::Write;
    assert_eq!(allow.decide_tool(&target), Decision::Ask);
}

#[test]
fn unmatched_rules_are_listed_with_a_case_hint() {
    let mut reg = Registry::new();
    reg.register_builtin(ToolSpec::builtin("bash", "", json!({}), Risk::Execute))
        .unwrap();
    let long = "z".repeat(70);
    reg.load_server("gh", &[tool("get_issue"), tool(&long)]);
    let full = format!("mcp__gh__{long}");
    let policy = Policy::from_lists(
        &["mcp__gh", "nothing_here"],
        &["mcp__GH__get_*"],
        &["BASH", "bash", full.as_str(), "mcp__other"],
    )
    .unwrap();
    let unmatched = policy.unmatched_rules(reg.tools());
    let shown: Vec<String> = unmatched.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "permission rule `allow nothing_here` matches no tool",
            "permission rule `ask mcp__GH__get_*` matches no tool (did you mean `mcp__gh__get_issue`?)",
            "permission rule `deny BASH` matches no tool (did you mean `bash`?)",
            "permission rule `deny mcp__other` matches no tool",
        ]
    );
    assert_eq!(unmatched[2].rule.kind, RuleKind::Deny);
    assert_eq!(unmatched[2].hint.as_deref(), Some("bash"));
    assert!(Policy::new().unmatched_rules(reg.tools()).is_empty());
    // With no tools at all, every rule is unmatched.
    assert_eq!(policy.unmatched_rules(&[]).len(), policy.rules().len());
}
