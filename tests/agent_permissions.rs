//! The permission gate and the audit trail, seen through the whole runtime: deny rules, approval
//! questions and their answers, one audit record per call with secrets redacted, and direct
//! calls that obey deny rules but never ask.

mod support;

use agentwire::agent::{Approval, DirectCallError};
use agentwire::audit::Outcome;
use agentwire::driver::DirectCallOutput;
use agentwire::policy::Policy;
use agentwire::registry::{Risk, ToolLimits};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use support::host::{answer, calls, Host, Observer, ScriptedModel};
use support::scripted_server::{calls_seen, spawn_server, Behaviour};
use support::stepper::Stepper;

/// A GitHub token shape the redactor must recognise by key and by value.
const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

/// Every message a scripted server received.
type Seen = Rc<RefCell<Vec<Value>>>;

/// A runtime with `policy` and scripted server `a`, whose calls time out after one second.
/// Returns the host and what server `a` received.
fn host_with_a(policy: Policy, model: &Rc<ScriptedModel>) -> (Host, Seen) {
    let mut host = Host::with_policy(policy, model.clone());
    let limits = ToolLimits {
        timeout: Duration::from_secs(1),
        ..ToolLimits::default()
    };
    host.runtime
        .with_agent(|a| a.registry_mut().set_server_limits("a", limits));
    let server = spawn_server(&host.pool, "a", Behaviour::Normal);
    host.add_server("a", server.transport);
    (host, server.seen)
}

#[test]
fn a_deny_rule_blocks_an_mcp_tool_and_the_model_is_told() {
    let mut policy = Policy::new();
    policy.deny("mcp__a").unwrap();
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "mcp__a__echo", json!({"text": "to a"})),
            ("c2", "mcp__b__echo", json!({"text": "to b"})),
        ]),
        answer("a is off limits."),
    ]);
    let (mut host, a) = host_with_a(policy, &model);
    let b = spawn_server(&host.pool, "b", Behaviour::Normal);
    host.add_server("b", b.transport);
    let observer = Observer::default();
    host.run("echo on a and b", &observer).unwrap();

    assert_eq!(
        observer.take_log(),
        [
            "step_start 1",
            r#"tool_start c1 mcp__a__echo {"text":"to a"}"#,
            "tool_end c1 mcp__a__echo ok=false",
            r#"tool_start c2 mcp__b__echo {"text":"to b"}"#,
            "tool_end c2 mcp__b__echo ok=true",
            "step_start 2",
            "model_text",
            "done steps=2",
        ]
    );
    assert_eq!(
        observer.audit_log(),
        ["c1 mcp__a__echo denied", "c2 mcp__b__echo ok"]
    );
    // The model learns which rule refused the call; the other server's call went through.
    assert_eq!(
        model.tool_results(1),
        [
            (
                "c1".to_owned(),
                "denied: the permission rule `deny mcp__a` does not allow mcp__a__echo; \
                 do not retry it"
                    .to_owned(),
                true
            ),
            ("c2".to_owned(), "b echoed to b".to_owned(), false),
        ]
    );
    assert!(calls_seen(&a).is_empty(), "a denied call never runs");
    assert_eq!(calls_seen(&b.seen).len(), 1);
    assert!(observer.asked.borrow().is_empty(), "deny does not ask");
    let audits = observer.take_audits();
    assert_eq!(audits[0].server.as_deref(), Some("a"));
    assert!(audits[0]
        .error
        .as_deref()
        .unwrap()
        .contains("`deny mcp__a`"));
}

#[test]
fn ask_produces_approval_requests_answered_yes_no_and_always() {
    let publish =
        |id: &'static str, text: &str| calls(&[(id, "mcp__a__publish", json!({"text": text}))]);
    let model = ScriptedModel::new([
        publish("c1", "1"),
        publish("c2", "2"),
        publish("c3", "3"),
        publish("c4", "4"),
        answer("Published three of four."),
        publish("c5", "5"),
        answer("Published again."),
    ]);
    let (mut host, a) = host_with_a(Policy::new(), &model);
    let observer = Observer::answering([Approval::Yes, Approval::No, Approval::Always]);
    host.run("publish four times", &observer).unwrap();

    assert_eq!(
        observer.take_log(),
        [
            "step_start 1",
            r#"tool_start c1 mcp__a__publish {"text":"1"}"#,
            "approval_request c1 mcp__a__publish write",
            "tool_end c1 mcp__a__publish ok=true",
            "step_start 2",
            r#"tool_start c2 mcp__a__publish {"text":"2"}"#,
            "approval_request c2 mcp__a__publish write",
            "tool_end c2 mcp__a__publish ok=false",
            "step_start 3",
            r#"tool_start c3 mcp__a__publish {"text":"3"}"#,
            "approval_request c3 mcp__a__publish write",
            "tool_end c3 mcp__a__publish ok=true",
            "step_start 4",
            r#"tool_start c4 mcp__a__publish {"text":"4"}"#,
            "tool_end c4 mcp__a__publish ok=true",
            "step_start 5",
            "model_text",
            "done steps=5",
        ]
    );
    assert_eq!(
        observer.audit_log(),
        [
            "c1 mcp__a__publish ok",
            "c2 mcp__a__publish denied",
            "c3 mcp__a__publish ok",
            "c4 mcp__a__publish ok",
        ]
    );
    let asked: Vec<(String, Value, Risk)> = observer
        .asked
        .borrow()
        .iter()
        .map(|r| (r.call_id.clone(), r.arguments.clone(), r.risk))
        .collect();
    assert_eq!(
        asked,
        [
            ("c1".to_owned(), json!({"text": "1"}), Risk::Write),
            ("c2".to_owned(), json!({"text": "2"}), Risk::Write),
            ("c3".to_owned(), json!({"text": "3"}), Risk::Write),
        ]
    );
    assert_eq!(
        model.tool_results(2),
        [(
            "c2".to_owned(),
            "denied: the user declined this call of mcp__a__publish; do not retry it unless asked"
                .to_owned(),
            true
        )]
    );
    assert_eq!(
        model.tool_results(4),
        [("c4".to_owned(), "a published 4".to_owned(), false)]
    );

    // "Always" holds for the rest of the session, the next run included.
    host.run("publish once more", &observer).unwrap();
    assert_eq!(observer.asked.borrow().len(), 3, "no new question");
    let texts: Vec<Value> = calls_seen(&a).into_iter().map(|c| c.1).collect();
    assert_eq!(
        texts,
        [
            json!({"text": "1"}),
            json!({"text": "3"}),
            json!({"text": "4"}),
            json!({"text": "5"})
        ]
    );
}

#[test]
fn audit_records_every_outcome_with_secrets_redacted() {
    let mut policy = Policy::new();
    policy.deny("mcp__a__publish").unwrap();
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "mcp__a__echo", json!({"text": "hi", "token": TOKEN})),
            (
                "c2",
                "mcp__a__echo",
                json!({"mode": "fail", "text": "bad", "token": TOKEN}),
            ),
            (
                "c3",
                "mcp__a__publish",
                json!({"text": "p", "token": TOKEN}),
            ),
            (
                "c4",
                "mcp__a__echo",
                json!({"mode": "hang", "token": TOKEN}),
            ),
        ]),
        answer("Mixed results."),
    ]);
    let (mut host, _a) = host_with_a(policy, &model);
    let observer = Observer::default();
    let mut run = Stepper::new(host.runtime.run("try everything", &observer));
    assert!(run.step(&mut host.pool).is_none(), "c4 hangs");
    host.clock.advance(1_000);
    let answer = run.step(&mut host.pool).expect("c4 times out");
    assert_eq!(answer.unwrap(), "Mixed results.");
    drop(run);

    let mut audits = observer.take_audits();
    audits.sort_by(|x, y| x.call_id.cmp(&y.call_id));
    let outcomes: Vec<(&str, Outcome)> = audits
        .iter()
        .map(|r| (r.call_id.as_str(), r.outcome))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("c1", Outcome::Ok),
            ("c2", Outcome::Error),
            ("c3", Outcome::Denied),
            ("c4", Outcome::Timeout),
        ]
    );
    for record in &audits {
        let line = record.to_json_line();
        assert!(
            !line.contains(TOKEN),
            "secret leaked into the audit: {line}"
        );
        // The redactor may keep the token's kind (`ghp_`), never its body.
        assert!(
            !line.contains(&TOKEN[4..12]),
            "part of the secret leaked: {line}"
        );
        assert!(record.args_summary.contains("[REDACTED]"), "{line}");
        assert_eq!(record.server.as_deref(), Some("a"));
    }
    // The error is the server's own message, which quoted the secret: kept, but redacted.
    let error = audits[1].error.as_deref().unwrap();
    assert!(error.starts_with("a refused arguments"), "{error}");
    assert!(error.contains("[REDACTED]"), "{error}");
    assert_eq!(audits[0].output_chars, "a echoed hi".len());
    assert_eq!(audits[3].duration, Duration::from_secs(1));
    assert_eq!(audits[2].duration, Duration::ZERO);
}

/// Runs a direct call that needs no clock movement.
fn direct(
    host: &mut Host,
    name: &str,
    args: Value,
    observer: &Observer,
) -> Result<DirectCallOutput, DirectCallError> {
    Stepper::new(host.runtime.call_tool(name, args, observer))
        .step(&mut host.pool)
        .expect("the direct call finishes")
}

#[test]
fn direct_calls_are_gated_by_deny_audited_and_never_ask() {
    let mut policy = Policy::new();
    policy.deny("mcp__a__publish").unwrap();
    policy.ask("mcp__a__echo").unwrap();
    let model = ScriptedModel::new([]);
    let (mut host, a) = host_with_a(policy, &model);
    let observer = Observer::default();

    let denied = direct(
        &mut host,
        "mcp__a__publish",
        json!({"text": "x"}),
        &observer,
    );
    assert_eq!(
        denied.unwrap_err(),
        DirectCallError::Denied {
            tool: "mcp__a__publish".into(),
            rule: "deny mcp__a__publish".into()
        }
    );

    // An ask rule does not ask: calling a tool by hand is the approval.
    let ran = direct(
        &mut host,
        "mcp__a__echo",
        json!({"text": "hi", "token": TOKEN}),
        &observer,
    )
    .unwrap();
    assert_eq!(ran.output.unwrap().to_model_text(), "a echoed hi");
    assert_eq!(ran.shaped.text, "a echoed hi");
    assert!(!ran.shaped.is_error);
    assert!(ran.failure.is_none());

    let unknown = direct(&mut host, "mcp__a__nothing", json!({}), &observer);
    assert_eq!(
        unknown.unwrap_err(),
        DirectCallError::UnknownTool("mcp__a__nothing".into())
    );

    let mut hung = Stepper::new(host.runtime.call_tool(
        "mcp__a__echo",
        json!({"mode": "hang"}),
        &observer,
    ));
    assert!(hung.step(&mut host.pool).is_none());
    host.clock.advance(1_000);
    let timed_out = hung.step(&mut host.pool).unwrap().unwrap();
    drop(hung);
    assert_eq!(
        timed_out.failure.as_deref(),
        Some("mcp__a__echo timed out after 1000 ms")
    );
    assert!(timed_out.output.is_none() && timed_out.shaped.is_error);

    assert!(observer.asked.borrow().is_empty(), "direct calls never ask");
    assert!(
        observer.take_log().is_empty(),
        "direct calls emit no UI events"
    );
    assert_eq!(
        observer.audit_log(),
        [
            "direct-1 mcp__a__publish denied",
            "direct-2 mcp__a__echo ok",
            "direct-3 mcp__a__nothing error",
            "direct-4 mcp__a__echo timeout",
        ]
    );
    let audits = observer.take_audits();
    assert!(!audits[1].to_json_line().contains(TOKEN));
    assert_eq!(audits[0].server.as_deref(), Some("a"));
    assert_eq!(
        calls_seen(&a),
        [
            ("echo".to_owned(), json!({"text": "hi", "token": TOKEN})),
            ("echo".to_owned(), json!({"mode": "hang"})),
        ]
    );
    // Direct calls stay out of the conversation and never reach the model.
    assert!(host.history().is_empty());
    assert!(model.requests.borrow().is_empty());
}
