//! Direct calls: same gate (deny only), same audit, no questions, no history.

use super::*;
use crate::registry::ToolSource;

#[test]
fn direct_call_runs_write_tools_without_asking_and_audits() {
    let mut agent = Agent::new(registry(), Policy::new(), AgentConfig::default());
    let t = Instant::from_millis;
    let inv = agent
        .begin_direct_call(t(100), CREATE, json!({"title": "x", "token": "s3cret"}))
        .unwrap();
    assert_eq!(inv.call_id, "direct-1");
    assert_eq!(
        inv.target,
        ToolSource::Mcp {
            server: "gh".into(),
            original_name: "create_issue".into()
        }
    );
    assert!(agent.poll_action().is_none() && agent.poll_event().is_none());
    let result = agent
        .finish_direct_call(t(130), "direct-1", Ok(ToolOutput::text("created #5")))
        .unwrap();
    assert_eq!(
        result,
        DirectCallResult {
            text: "created #5".into(),
            truncated: false,
            is_error: false
        }
    );
    let record = agent.poll_audit().unwrap();
    assert_eq!(record.outcome, Outcome::Ok);
    assert_eq!(record.duration.as_millis(), 30);
    assert_eq!(record.server.as_deref(), Some("gh"));
    assert_eq!(record.args_summary, r#"{"title":"x","token":"[REDACTED]"}"#);
    assert!(
        agent.history().is_empty(),
        "direct calls are not conversation"
    );
    assert_eq!(
        agent.finish_direct_call(t(140), "direct-1", Ok(ToolOutput::text("again"))),
        Err(AgentError::UnknownCall("direct-1".into()))
    );
}

#[test]
fn direct_call_is_blocked_by_deny_rules_and_audited() {
    let mut policy = Policy::new();
    policy.deny("mcp__gh").unwrap();
    let mut agent = Agent::new(registry(), policy, AgentConfig::default());
    let t = Instant::from_millis;
    let err = agent.begin_direct_call(t(0), GET, json!({})).unwrap_err();
    assert_eq!(
        err,
        DirectCallError::Denied {
            tool: GET.into(),
            rule: "deny mcp__gh".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "tool \"mcp__gh__get_issue\" is denied by permission rule `deny mcp__gh`"
    );
    let record = agent.poll_audit().unwrap();
    assert_eq!(record.outcome, Outcome::Denied);
    assert_eq!(record.server.as_deref(), Some("gh"));

    assert_eq!(
        agent.begin_direct_call(t(0), "nope", json!({})),
        Err(DirectCallError::UnknownTool("nope".into()))
    );
    assert_eq!(agent.poll_audit().unwrap().outcome, Outcome::Error);
    assert_eq!(
        agent.begin_direct_call(t(0), "shell", json!([1])),
        Err(DirectCallError::InvalidArguments("shell".into()))
    );
}

#[test]
fn direct_call_failures_and_limits() {
    let mut agent = Agent::new(registry(), Policy::new(), AgentConfig::default());
    agent
        .registry_mut()
        .register_builtin(
            ToolSpec::builtin("dump", "", json!({}), Risk::Read).with_max_output_chars(4),
        )
        .unwrap();
    let t = Instant::from_millis;
    let inv = agent.begin_direct_call(t(0), "dump", json!({})).unwrap();
    let result = agent
        .finish_direct_call(t(1), &inv.call_id, Ok(ToolOutput::text("abcdefgh")))
        .unwrap();
    assert!(result.truncated && result.text.starts_with("abcd\n[output truncated"));
    let inv = agent.begin_direct_call(t(0), "shell", json!({})).unwrap();
    assert_eq!(inv.call_id, "direct-2");
    let result = agent
        .finish_direct_call(t(1), &inv.call_id, Err(ToolFailure::Timeout))
        .unwrap();
    assert!(result.is_error);
    let outcomes: Vec<_> = std::iter::from_fn(|| agent.poll_audit())
        .map(|r| (r.outcome, r.truncated))
        .collect();
    assert_eq!(outcomes, [(Outcome::Ok, true), (Outcome::Timeout, false)]);
}

#[test]
fn direct_calls_do_not_disturb_a_run() {
    let mut h = Harness::default().script([reply(None, &[("c1", GET, json!({}))]), answer("fine")]);
    let t = Instant::from_millis;
    h.agent.start_run(t(0), "go").unwrap();
    let inv = h.agent.begin_direct_call(t(0), LIST, json!({})).unwrap();
    h.drive();
    h.agent
        .finish_direct_call(t(5), &inv.call_id, Ok(ToolOutput::text("x")))
        .unwrap();
    assert!(!h.agent.is_running());
    assert_eq!(h.agent.history().len(), 4);
    assert_history_consistent(h.agent.history());
}
