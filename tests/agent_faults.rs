//! The cases every MCP layer must survive, with scripted servers and a scripted model: a normal
//! server, one that never answers, one that sends junk between its messages, two servers with
//! the same tool name, and a server that dies in the middle of a run.

mod support;

use agentwire::audit::Outcome;
use agentwire::driver::ServerStatus;
use agentwire::policy::Policy;
use agentwire::registry::ToolLimits;
use serde_json::json;
use std::rc::Rc;
use std::time::Duration;
use support::host::{answer, calls, Host, Observer, ScriptedModel};
use support::scripted_server::{calls_seen, spawn_server, Behaviour, NOISE};
use support::stepper::Stepper;

fn host(model: &Rc<ScriptedModel>) -> Host {
    Host::with_policy(Policy::new(), model.clone())
}

#[test]
fn a_normal_server_answers_and_the_model_gets_the_result() {
    let model = ScriptedModel::new([
        calls(&[("c1", "mcp__ok__echo", json!({"text": "hello"}))]),
        answer("It said hello."),
    ]);
    let mut host = host(&model);
    let server = spawn_server(&host.pool, "ok", Behaviour::Normal);
    host.add_server("ok", server.transport);
    let observer = Observer::default();
    assert_eq!(host.run("echo hello", &observer).unwrap(), "It said hello.");
    assert_eq!(
        observer.take_log(),
        [
            "step_start 1",
            r#"tool_start c1 mcp__ok__echo {"text":"hello"}"#,
            "tool_end c1 mcp__ok__echo ok=true",
            "step_start 2",
            "model_text",
            "done steps=2",
        ]
    );
    assert_eq!(observer.audit_log(), ["c1 mcp__ok__echo ok"]);
    assert_eq!(
        model.tool_results(1),
        [("c1".to_owned(), "ok echoed hello".to_owned(), false)]
    );
    assert_eq!(
        calls_seen(&server.seen),
        [("echo".to_owned(), json!({"text": "hello"}))]
    );
}

#[test]
fn a_server_that_never_answers_times_out_and_the_run_goes_on() {
    let model = ScriptedModel::new([
        calls(&[("c1", "mcp__slow__echo", json!({"text": "anyone?"}))]),
        answer("The slow server did not answer."),
    ]);
    let mut host = host(&model);
    let limits = ToolLimits {
        timeout: Duration::from_secs(2),
        ..ToolLimits::default()
    };
    host.runtime
        .with_agent(|a| a.registry_mut().set_server_limits("slow", limits));
    let server = spawn_server(&host.pool, "slow", Behaviour::NeverAnswersCalls);
    host.add_server("slow", server.transport);

    let observer = Observer::default();
    let mut run = Stepper::new(host.runtime.run("is anyone there?", &observer));
    assert!(run.step(&mut host.pool).is_none(), "waiting for the server");
    host.clock.advance(1_999);
    assert!(
        run.step(&mut host.pool).is_none(),
        "not abandoned before its timeout"
    );
    host.clock.advance(1);
    let answer = run
        .step(&mut host.pool)
        .expect("the run ends at the timeout");
    assert_eq!(answer.unwrap(), "The slow server did not answer.");
    drop(run);

    assert_eq!(
        observer.take_log(),
        [
            "step_start 1",
            r#"tool_start c1 mcp__slow__echo {"text":"anyone?"}"#,
            "tool_end c1 mcp__slow__echo ok=false",
            "step_start 2",
            "model_text",
            "done steps=2",
        ]
    );
    let audits = observer.take_audits();
    assert_eq!(audits.len(), 1);
    assert_eq!(audits[0].outcome, Outcome::Timeout);
    assert_eq!(audits[0].duration, Duration::from_secs(2));
    assert_eq!(audits[0].server.as_deref(), Some("slow"));
    assert_eq!(audits[0].error.as_deref(), Some("timed out after 2000 ms"));
    assert_eq!(
        model.tool_results(1),
        [(
            "c1".to_owned(),
            "error: the tool did not answer within 2000 ms and was abandoned".to_owned(),
            true
        )]
    );

    // The server is told the call was abandoned, and stays connected for later calls.
    host.pool.run_until_stalled();
    let seen = server.seen.borrow();
    let call = seen.iter().find(|m| m["method"] == "tools/call").unwrap();
    let cancel = seen
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("the abandoned call is cancelled on the server");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
    assert_eq!(
        host.runtime.servers(),
        [("slow".to_owned(), ServerStatus::Connected { tools: 2 })]
    );
}

#[test]
fn junk_lines_are_logged_as_protocol_errors_and_calls_still_succeed() {
    let model = ScriptedModel::new([
        calls(&[("c1", "mcp__noisy__echo", json!({"text": "one"}))]),
        calls(&[
            ("c2", "mcp__noisy__echo", json!({"text": "two"})),
            ("c3", "mcp__calm__echo", json!({"text": "three"})),
        ]),
        answer("Both worked."),
    ]);
    let mut host = host(&model);
    let noisy = spawn_server(&host.pool, "noisy", Behaviour::Noisy);
    let calm = spawn_server(&host.pool, "calm", Behaviour::Normal);
    host.add_server("noisy", noisy.transport);
    host.add_server("calm", calm.transport);
    let observer = Observer::default();
    assert_eq!(host.run("echo twice", &observer).unwrap(), "Both worked.");

    assert_eq!(
        model.tool_results(1),
        [("c1".to_owned(), "noisy echoed one".to_owned(), false)]
    );
    assert_eq!(
        model.tool_results(2),
        [
            ("c2".to_owned(), "noisy echoed two".to_owned(), false),
            ("c3".to_owned(), "calm echoed three".to_owned(), false),
        ]
    );
    // Three junk lines around each of four replies (initialize, tools/list, two calls), each
    // reported once, naming what it saw; the other server's log stays clean.
    let log = host.runtime.server_log("noisy");
    assert_eq!(log.len(), 12, "{log:#?}");
    for (i, line) in log.iter().enumerate() {
        assert!(line.starts_with("protocol error: "), "{line}");
        let junk = NOISE[i % 3];
        assert!(line.ends_with(junk), "{line} should quote {junk}");
    }
    assert!(host.runtime.server_log("calm").is_empty());
    assert_eq!(
        host.runtime.servers(),
        [
            ("calm".to_owned(), ServerStatus::Connected { tools: 2 }),
            ("noisy".to_owned(), ServerStatus::Connected { tools: 2 }),
        ]
    );
    assert!(observer.notices.borrow().is_empty());
}

#[test]
fn two_servers_with_the_same_tool_name_are_both_reachable() {
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "mcp__a__echo", json!({"text": "for a"})),
            ("c2", "mcp__b__echo", json!({"text": "for b"})),
        ]),
        answer("Both answered."),
    ]);
    let mut host = host(&model);
    let a = spawn_server(&host.pool, "a", Behaviour::Normal);
    let b = spawn_server(&host.pool, "b", Behaviour::Normal);
    host.add_server("a", a.transport);
    host.add_server("b", b.transport);
    let names: Vec<String> = host.runtime.with_agent(|agent| {
        agent
            .registry()
            .tools()
            .iter()
            .map(|t| t.name.clone())
            .collect()
    });
    assert_eq!(
        names,
        [
            "mcp__a__echo",
            "mcp__a__publish",
            "mcp__b__echo",
            "mcp__b__publish"
        ]
    );

    let observer = Observer::default();
    host.run("echo on both", &observer).unwrap();
    // Both are read-only, so they go out together.
    assert_eq!(
        observer.take_log()[..3],
        [
            "step_start 1",
            r#"tool_start c1 mcp__a__echo {"text":"for a"}"#,
            r#"tool_start c2 mcp__b__echo {"text":"for b"}"#,
        ]
    );
    assert_eq!(
        model.tool_results(1),
        [
            ("c1".to_owned(), "a echoed for a".to_owned(), false),
            ("c2".to_owned(), "b echoed for b".to_owned(), false),
        ]
    );
    assert_eq!(
        calls_seen(&a.seen),
        [("echo".to_owned(), json!({"text": "for a"}))]
    );
    assert_eq!(
        calls_seen(&b.seen),
        [("echo".to_owned(), json!({"text": "for b"}))]
    );
    let servers: Vec<_> = observer
        .audits
        .borrow()
        .iter()
        .map(|r| (r.tool.clone(), r.server.clone().unwrap()))
        .collect();
    assert!(servers.contains(&("mcp__a__echo".to_owned(), "a".to_owned())));
    assert!(servers.contains(&("mcp__b__echo".to_owned(), "b".to_owned())));
}

#[test]
fn a_server_that_dies_mid_run_fails_its_call_and_is_marked_failed() {
    let model = ScriptedModel::new([
        calls(&[("c1", "mcp__b__echo", json!({"text": "x"}))]),
        calls(&[("c2", "mcp__a__echo", json!({"text": "still here"}))]),
        answer("b is gone, a answered."),
        // The next run tries the dead server again.
        calls(&[("c3", "mcp__b__echo", json!({"text": "y"}))]),
        answer("b is still gone."),
    ]);
    let mut host = host(&model);
    let a = spawn_server(&host.pool, "a", Behaviour::Normal);
    let b = spawn_server(&host.pool, "b", Behaviour::DiesOnFirstCall);
    let b_closed = Rc::clone(&b.transport.closed);
    host.add_server("a", a.transport);
    host.add_server("b", b.transport);

    let observer = Observer::default();
    assert_eq!(
        host.run("echo on b, then a", &observer).unwrap(),
        "b is gone, a answered."
    );
    let results = model.tool_results(1);
    let (id, content, is_error) = &results[0];
    assert_eq!(id, "c1");
    assert!(*is_error);
    assert_eq!(
        content,
        "error: MCP server b: connection closed: scripted server hung up"
    );
    assert_eq!(
        model.tool_results(2),
        [("c2".to_owned(), "a echoed still here".to_owned(), false)]
    );
    let audits = observer.take_audits();
    assert_eq!(audits[0].outcome, Outcome::Error);
    assert_eq!(audits[0].server.as_deref(), Some("b"));

    assert_eq!(
        host.runtime.servers(),
        [
            ("a".to_owned(), ServerStatus::Connected { tools: 2 }),
            (
                "b".to_owned(),
                ServerStatus::Failed {
                    reason: "scripted server hung up".into()
                }
            ),
        ]
    );
    assert_eq!(
        *observer.notices.borrow(),
        ["MCP server b disconnected: scripted server hung up"]
    );
    assert_eq!(
        host.runtime.server_log("b"),
        ["closed: scripted server hung up"]
    );
    assert!(host.runtime.client("b").is_none());
    host.pool.run_until_stalled();
    assert!(b_closed.get(), "the dead server's transport is closed");

    // The dead server's tools leave the registry: the model is no longer offered them, and a
    // model that calls one anyway is told the tool does not exist.
    assert!(host
        .runtime
        .with_agent(|a| a.registry().get("mcp__b__echo").is_none()));
    assert_eq!(
        host.runtime
            .with_agent(|a| a.registry().server_error("b").map(str::to_owned)),
        Some("scripted server hung up".to_owned())
    );
    assert_eq!(
        host.run("try b again", &observer).unwrap(),
        "b is still gone."
    );
    assert_eq!(
        model.tool_results(4),
        [(
            "c3".to_owned(),
            "error: unknown tool \"mcp__b__echo\"; call only the tools you were given".to_owned(),
            true
        )]
    );
    assert_eq!(
        calls_seen(&b.seen),
        [("echo".to_owned(), json!({"text": "x"}))]
    );
}

#[test]
fn a_model_repeating_a_call_is_stopped_even_if_it_reorders_the_arguments() {
    // JSON objects keep their key order (serde_json's preserve_order), so the same arguments
    // can come back spelled differently; they are still the same call.
    let model = ScriptedModel::new([
        calls(&[(
            "c1",
            "mcp__a__echo",
            json!({"text": "again", "mode": "echo"}),
        )]),
        calls(&[(
            "c2",
            "mcp__a__echo",
            json!({"mode": "echo", "text": "again"}),
        )]),
        calls(&[(
            "c3",
            "mcp__a__echo",
            json!({"text": "again", "mode": "echo"}),
        )]),
        answer("never reached"),
    ]);
    let mut host = host(&model);
    let a = spawn_server(&host.pool, "a", Behaviour::Normal);
    host.add_server("a", a.transport);
    let observer = Observer::default();
    let error = host.run("loop", &observer).unwrap_err();
    assert_eq!(
        error.0,
        "stopped: the model called mcp__a__echo with the same arguments 3 times in this run, \
         so it looks stuck in a loop"
    );
    assert_eq!(
        calls_seen(&a.seen).len(),
        2,
        "the third repetition does not run"
    );
    assert_eq!(
        observer.audit_log(),
        [
            "c1 mcp__a__echo ok",
            "c2 mcp__a__echo ok",
            "c3 mcp__a__echo cancelled"
        ]
    );
}

#[test]
fn interrupting_a_run_cancels_the_call_on_the_server_and_audits_it_as_interrupted() {
    let model = ScriptedModel::new([calls(&[("c1", "mcp__slow__echo", json!({"text": "hi"}))])]);
    let mut host = host(&model);
    let server = spawn_server(&host.pool, "slow", Behaviour::NeverAnswersCalls);
    host.add_server("slow", server.transport);
    let interrupt = host.runtime.interrupt_handle();
    assert!(
        interrupt.interrupt("Ctrl-C").is_err(),
        "refused between runs"
    );

    let observer = Observer::default();
    let mut run = Stepper::new(host.runtime.run("hello?", &observer));
    assert!(run.step(&mut host.pool).is_none(), "waiting for the server");
    assert!(interrupt.is_active());
    interrupt.interrupt("Ctrl-C").unwrap();
    let ended = run.step(&mut host.pool).expect("the run ends at once");
    assert_eq!(
        ended.unwrap_err().to_string(),
        "interrupted: Ctrl-C stopped the run"
    );
    drop(run);
    assert!(!interrupt.is_active(), "nothing runs any more");
    assert_eq!(
        observer.take_log(),
        [
            "step_start 1",
            r#"tool_start c1 mcp__slow__echo {"text":"hi"}"#,
            "tool_end c1 mcp__slow__echo ok=false",
            "error interrupted: Ctrl-C stopped the run",
        ]
    );
    let audits = observer.take_audits();
    assert_eq!(audits.len(), 1);
    assert_eq!(audits[0].outcome, Outcome::Interrupted);

    // The server is told, and the next run is not affected by the old request.
    host.pool.run_until_stalled();
    let seen = server.seen.borrow();
    let call = seen.iter().find(|m| m["method"] == "tools/call").unwrap();
    let cancel = seen
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("the interrupted call is cancelled on the server");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
}
