//! The bypass suite at the core: whatever a definition says, a child's tools are a subset of
//! what its parent may run, and its gate is at least as strict.

use super::*;
use crate::subagent::{AgentSet, AGENT_TOOL};
use serde_json::json;

/// A parent with built-in tools of every risk, two MCP servers, a skill tool and `Agent`.
fn parent() -> Registry {
    let mut registry = Registry::new();
    for (name, risk) in [
        ("read_file", Risk::Read),
        ("grep", Risk::Read),
        ("write_file", Risk::Write),
        ("bash", Risk::Execute),
        ("fetch_url", Risk::Network),
    ] {
        registry
            .register_builtin(ToolSpec::builtin(
                name,
                "t",
                json!({"type": "object"}),
                risk,
            ))
            .unwrap();
    }
    let tool = |name: &str, read_only: bool| {
        json!({"name": name, "description": "d", "inputSchema": {"type": "object"},
               "annotations": {"readOnlyHint": read_only}})
    };
    registry.load_server(
        "github",
        &[tool("list_issues", true), tool("create_issue", false)],
    );
    registry.load_server("docs", &[tool("search", true)]);
    registry.set_skill_tools(vec![ToolSpec::builtin(
        "activate_skill",
        "s",
        json!({"type": "object"}),
        Risk::Read,
    )]);
    registry.set_agent_tool(AgentSet::with_builtin().tool_spec(1000));
    registry
}

fn names(scope: &ChildScope) -> Vec<&str> {
    scope
        .registry
        .tools()
        .iter()
        .map(|t| t.name.as_str())
        .collect()
}

fn def(tools: Option<&[&str]>, disallowed: &[&str], mode: PermissionMode) -> AgentDefinition {
    AgentDefinition {
        name: "child".into(),
        description: "d".into(),
        tools: tools.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
        disallowed_tools: disallowed.iter().map(|s| (*s).to_owned()).collect(),
        permission_mode: mode,
        ..AgentDefinition::default()
    }
}

/// The verdict `policy` gives each tool of `registry`, by name.
fn verdicts(registry: &Registry, policy: &Policy) -> Vec<(String, Decision)> {
    registry
        .tools()
        .iter()
        .map(|t| (t.name.clone(), policy.decide_tool(t)))
        .collect()
}

/// Strictness order of verdicts: allow < ask < deny.
fn severity(decision: &Decision) -> u8 {
    match decision {
        Decision::Allow => 0,
        Decision::Ask => 1,
        _ => 2,
    }
}

#[test]
fn a_child_without_a_tools_field_gets_the_parents_tools_but_no_skills_or_agent() {
    let scope = child_scope(
        &parent(),
        &Policy::new(),
        &def(None, &[], PermissionMode::Inherit),
        false,
    );
    assert_eq!(
        names(&scope),
        [
            "read_file",
            "grep",
            "write_file",
            "bash",
            "fetch_url",
            "mcp__docs__search",
            "mcp__github__list_issues",
            "mcp__github__create_issue"
        ]
    );
    let deeper = child_scope(
        &parent(),
        &Policy::new(),
        &def(None, &[], PermissionMode::Inherit),
        true,
    );
    assert!(names(&deeper).contains(&AGENT_TOOL), "{:?}", names(&deeper));
    assert!(!names(&deeper).contains(&"activate_skill"));
}

#[test]
fn claude_tool_names_and_globs_select_among_the_parents_tools_only() {
    let wanted = ["Read", "Grep", "mcp__github__*", "NotebookEdit", "Task"];
    let scope = child_scope(
        &parent(),
        &Policy::new(),
        &def(Some(&wanted), &[], PermissionMode::Inherit),
        false,
    );
    assert_eq!(
        names(&scope),
        [
            "read_file",
            "grep",
            "mcp__github__list_issues",
            "mcp__github__create_issue"
        ],
        "a tool the parent lacks (NotebookEdit) never appears; Task needs depth"
    );
    let scope = child_scope(
        &parent(),
        &Policy::new(),
        &def(Some(&[]), &[], PermissionMode::Inherit),
        true,
    );
    assert!(names(&scope).is_empty(), "tools: [] means none");
}

#[test]
fn denied_stays_denied_and_ask_stays_ask_whatever_the_definition_says() {
    let mut policy = Policy::new();
    policy.deny("bash").unwrap();
    policy.deny("mcp__docs").unwrap();
    policy.ask("mcp__github__list_issues").unwrap();
    policy.allow("write_file").unwrap();
    let greedy = def(
        Some(&["*", "Bash", "Bash(ls:*)"]),
        &[],
        PermissionMode::Inherit,
    );
    let scope = child_scope(&parent(), &policy, &greedy, true);
    let have = names(&scope);
    assert!(!have.contains(&"bash"), "{have:?}");
    assert!(!have.contains(&"mcp__docs__search"), "{have:?}");
    for (name, verdict) in verdicts(&scope.registry, &scope.policy) {
        let spec = parent().get(&name).cloned().unwrap();
        let theirs = policy.decide_tool(&spec);
        assert!(
            severity(&verdict) >= severity(&theirs),
            "{name}: child {verdict:?} is laxer than parent {theirs:?}"
        );
    }
    assert_eq!(
        scope
            .policy
            .decide_tool(parent().get("mcp__github__list_issues").unwrap()),
        Decision::Ask
    );
}

#[test]
fn the_parents_run_denials_and_always_answers_carry_over_but_run_grants_do_not() {
    let mut policy = Policy::new();
    policy.deny_for_run("write_file").unwrap();
    policy.allow_for_run("bash").unwrap();
    policy.allow_always("fetch_url");
    let mut scope = child_scope(
        &parent(),
        &policy,
        &def(None, &[], PermissionMode::Inherit),
        false,
    );
    assert!(!names(&scope).contains(&"write_file"));
    // The child's own run starts by clearing run rules: the denial must survive it.
    scope.policy.clear_run();
    let write = parent().get("write_file").cloned().unwrap();
    assert!(matches!(
        scope.policy.decide_tool(&write),
        Decision::Deny { .. }
    ));
    let bash = parent().get("bash").cloned().unwrap();
    assert_eq!(
        scope.policy.decide_tool(&bash),
        Decision::Ask,
        "a skill's run grant stays with the parent"
    );
    let fetch = parent().get("fetch_url").cloned().unwrap();
    assert_eq!(
        scope.policy.decide_tool(&fetch),
        Decision::Allow,
        "the user said always"
    );
}

#[test]
fn disallowed_tools_deny_inside_the_child() {
    let scope = child_scope(
        &parent(),
        &Policy::new(),
        &def(
            None,
            &["Write", "Bash(rm:*)", "mcp__github__create_issue"],
            PermissionMode::Inherit,
        ),
        false,
    );
    let have = names(&scope);
    for gone in ["write_file", "bash", "mcp__github__create_issue"] {
        assert!(!have.contains(&gone), "{gone} in {have:?}");
        let spec = parent().get(gone).cloned().unwrap();
        assert!(matches!(
            scope.policy.decide_tool(&spec),
            Decision::Deny { .. }
        ));
    }
    let bad = child_scope(
        &parent(),
        &Policy::new(),
        &def(None, &["bad pattern!"], PermissionMode::Inherit),
        false,
    );
    assert!(
        names(&bad).is_empty(),
        "an unreadable denial denies everything: {:?}",
        names(&bad)
    );
    let warnings = scope_warnings(&def(None, &["bad pattern!"], PermissionMode::Inherit));
    assert!(warnings[0].contains("bad pattern!"), "{warnings:?}");
}

#[test]
fn an_argument_rule_in_tools_makes_the_tool_ask() {
    let mut policy = Policy::new();
    policy.allow("bash").unwrap();
    let scope = child_scope(
        &parent(),
        &policy,
        &def(Some(&["Bash(git status)"]), &[], PermissionMode::Inherit),
        false,
    );
    assert_eq!(names(&scope), ["bash"]);
    let bash = parent().get("bash").cloned().unwrap();
    assert_eq!(scope.policy.decide_tool(&bash), Decision::Ask);
    let warnings = scope_warnings(&def(
        Some(&["Bash(git status)"]),
        &[],
        PermissionMode::Inherit,
    ));
    assert!(warnings[0].contains("Bash(git status)"), "{warnings:?}");
    // Named whole, the tool keeps the parent's verdict: a plain entry never makes it ask.
    let scope = child_scope(
        &parent(),
        &policy,
        &def(Some(&["Bash", "Read"]), &[], PermissionMode::Inherit),
        false,
    );
    assert_eq!(names(&scope), ["read_file", "bash"]);
    assert_eq!(scope.policy.decide_tool(&bash), Decision::Allow);
}

#[test]
fn permission_modes_only_remove_tools() {
    let mut policy = Policy::new();
    policy.allow("write_file").unwrap();
    let plan = child_scope(
        &parent(),
        &policy,
        &def(None, &[], PermissionMode::Plan),
        true,
    );
    assert_eq!(
        names(&plan),
        [
            "read_file",
            "grep",
            AGENT_TOOL,
            "mcp__docs__search",
            "mcp__github__list_issues"
        ]
    );
    let dont_ask = child_scope(
        &parent(),
        &policy,
        &def(None, &[], PermissionMode::DontAsk),
        false,
    );
    assert_eq!(
        names(&dont_ask),
        [
            "read_file",
            "grep",
            "write_file",
            "mcp__docs__search",
            "mcp__github__list_issues"
        ],
        "only what the parent runs without asking"
    );
}

#[test]
fn mcp_servers_narrow_to_the_named_connections() {
    let mut only_docs = def(None, &[], PermissionMode::Inherit);
    only_docs.mcp_servers = vec!["docs".into(), "absent".into()];
    let scope = child_scope(&parent(), &Policy::new(), &only_docs, false);
    let have = names(&scope);
    assert!(have.contains(&"mcp__docs__search") && have.contains(&"read_file"));
    assert!(
        !have.iter().any(|n| n.starts_with("mcp__github")),
        "{have:?}"
    );
}

#[test]
fn randomised_definitions_never_beat_the_parent() {
    let entries = [
        "*",
        "Read",
        "Bash",
        "Bash(x)",
        "Write",
        "mcp__*",
        "mcp__github",
        "Task",
        "Skill",
        "activate_skill",
        "fetch_url",
        "grep",
        "nope",
    ];
    let modes = [
        PermissionMode::Inherit,
        PermissionMode::Plan,
        PermissionMode::DontAsk,
    ];
    let mut rng = crate::test_rng::Rng(28);
    for _ in 0..300 {
        let pick = |rng: &mut crate::test_rng::Rng| -> Vec<&str> {
            (0..rng.below(4))
                .map(|_| entries[rng.below(entries.len())])
                .collect()
        };
        let mut policy = Policy::new();
        for pattern in pick(&mut rng) {
            let (p, _) = super::entry_pattern(pattern);
            let _ = match rng.below(4) {
                0 => policy.deny(&p).map(|_| ()),
                1 => policy.ask(&p).map(|_| ()),
                2 => policy.allow(&p).map(|_| ()),
                _ => policy.deny_for_run(&p),
            };
        }
        let tools = pick(&mut rng);
        let definition = def(
            (rng.below(2) == 0).then_some(&tools[..]),
            &pick(&mut rng),
            modes[rng.below(3)],
        );
        let scope = child_scope(&parent(), &policy, &definition, rng.below(2) == 0);
        let mut child_policy = scope.policy.clone();
        child_policy.clear_run();
        for spec in scope.registry.tools() {
            assert_ne!(spec.source, ToolSource::Skill);
            let theirs = policy.decide_tool(spec);
            let ours = child_policy.decide_tool(spec);
            assert!(
                severity(&ours) >= severity(&theirs) && severity(&ours) < 2,
                "{}: child {ours:?}, parent {theirs:?}, def {definition:?}, policy {policy:?}",
                spec.name
            );
        }
    }
}

#[test]
fn what_a_scope_cannot_honour_is_said_once_when_the_definition_joins_a_set() {
    let clean = def(
        Some(&["Read", "mcp__github__*"]),
        &["Bash"],
        PermissionMode::Inherit,
    );
    assert!(
        scope_warnings(&clean).is_empty(),
        "{:?}",
        scope_warnings(&clean)
    );
    let odd = def(
        Some(&["Bash(git status)", "not a pattern!"]),
        &["bad pattern!"],
        PermissionMode::Inherit,
    );
    let warnings = scope_warnings(&odd);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].contains("disallowedTools") && warnings[0].contains("no tools"));
    assert!(warnings[1].contains("Bash(git status)") && warnings[1].contains("asks"));
    assert!(warnings[2].contains("not a pattern!") && warnings[2].contains("ignored"));
    // `agents list` shows a definition's warnings: joining a set adds the scope's.
    let mut set = AgentSet::default();
    set.insert(odd.clone());
    assert_eq!(set.get("child").unwrap().warnings, warnings);
}
