//! The gate does not rely on what an untrusted server says about its own tools: a distrusted
//! server's `read` tool asks, and so does a tool that changed after the first listing, unless
//! an override or an allow rule covers it.

use super::*;
use crate::registry::RiskOverrides;

fn get_status() -> Value {
    json!({"name": "get_status", "description": "Reports the status", "inputSchema": {"type": "object"}})
}

/// One call of `name`, answered "Done." after it.
fn one_call(h: Harness, name: &str) -> Harness {
    h.script([reply(None, &[("c1", name, json!({}))]), answer("Done.")])
}

fn asked(log: &[String]) -> bool {
    log.iter().any(|line| line == "ask c1")
}

#[test]
fn a_distrusted_servers_read_tool_asks_unless_an_override_or_rule_covers_it() {
    let setup = |overrides: RiskOverrides, policy: Policy| {
        let mut h = Harness::new(policy, AgentConfig::default());
        let registry = h.agent.registry_mut();
        registry.set_overrides(overrides);
        registry.load_server("proj", &[get_status()]);
        one_call(h, "mcp__proj__get_status")
    };
    let mut distrusted = RiskOverrides::new();
    distrusted.distrust_server("proj");

    let mut h = setup(distrusted.clone(), Policy::new()).approvals(&[Approval::No]);
    let log = h.run("status?");
    assert!(asked(&log), "{log:?}");
    // Display and concurrency still see the inferred risk.
    assert!(log.contains(&"approve? c1 read".to_owned()), "{log:?}");
    let spec = h.agent.registry().get("mcp__proj__get_status").unwrap();
    assert_eq!((spec.risk, spec.risk_trusted), (Risk::Read, false));
    assert!(spec.concurrency_safe);

    // The same server, trusted: the name decides.
    let log = setup(RiskOverrides::new(), Policy::new()).run("status?");
    assert!(
        !asked(&log) && log.contains(&"end c1 ok".to_owned()),
        "{log:?}"
    );

    // An allow rule covers it.
    let mut allow = Policy::new();
    allow.allow("mcp__proj__get_status").unwrap();
    let log = setup(distrusted.clone(), allow).run("status?");
    assert!(!asked(&log), "{log:?}");

    // So does an override (the user's word), per tool or per server.
    let mut fixed = distrusted.clone();
    fixed.set_tool("proj", "get_status", Risk::Read);
    let log = setup(fixed, Policy::new()).run("status?");
    assert!(!asked(&log), "{log:?}");
    let mut fixed = distrusted.clone();
    fixed.set_server("proj", Risk::Read);
    let log = setup(fixed, Policy::new()).run("status?");
    assert!(!asked(&log), "{log:?}");

    // A deny rule still wins.
    let mut deny = Policy::new();
    deny.deny("mcp__proj").unwrap();
    let log = setup(distrusted, deny).run("status?");
    assert!(
        log.contains(&"audit c1 denied".to_owned()) && !asked(&log),
        "{log:?}"
    );
}

#[test]
fn a_tool_that_changes_mid_session_asks() {
    let mut h = Harness::default();
    let registry = h.agent.registry_mut();
    let ro = json!({"readOnlyHint": true});
    registry.load_server(
        "srv",
        &[
            get_status(),
            json!({"name": "list_things", "inputSchema": {"type": "object"}}),
            json!({"name": "weather", "annotations": ro, "inputSchema": {"type": "object"}}),
        ],
    );
    let trusted = |h: &Harness, name: &str| h.agent.registry().get(name).map(|t| t.risk_trusted);
    assert_eq!(trusted(&h, "mcp__srv__get_status"), Some(true));
    assert_eq!(trusted(&h, "mcp__srv__weather"), Some(true));
    // list_changed: one tool kept as it was, one renamed, one with new annotations, one whose
    // description changed, and a new one.
    h.agent.registry_mut().load_server(
        "srv",
        &[
            get_status(),
            json!({"name": "get_things", "inputSchema": {"type": "object"}}),
            json!({"name": "weather", "annotations": {"readOnlyHint": true, "title": "W"},
                   "inputSchema": {"type": "object"}}),
            json!({"name": "list_things", "description": "now different"}),
            json!({"name": "read_all"}),
        ],
    );
    assert_eq!(trusted(&h, "mcp__srv__get_status"), Some(true), "unchanged");
    for changed in ["get_things", "weather", "list_things", "read_all"] {
        let name = format!("mcp__srv__{changed}");
        assert_eq!(trusted(&h, &name), Some(false), "{changed}");
        assert_eq!(h.agent.registry().get(&name).unwrap().risk, Risk::Read);
    }
    let mut h = one_call(h, "mcp__srv__get_things").approvals(&[Approval::Yes]);
    let log = h.run("things?");
    assert!(asked(&log), "{log:?}");
    // An override applied later covers a changed tool; a later listing does not reset it.
    let mut overrides = RiskOverrides::new();
    overrides.set_tool("srv", "get_things", Risk::Read);
    let registry = h.agent.registry_mut();
    registry.set_overrides(overrides);
    assert_eq!(trusted(&h, "mcp__srv__get_things"), Some(true));
    assert_eq!(trusted(&h, "mcp__srv__read_all"), Some(false));
    assert_eq!(trusted(&h, "mcp__srv__get_status"), Some(true));

    // A new connection (the server removed and added again) starts a new first listing.
    let registry = h.agent.registry_mut();
    registry.remove_server("srv");
    registry.load_server("srv", &[json!({"name": "read_all"})]);
    assert_eq!(trusted(&h, "mcp__srv__read_all"), Some(true));
    let registry = h.agent.registry_mut();
    registry.record_server_failure("srv", "gone");
    registry.load_server("srv", &[json!({"name": "get_other"})]);
    assert_eq!(trusted(&h, "mcp__srv__get_other"), Some(true));
}

#[test]
fn built_in_tools_are_trusted_and_gate_risk_raises_only_untrusted_reads() {
    let spec = ToolSpec::builtin("peek", "", json!({}), Risk::Read);
    assert!(spec.risk_trusted);
    assert_eq!(spec.gate_risk(), Risk::Read);
    let mut untrusted = spec.clone();
    untrusted.risk_trusted = false;
    assert_eq!(untrusted.gate_risk(), Risk::Write);
    untrusted.risk = Risk::Execute;
    assert_eq!(untrusted.gate_risk(), Risk::Execute, "never lowered");
    untrusted.risk = Risk::Network;
    assert_eq!(untrusted.gate_risk(), Risk::Write);
}
