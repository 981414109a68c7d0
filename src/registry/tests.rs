use super::*;
use serde_json::json;

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("does {name}"), "inputSchema": {"type": "object"}})
}

fn names(reg: &Registry) -> Vec<&str> {
    reg.tools().iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn mcp_tools_are_prefixed_and_keep_their_original_names() {
    let mut reg = Registry::new();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "x-odd": [1, 2],
               "$schema": "nested, kept"}}, "required": ["n"]});
    // `$schema` first, so dropping it must keep the other keys in order.
    let sent = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": schema["properties"].clone(), "required": ["n"]});
    let report = reg.load_server(
        "github",
        &[
            json!({"name": "get_issue", "description": "Get an issue", "inputSchema": sent,
                  "annotations": {"readOnlyHint": true}}),
        ],
    );
    assert!(report.is_clean());
    assert_eq!(report.loaded, ["mcp__github__get_issue"]);
    let spec = reg.get("mcp__github__get_issue").unwrap();
    assert_eq!(spec.description, "Get an issue", "no [MCP:<server>] prefix");
    assert_eq!(
        spec.input_schema.to_string(),
        schema.to_string(),
        "schema kept verbatim (key order too) but for its top-level $schema"
    );
    assert_eq!(spec.risk, Risk::Read);
    assert!(spec.concurrency_safe);
    assert_eq!(
        spec.source,
        ToolSource::Mcp {
            server: "github".into(),
            original_name: "get_issue".into()
        }
    );
    assert_eq!(spec.call_name(), "get_issue");
    assert_eq!(spec.server(), Some("github"));
    assert_eq!(spec.timeout, DEFAULT_TOOL_TIMEOUT);
}

#[test]
fn builtin_clash_is_an_error_naming_both_and_the_first_stays() {
    let mut reg = Registry::new();
    let first = ToolSpec::builtin("shell", "first", json!({"type": "object"}), Risk::Execute);
    reg.register_builtin(first.clone()).unwrap();
    let second = ToolSpec::builtin("shell", "second", json!({"type": "object"}), Risk::Read);
    let err = reg.register_builtin(second).unwrap_err();
    assert!(matches!(err, RegistryError::Clash { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("\"shell\"") && msg.contains("already taken by built-in tool"),
        "{msg}"
    );
    assert_eq!(reg.get("shell").unwrap().description, "first");
    assert_eq!(reg.len(), 1);

    let err = reg
        .register_builtin(ToolSpec::builtin("bad name", "", json!({}), Risk::Read))
        .unwrap_err();
    assert!(err.to_string().contains("character \" \""), "{err}");
}

#[test]
fn duplicate_mcp_tool_is_skipped_with_both_named() {
    let mut reg = Registry::new();
    let mut dup = tool("get_issue");
    dup["description"] = json!("second copy");
    let report = reg.load_server("gh", &[tool("get_issue"), dup]);
    assert_eq!(report.loaded, ["mcp__gh__get_issue"]);
    assert_eq!(report.skipped.len(), 1);
    let reason = &report.skipped[0].reason;
    assert!(
        reason.contains("already taken by tool \"get_issue\" of MCP server \"gh\""),
        "{reason}"
    );
    assert_eq!(
        reg.get("mcp__gh__get_issue").unwrap().description,
        "does get_issue"
    );
}

#[test]
fn sanitised_clashes_get_a_stable_hash_suffix() {
    let mut reg = Registry::new();
    let report = reg.load_server(
        "fs",
        &[tool("read.file"), tool("read_file"), tool("read file")],
    );
    assert!(report.is_clean(), "{report:?}");
    let hash_a = names::stable_hash("fs", "read.file");
    let hash_c = names::stable_hash("fs", "read file");
    // The tool whose name needs no sanitising keeps the plain name, wherever it is listed;
    // the report keeps the server's list order.
    assert_eq!(
        report.loaded,
        [
            format!("mcp__fs__read_file_{hash_a}"),
            "mcp__fs__read_file".to_owned(),
            format!("mcp__fs__read_file_{hash_c}"),
        ]
    );
    assert_eq!(names(&reg), report.loaded, "registry in list order too");
    // Each still routes to its own original name.
    assert_eq!(
        reg.get("mcp__fs__read_file").unwrap().call_name(),
        "read_file"
    );
    assert_eq!(reg.get(&report.loaded[0]).unwrap().call_name(), "read.file");
    assert_eq!(reg.get(&report.loaded[2]).unwrap().call_name(), "read file");
    // Same input, same names: the suffix is deterministic.
    let mut again = Registry::new();
    assert_eq!(
        again
            .load_server(
                "fs",
                &[tool("read.file"), tool("read_file"), tool("read file")]
            )
            .loaded,
        report.loaded
    );
}

#[test]
fn a_duplicate_after_a_sanitised_clash_is_still_skipped_in_list_order() {
    let mut reg = Registry::new();
    let report = reg.load_server(
        "s",
        &[json!(7), tool("a.b"), tool("a_b"), tool("a_b"), tool("c")],
    );
    assert_eq!(
        report.loaded,
        [
            format!("mcp__s__a_b_{}", names::stable_hash("s", "a.b")),
            "mcp__s__a_b".to_owned(),
            "mcp__s__c".to_owned(),
        ]
    );
    let skipped: Vec<_> = report.skipped.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(skipped, ["#0", "a_b"]);
    assert!(!report.is_clean());
}

#[test]
fn builtins_cannot_take_names_in_a_namespace_someone_else_owns() {
    let mut reg = Registry::new();
    reg.load_server("github", &[tool("get_issue")]);
    let cases = [
        ("mcp__github__delete_repo", "MCP server \"github\""),
        ("mcp__x__t", "MCP server \"x\""),
        ("mcp__", "MCP server \"\""),
        ("plugin__acme__nuke", "plugin \"acme\""),
        ("activate_skill", "the agentwire core"),
        ("read_skill_file", "the agentwire core"),
        ("tool_search", "the agentwire core"),
        ("call_tool", "the agentwire core"),
    ];
    for (name, owner) in cases {
        let err = reg
            .register_builtin(ToolSpec::builtin(name, "mine", json!({}), Risk::Read))
            .unwrap_err();
        assert!(
            matches!(&err, RegistryError::Reserved { name: n, .. } if n == name),
            "{name}: {err:?}"
        );
        assert!(err.to_string().contains(owner), "{name}: {err}");
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
    assert_eq!(names(&reg), ["mcp__github__get_issue"], "nothing was added");
    // Names that merely resemble a namespace stay free for the host.
    for name in [
        "mcp_helper",
        "my__mcp__x",
        "plugin_x",
        "tool_searcher",
        "Activate_skill",
    ] {
        reg.register_builtin(ToolSpec::builtin(name, "", json!({}), Risk::Read))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn plugin_tools_live_in_their_namespace_and_cannot_lower_their_risk() {
    let mut reg = Registry::new();
    let read = |name: &str| ToolSpec::builtin(name, "", json!({}), Risk::Read);
    let name = reg
        .register_plugin_tool("evil", read("delete_everything"), false)
        .unwrap();
    assert_eq!(name, "plugin__evil__delete_everything");
    let spec = reg.get(&name).unwrap();
    assert!(
        spec.risk > Risk::Read,
        "declared read, inferred {:?}",
        spec.risk
    );
    assert!(!spec.concurrency_safe);
    assert!(spec.gate_risk() > Risk::Read);
    let nuke = reg
        .register_plugin_tool("evil", read("nuke"), false)
        .unwrap();
    assert!(
        reg.get(&nuke).unwrap().gate_risk() > Risk::Read,
        "a bare read claim"
    );
    let spec = reg.get(&name).unwrap();
    assert_eq!(spec.plugin(), Some("evil"));
    assert_eq!(spec.call_name(), "delete_everything");
    assert_eq!(spec.source_label(), "plugin");
    // A plugin the host trusts keeps its declared risk.
    let trusted = reg
        .register_plugin_tool("good", read("delete_cache"), true)
        .unwrap();
    assert_eq!(reg.get(&trusted).unwrap().gate_risk(), Risk::Read);
    // A plugin name cannot smuggle `__` into another plugin's namespace.
    let sneaky = reg
        .register_plugin_tool("evil__good", read("x"), false)
        .unwrap();
    assert_eq!(sneaky, "plugin__evil-good__x");
    // A plugin tool named into a reserved namespace is refused, naming the owner.
    for (stolen, owner) in [
        ("mcp__github__delete_repo", "github"),
        ("activate_skill", "core"),
        ("plugin__good__x", "good"),
    ] {
        let err = reg
            .register_plugin_tool("evil", read(stolen), false)
            .unwrap_err();
        assert!(
            matches!(&err, RegistryError::Reserved { owner: o, .. } if o.contains(owner)),
            "{stolen}: {err:?}"
        );
    }
    // The same tool twice is a clash; the first stays.
    let err = reg
        .register_plugin_tool("evil", read("delete_everything"), false)
        .unwrap_err();
    assert!(matches!(err, RegistryError::Clash { .. }), "{err:?}");
    // Removing a plugin removes exactly its tools and its servers' tools.
    reg.load_server("plugin_evil_srv", &[tool("drop_db")]);
    reg.load_server("plugin_evilx_srv", &[tool("keep")]);
    reg.record_server_failure("plugin_evil_broken", "no such command");
    reg.register_builtin(read("bash")).unwrap();
    assert_eq!(reg.remove_plugin("evil"), 3);
    assert_eq!(
        reg.server_error("plugin_evil_broken"),
        None,
        "its failed server went too"
    );
    assert_eq!(reg.servers().collect::<Vec<_>>(), ["plugin_evilx_srv"]);
    assert_eq!(
        names(&reg),
        [
            "bash",
            "plugin__good__delete_cache",
            "plugin__evil-good__x",
            "mcp__plugin_evilx_srv__keep"
        ]
    );
}

#[test]
fn long_and_unicode_names_are_valid_for_models() {
    let mut reg = Registry::new();
    let long = "x".repeat(80);
    let report = reg.load_server("ünï", &[tool(&long), tool("тест")]);
    assert!(report.is_clean());
    for name in &report.loaded {
        assert!(names::is_valid_tool_name(name), "{name}");
    }
    assert_eq!(reg.get(&report.loaded[0]).unwrap().call_name(), long);
    assert_eq!(reg.get(&report.loaded[1]).unwrap().call_name(), "тест");
}

#[test]
fn malformed_entries_are_skipped_and_the_rest_load() {
    let mut reg = Registry::new();
    let report = reg.load_server(
        "s",
        &[
            json!("nope"),
            json!({"description": "no name"}),
            json!({"name": "a", "inputSchema": "string"}),
            json!({"name": "b"}),
        ],
    );
    assert_eq!(report.loaded, ["mcp__s__b"]);
    let reasons: Vec<_> = report.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert!(reasons[0].contains("#0") && reasons[0].contains("JSON object"));
    assert!(reasons[1].contains("non-empty string \"name\""));
    assert!(reasons[2].contains("\"inputSchema\" must be an object"));
    assert_eq!(report.skipped[2].name, "a");
    // A tool without a schema gets an empty object schema.
    assert_eq!(reg.get("mcp__s__b").unwrap().input_schema["type"], "object");
}

#[test]
fn failed_server_has_an_error_and_no_tools_while_others_load() {
    let mut reg = Registry::new();
    reg.load_server("a", &[tool("get_x")]);
    reg.load_server("b", &[tool("get_y")]);
    reg.record_server_failure("b", "spawn failed: no such file");
    reg.record_server_failure("c", "initialize timed out");
    assert_eq!(names(&reg), ["mcp__a__get_x"]);
    assert_eq!(
        reg.server_errors().collect::<Vec<_>>(),
        [
            ("b", "spawn failed: no such file"),
            ("c", "initialize timed out")
        ]
    );
    assert_eq!(reg.servers().collect::<Vec<_>>(), ["a"]);
    // A successful reload clears the failure.
    reg.load_server("b", &[tool("get_y")]);
    assert_eq!(reg.server_error("b"), None);
}

#[test]
fn remove_and_reload_touch_exactly_one_server() {
    let mut reg = Registry::new();
    reg.register_builtin(ToolSpec::builtin("local", "", json!({}), Risk::Read))
        .unwrap();
    reg.load_server("zeta", &[tool("z1")]);
    reg.load_server("alpha", &[tool("a1"), tool("a2")]);
    reg.load_server("mid", &[tool("m1")]);
    assert_eq!(
        names(&reg),
        [
            "local",
            "mcp__alpha__a1",
            "mcp__alpha__a2",
            "mcp__mid__m1",
            "mcp__zeta__z1"
        ],
        "built-ins first, then servers by name"
    );
    let report = reg.load_server("alpha", &[tool("a3"), tool("a1")]);
    assert_eq!(report.replaced, 2);
    assert_eq!(
        names(&reg),
        [
            "local",
            "mcp__alpha__a3",
            "mcp__alpha__a1",
            "mcp__mid__m1",
            "mcp__zeta__z1"
        ]
    );
    assert_eq!(reg.remove_server("mid"), 1);
    assert_eq!(reg.remove_server("nope"), 0);
    assert_eq!(
        names(&reg),
        ["local", "mcp__alpha__a3", "mcp__alpha__a1", "mcp__zeta__z1"]
    );
    let defs: Vec<_> = reg.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(defs, names(&reg));
}

#[test]
fn squeezed_server_part_keeps_lookalike_servers_apart() {
    // Server "a__b" and tool "c" vs server "a" and tool "b__c": the squeezed server part keeps
    // them apart, so neither needs a suffix and both survive each other's reloads.
    let mut reg = Registry::new();
    reg.load_server("a__b", &[tool("c")]);
    reg.load_server("a", &[tool("b__c")]);
    assert_eq!(names(&reg), ["mcp__a__b__c", "mcp__a_b__c"]);
    reg.load_server("a__b", &[tool("c")]);
    assert_eq!(names(&reg), ["mcp__a__b__c", "mcp__a_b__c"]);
}

#[test]
fn risk_comes_from_overrides_annotations_and_names() {
    let mut reg = Registry::new();
    let mut overrides = RiskOverrides::new();
    overrides.set_tool("gh", "list_issues", Risk::Write);
    reg.set_overrides(overrides);
    reg.load_server(
        "gh",
        &[
            tool("list_issues"),
            tool("create_issue"),
            json!({"name": "delete_repo", "annotations": {"readOnlyHint": true}}),
            json!({"name": "weather", "annotations": {"readOnlyHint": true}}),
        ],
    );
    let risk = |n: &str| reg.get(n).unwrap().risk;
    assert_eq!(risk("mcp__gh__list_issues"), Risk::Write);
    assert_eq!(risk("mcp__gh__create_issue"), Risk::Write);
    assert_eq!(
        risk("mcp__gh__delete_repo"),
        Risk::Write,
        "untrusted hint cannot lower"
    );
    assert_eq!(risk("mcp__gh__weather"), Risk::Read);
    assert!(!reg.get("mcp__gh__create_issue").unwrap().concurrency_safe);

    // Re-applying overrides updates loaded tools: trust lowers, a server override applies.
    let mut overrides = RiskOverrides::new();
    overrides
        .trust_server("gh")
        .set_tool("gh", "weather", Risk::Network);
    reg.set_overrides(overrides);
    assert_eq!(reg.get("mcp__gh__delete_repo").unwrap().risk, Risk::Read);
    assert!(reg.get("mcp__gh__delete_repo").unwrap().concurrency_safe);
    assert_eq!(reg.get("mcp__gh__list_issues").unwrap().risk, Risk::Read);
    assert_eq!(reg.get("mcp__gh__weather").unwrap().risk, Risk::Network);
}

#[test]
fn builtin_overrides_and_limits_apply() {
    let mut reg = Registry::new();
    let mut overrides = RiskOverrides::new();
    overrides.set_builtin("peek", Risk::Write);
    reg.set_overrides(overrides);
    reg.register_builtin(ToolSpec::builtin("peek", "", json!({}), Risk::Read))
        .unwrap();
    assert_eq!(reg.get("peek").unwrap().risk, Risk::Write);
    assert!(!reg.get("peek").unwrap().concurrency_safe);

    let limits = ToolLimits {
        timeout: Duration::from_secs(5),
        max_output_chars: 10,
    };
    reg.set_server_limits("slow", limits);
    reg.load_server("slow", &[tool("t")]);
    reg.load_server("other", &[tool("t")]);
    assert_eq!(
        reg.get("mcp__slow__t").unwrap().timeout,
        Duration::from_secs(5)
    );
    assert_eq!(reg.get("mcp__slow__t").unwrap().max_output_chars, 10);
    assert_eq!(
        reg.get("mcp__other__t").unwrap().max_output_chars,
        DEFAULT_MAX_OUTPUT_CHARS
    );
    assert!(reg.unregister_builtin("peek").is_some());
    assert!(
        reg.unregister_builtin("mcp__other__t").is_none(),
        "MCP tools leave with their server"
    );
}

#[test]
fn load_report_serialises() {
    let mut reg = Registry::new();
    let report = reg.load_server("s", &[tool("a"), json!(1)]);
    assert_eq!(
        report.to_value(),
        json!({"server": "s", "loaded": ["mcp__s__a"], "replaced": 0,
               "skipped": [{"name": "#1", "reason": "MCP server \"s\", tool #1: a tool must be a JSON object"}]})
    );
}

#[test]
fn a_relisted_tool_never_weighs_less_than_before() {
    let mut reg = Registry::new();
    let ro = json!({"readOnlyHint": true});
    reg.load_server(
        "s",
        &[
            json!({"name": "run_shell"}),
            json!({"name": "peek", "annotations": ro}),
        ],
    );
    let risk = |reg: &Registry, name: &str| reg.get(name).map(|t| (t.risk, t.gate_risk()));
    assert_eq!(
        risk(&reg, "mcp__s__run_shell"),
        Some((Risk::Execute, Risk::Execute))
    );
    // Re-annotated read-only and re-described: still execute.
    let calm = json!({"name": "run_shell", "description": "harmless", "annotations": ro});
    reg.load_server(
        "s",
        &[calm.clone(), json!({"name": "peek", "annotations": ro})],
    );
    assert_eq!(
        risk(&reg, "mcp__s__run_shell"),
        Some((Risk::Execute, Risk::Execute))
    );
    assert!(!reg.get("mcp__s__run_shell").unwrap().concurrency_safe);
    // Unchanged tools keep their trusted risk.
    assert_eq!(risk(&reg, "mcp__s__peek"), Some((Risk::Read, Risk::Read)));
    // A tool first listed as read, then as write, then as read again keeps write (the last
    // listing's weight), and asks like every changed tool.
    let destructive = json!({"readOnlyHint": false, "destructiveHint": true});
    reg.load_server("s", &[json!({"name": "peek", "annotations": destructive})]);
    let before = reg.get("mcp__s__peek").unwrap().risk;
    assert_eq!(before, Risk::Write);
    reg.load_server(
        "s",
        &[json!({"name": "peek", "annotations": {"readOnlyHint": true, "title": "x"}})],
    );
    assert_eq!(risk(&reg, "mcp__s__peek"), Some((Risk::Write, Risk::Write)));
    // A renamed tool has no past: it is as new, and asks (gate at least write).
    reg.load_server("s", &[json!({"name": "peek_all", "annotations": ro})]);
    assert_eq!(
        risk(&reg, "mcp__s__peek_all"),
        Some((Risk::Read, Risk::Write))
    );
    // A new connection starts over.
    reg.remove_server("s");
    reg.load_server("s", &[calm, json!({"name": "peek", "annotations": ro})]);
    assert_eq!(risk(&reg, "mcp__s__peek"), Some((Risk::Read, Risk::Read)));
}
