//! Step limit, repeated calls, output budget and limits, cancellation, misuse.

use super::*;

#[test]
fn step_limit_ends_the_run() {
    let config = AgentConfig {
        max_steps: 3,
        ..AgentConfig::default()
    };
    let mut h = Harness::new(Policy::new(), config).script([
        reply(None, &[("c1", GET, json!({"n": 1}))]),
        reply(None, &[("c2", GET, json!({"n": 2}))]),
        reply(None, &[("c3", GET, json!({"n": 3}))]),
        answer("never reached"),
    ]);
    let log = h.run("loop");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "start c1 mcp__gh__get_issue",
            "tools c1",
            "end c1 ok",
            "step 2",
            "audit c1 ok",
            "model",
            "start c2 mcp__gh__get_issue",
            "tools c2",
            "end c2 ok",
            "step 3",
            "audit c2 ok",
            "model",
            "start c3 mcp__gh__get_issue",
            "tools c3",
            "end c3 ok",
            "error: stopped: the step limit of 3 model calls was reached without a final answer",
            "audit c3 ok",
        ]
    );
    assert!(!h.agent.is_running());
    assert_eq!(h.requests.len(), 3);
    assert_history_consistent(h.agent.history());
}

#[test]
fn identical_call_three_times_ends_the_run() {
    // Key order does not make a call different.
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!({"a": 1, "b": 2}))]),
        reply(None, &[("c2", GET, json!({"b": 2, "a": 1}))]),
        reply(None, &[("c3", GET, json!({"a": 1, "b": 2}))]),
        answer("never reached"),
    ]);
    let log = h.run("loop");
    assert_eq!(
        log[13..],
        [
            "model",
            "start c3 mcp__gh__get_issue",
            "end c3 err",
            "error: stopped: the model called mcp__gh__get_issue with the same arguments 3 \
             times in this run, so it looks stuck in a loop",
            "audit c3 cancelled",
        ]
    );
    assert_eq!(
        h.outcomes(),
        [
            ("c1".into(), Outcome::Ok),
            ("c2".into(), Outcome::Ok),
            ("c3".into(), Outcome::Cancelled)
        ]
    );
    assert_history_consistent(h.agent.history());
    // Different arguments are not a repetition.
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!({"n": 1}))]),
        reply(None, &[("c2", GET, json!({"n": 2}))]),
        reply(None, &[("c3", GET, json!({"n": 1}))]),
        answer("fine"),
    ]);
    assert_eq!(h.run("x").last().unwrap(), "done 4: fine");
}

#[test]
fn output_budget_cuts_results_with_a_note() {
    let config = AgentConfig {
        output_budget_chars: 30,
        ..AgentConfig::default()
    };
    let mut h = Harness::new(Policy::new(), config)
        .script([
            reply(None, &[("c1", GET, json!({"n": 1}))]),
            reply(None, &[("c2", GET, json!({"n": 2}))]),
            reply(None, &[("c3", GET, json!({"n": 3}))]),
            answer("done"),
            reply(None, &[("c4", GET, json!({"n": 4}))]),
            answer("done again"),
        ])
        .tools(|_| Ok(ToolOutput::text("x".repeat(20))));
    let log = h.run("read a lot");
    let ends: Vec<_> = log.iter().filter(|l| l.starts_with("end ")).collect();
    assert_eq!(
        ends,
        ["end c1 ok", "end c2 ok truncated", "end c3 ok truncated"]
    );
    let tool_text = |i: usize| match &h.requests[i].messages.last() {
        Some(ChatMessage::Tool { content, .. }) => content.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(tool_text(1), "x".repeat(20));
    assert_eq!(
        tool_text(2),
        format!(
            "{}\n[tool output budget of 30 characters for this run used up: 10 characters cut]",
            "x".repeat(10)
        )
    );
    assert!(tool_text(3).starts_with("\n[tool output budget of 30 characters"));
    assert!(h.audit[1].truncated && h.audit[1].output_chars == 20);
    // The budget is per run.
    let log = h.run("again");
    assert!(log.contains(&"end c4 ok".to_owned()), "{log:?}");
}

#[test]
fn tool_output_limit_cuts_by_characters() {
    let mut h = Harness::default()
        .script([reply(None, &[("c1", "tail_log", json!({}))]), answer("ok")])
        .tools(|_| Ok(ToolOutput::text("héllo wörld 😀 and more")));
    let spec = ToolSpec::builtin("tail_log", "", json!({"type": "object"}), Risk::Read)
        .with_max_output_chars(13);
    h.agent.registry_mut().register_builtin(spec).unwrap();
    let log = h.run("tail");
    assert!(log.contains(&"end c1 ok truncated".to_owned()), "{log:?}");
    let (_, content, _) = &h.last_tool_results()[0];
    assert!(
        content.starts_with("héllo wörld 😀\n[output truncated: 9 of 22 characters cut"),
        "{content}"
    );
    assert_eq!(h.audit[0].output_chars, 22);
}

#[test]
fn cancel_run_cancels_calls_in_flight() {
    let mut policy = Policy::new();
    policy.allow(CREATE).unwrap();
    let mut agent = Agent::new(registry(), policy, AgentConfig::default());
    let t = Instant::from_millis;
    agent.start_run(t(0), "go").unwrap();
    assert!(matches!(agent.poll_action(), Some(Action::CallModel(_))));
    let calls = reply(
        None,
        &[("c1", CREATE, json!({})), ("c2", CREATE, json!({}))],
    );
    agent.handle_model_response(t(10), calls).unwrap();
    assert!(matches!(agent.poll_action(), Some(Action::CallTools(v)) if v.len() == 1));
    while agent.poll_event().is_some() {}
    agent.cancel_run(t(30)).unwrap();
    let events: Vec<_> = std::iter::from_fn(|| agent.poll_event())
        .map(|e| render_event(&e))
        .collect();
    assert_eq!(
        events,
        [
            "end c1 err",
            "start c2 mcp__gh__create_issue",
            "end c2 err",
            "error: run cancelled"
        ]
    );
    let audit: Vec<_> = std::iter::from_fn(|| agent.poll_audit()).collect();
    assert_eq!(audit.len(), 2);
    assert!(audit.iter().all(|r| r.outcome == Outcome::Cancelled));
    assert_eq!(audit[0].duration.as_millis(), 20, "c1 ran from 10 to 30");
    assert!(agent.poll_action().is_none());
    assert_eq!(
        agent.handle_tool_result(t(40), "c1", Ok(ToolOutput::text("late"))),
        Err(AgentError::UnknownCall("c1".into()))
    );
    assert_eq!(agent.cancel_run(t(50)), Err(AgentError::NoRun));
    assert_history_consistent(agent.history());
}

#[test]
fn misuse_is_refused_and_changes_nothing() {
    let mut agent = Agent::new(registry(), Policy::new(), AgentConfig::default());
    let t = Instant::from_millis;
    assert_eq!(
        agent.handle_model_response(t(0), answer("x")),
        Err(AgentError::NoRun)
    );
    agent.start_run(t(0), "go").unwrap();
    assert_eq!(agent.start_run(t(0), "again"), Err(AgentError::RunActive));
    assert_eq!(agent.clear_history(), Err(AgentError::RunActive));
    agent
        .handle_model_response(t(1), reply(None, &[("c1", CREATE, json!({}))]))
        .unwrap();
    assert_eq!(
        agent.handle_model_response(t(2), answer("x")),
        Err(AgentError::NotAwaitingModel)
    );
    assert_eq!(
        agent.handle_tool_result(t(2), "c1", Ok(ToolOutput::text("x"))),
        Err(AgentError::UnknownCall("c1".into())),
        "c1 waits for approval, it is not running"
    );
    assert_eq!(
        agent.handle_approval(t(2), "zz", Approval::Yes),
        Err(AgentError::NotAwaitingApproval("zz".into()))
    );
    assert_eq!(agent.history().len(), 2);
    // The real answer still works.
    agent.handle_approval(t(3), "c1", Approval::Yes).unwrap();
    assert_eq!(
        agent.handle_approval(t(3), "c1", Approval::Yes),
        Err(AgentError::NotAwaitingApproval("c1".into()))
    );
    agent
        .handle_tool_result(t(4), "c1", Ok(ToolOutput::text("made")))
        .unwrap();
    agent.handle_model_response(t(5), answer("done")).unwrap();
    assert!(!agent.is_running());
}

#[test]
fn duplicate_and_empty_call_ids_are_made_unique() {
    let mut h = Harness::default().script([
        reply(
            None,
            &[
                ("same", GET, json!({"n": 1})),
                ("same", GET, json!({"n": 2})),
                ("", LIST, json!({})),
            ],
        ),
        answer("ok"),
        reply(None, &[("same", GET, json!({"n": 3}))]),
        answer("ok"),
    ]);
    let log = h.run("go");
    assert!(
        log.contains(&"tools same,same_2,call".to_owned()),
        "{log:?}"
    );
    let ids: Vec<_> = h.last_tool_results().into_iter().map(|r| r.0).collect();
    assert_eq!(ids, ["same", "same_2", "call"]);
    let log = h.run("more");
    assert!(log.contains(&"tools same_3".to_owned()), "{log:?}");
    assert_history_consistent(h.agent.history());
}

#[test]
fn approval_action_and_invocation_carry_routing() {
    let mut agent = Agent::new(registry(), Policy::new(), AgentConfig::default());
    let t = Instant::from_millis;
    agent.start_run(t(0), "go").unwrap();
    agent.poll_action();
    agent
        .handle_model_response(t(1), reply(None, &[("c1", "shell", json!({"cmd": "ls"}))]))
        .unwrap();
    match agent.poll_action() {
        Some(Action::RequestApproval(req)) => {
            assert_eq!(req.risk, Risk::Execute);
            assert_eq!(req.arguments, json!({"cmd": "ls"}));
        }
        other => panic!("{other:?}"),
    }
    agent.handle_approval(t(2), "c1", Approval::Yes).unwrap();
    match agent.poll_action() {
        Some(Action::CallTools(invs)) => {
            assert_eq!(
                invs[0].to_value(),
                json!({"callId": "c1", "name": "shell", "arguments": {"cmd": "ls"},
                       "target": {"kind": "builtin"}, "timeoutMs": 60000})
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn interrupt_run_audits_calls_in_flight_and_awaiting_approval_as_interrupted() {
    // c1 is allowed and runs; c2 (not allowed) waits for approval when the user interrupts.
    let mut policy = Policy::new();
    policy.allow(GET).unwrap();
    let mut agent = Agent::new(registry(), policy, AgentConfig::default());
    let t = Instant::from_millis;
    assert_eq!(agent.interrupt_run(t(0), "Ctrl-C"), Err(AgentError::NoRun));
    agent.start_run(t(0), "go").unwrap();
    assert!(matches!(agent.poll_action(), Some(Action::CallModel(_))));
    let calls = reply(None, &[("c1", GET, json!({})), ("c2", CREATE, json!({}))]);
    agent.handle_model_response(t(10), calls).unwrap();
    while agent.poll_action().is_some() {}
    while agent.poll_event().is_some() {}
    agent.interrupt_run(t(25), "Ctrl-C").unwrap();
    let events: Vec<_> = std::iter::from_fn(|| agent.poll_event()).collect();
    let last = events.last().expect("a terminal event");
    assert_eq!(
        render_event(last),
        "error: interrupted: Ctrl-C stopped the run"
    );
    assert!(!agent.is_running());
    let audit: Vec<_> = std::iter::from_fn(|| agent.poll_audit()).collect();
    let outcomes: Vec<_> = audit
        .iter()
        .map(|r| (r.call_id.as_str(), r.outcome))
        .collect();
    assert_eq!(
        outcomes,
        [("c1", Outcome::Interrupted), ("c2", Outcome::Interrupted)]
    );
    assert_eq!(audit[0].duration.as_millis(), 15, "c1 ran from 10 to 25");
    assert_eq!(Outcome::Interrupted.as_str(), "interrupted");
    assert!(agent.poll_action().is_none(), "nothing left to do");
    // Misuse changes nothing: a second interrupt, a late result.
    assert_eq!(agent.interrupt_run(t(30), "Ctrl-C"), Err(AgentError::NoRun));
    assert_eq!(
        agent.handle_tool_result(t(40), "c1", Ok(ToolOutput::text("late"))),
        Err(AgentError::UnknownCall("c1".into()))
    );
    assert!(agent.poll_event().is_none() && agent.poll_audit().is_none());
    assert_history_consistent(agent.history());
}

#[test]
fn a_restored_history_continues_and_its_call_ids_stay_taken() {
    let mut agent = Agent::new(registry(), Policy::new(), AgentConfig::default());
    let t = Instant::from_millis;
    let saved = vec![
        ChatMessage::User {
            content: "make it".into(),
        },
        ChatMessage::Assistant {
            content: None,
            tool_calls: vec![crate::model::ToolCall {
                id: "c1".into(),
                name: CREATE.into(),
                arguments: json!({}),
            }],
        },
        ChatMessage::Tool {
            tool_call_id: "c1".into(),
            name: CREATE.into(),
            content: "made".into(),
            is_error: false,
        },
    ];
    agent.set_history(saved.clone()).unwrap();
    assert_eq!(agent.history(), saved.as_slice());
    agent.start_run(t(0), "again").unwrap();
    assert_eq!(
        agent.set_history(Vec::new()),
        Err(AgentError::RunActive),
        "refused while a run is active"
    );
    agent
        .handle_model_response(t(1), reply(None, &[("c1", CREATE, json!({}))]))
        .unwrap();
    let ChatMessage::Assistant { tool_calls, .. } = &agent.history()[4] else {
        panic!("the model's turn follows the restored messages and the new prompt");
    };
    assert_ne!(tool_calls[0].id, "c1", "a restored call id is never reused");
    assert_eq!(&agent.history()[..3], saved.as_slice());
}
