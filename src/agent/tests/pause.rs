//! Pausing at an approval and resuming from the transcript in a fresh agent.

use super::*;
use crate::transcript::{parse_jsonl, Transcript};

fn transcript_of(agent: &mut Agent) -> Transcript {
    let mut t = Transcript::new("s");
    while let Some(e) = agent.poll_transcript() {
        t.append(e);
    }
    t
}

#[test]
fn a_paused_run_resumes_in_another_agent_with_approved_and_rejected_calls() {
    let mut policy = Policy::new();
    policy.ask(CREATE).unwrap();
    policy.ask(DELETE).unwrap();
    let mut h = Harness::new(policy.clone(), AgentConfig::default()).script([reply(
        None,
        &[
            ("c1", GET, json!({"n": 1})),
            ("c2", CREATE, json!({"title": "x"})),
            ("c3", DELETE, json!({})),
        ],
    )]);
    h.agent
        .start_run(Instant::from_millis(1), "tidy up")
        .unwrap();
    // Drive until the approval request, then pause instead of answering.
    loop {
        let actions = h.drain();
        let Some(action) = actions.into_iter().next() else {
            panic!("no approval request: {:?}", h.log)
        };
        if matches!(action, Action::RequestApproval(_)) {
            break;
        }
        h.perform(action);
    }
    let pending = h.agent.pause_run(Instant::from_millis(50)).unwrap();
    let ids: Vec<_> = pending
        .iter()
        .map(|p| (p.id.as_str(), p.awaiting_approval))
        .collect();
    assert_eq!(ids, [("c2", true), ("c3", false)]);
    assert!(!h.agent.is_running());
    h.drain();
    assert_eq!(h.log.last().unwrap(), "paused c2,c3");
    assert_eq!(
        h.agent
            .resume_paused(Instant::from_millis(51), &[("c1".into(), Approval::Yes)]),
        Err(AgentError::NotAwaitingApproval("c1".into())),
        "c1 already ran"
    );

    // Saved, loaded elsewhere.
    let saved = transcript_of(&mut h.agent).to_jsonl();
    let history = parse_jsonl(&saved).unwrap().transcript.history();
    let mut other = Harness::new(policy, AgentConfig::default())
        .script([answer("c2 made, c3 declined")])
        .tools(move |inv| Ok(ToolOutput::text(format!("ran {}", inv.call_id))));
    other.agent.set_history(history).unwrap();
    assert_eq!(other.agent.paused_calls().len(), 2);
    other
        .agent
        .resume_paused(
            Instant::from_millis(100),
            &[("c2".into(), Approval::Yes), ("c3".into(), Approval::No)],
        )
        .unwrap();
    other.drive();
    assert_eq!(other.log.last().unwrap(), "done 1: c2 made, c3 declined");
    let request = other.requests.last().unwrap();
    assert_history_consistent(&request.messages);
    let results = other.all_tool_results();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0], ("c1".into(), format!("result of {GET}"), false));
    assert_eq!(results[1], ("c2".into(), "ran c2".into(), false));
    assert_eq!(results[2].0, "c3");
    assert!(results[2].1.starts_with("denied: the user declined"));
    // The approved call ran exactly once; the rejected one never.
    let audit: Vec<_> = other.outcomes();
    assert_eq!(
        audit,
        [("c3".into(), Outcome::Denied), ("c2".into(), Outcome::Ok)]
    );
    assert_eq!(
        other.agent.resume_paused(Instant::from_millis(200), &[]),
        Err(AgentError::NothingPaused)
    );
}

#[test]
fn pause_is_refused_unless_an_approval_is_awaited() {
    let mut h = Harness::default().script([answer("hi")]);
    assert_eq!(
        h.agent.pause_run(Instant::from_millis(1)),
        Err(AgentError::NotAwaitingApproval(String::new()))
    );
    h.run("hello");
    assert!(h.agent.pause_run(Instant::from_millis(2)).is_err());
    assert_eq!(h.agent.history().len(), 2);
}

#[test]
fn a_call_without_a_decision_asks_again() {
    let mut policy = Policy::new();
    policy.ask(CREATE).unwrap();
    let mut h = Harness::new(policy, AgentConfig::default())
        .script([reply(None, &[("c1", CREATE, json!({}))]), answer("ok")])
        .approvals(&[Approval::Yes]);
    h.agent
        .start_run(Instant::from_millis(1), "make one")
        .unwrap();
    loop {
        let actions = h.drain();
        let Some(action) = actions.into_iter().next() else {
            break;
        };
        if matches!(action, Action::RequestApproval(_)) {
            h.agent.pause_run(Instant::from_millis(2)).unwrap();
        } else {
            h.perform(action);
        }
    }
    while h.agent.poll_event().is_some() {}
    h.log.clear();
    h.agent.resume_paused(Instant::from_millis(3), &[]).unwrap();
    h.drive();
    assert!(h.log.contains(&"ask c1".to_string()), "{:?}", h.log);
    assert_eq!(h.log.last().unwrap(), "done 1: ok");
}

/// A recording agent paused at `c2`'s approval (`c1`, a read, already ran), with `moved on` as
/// the model's next answer.
fn paused_with_c2_open() -> Harness {
    let mut policy = Policy::new();
    policy.ask(CREATE).unwrap();
    let mut h = Harness::new(policy, AgentConfig::default())
        .script([
            reply(None, &[("c1", GET, json!({})), ("c2", CREATE, json!({}))]),
            answer("moved on"),
        ])
        .tools(|inv| Ok(ToolOutput::text(format!("ran {}", inv.call_id))));
    h.agent.set_transcript_recording(true);
    h.agent
        .start_run(Instant::from_millis(1), "make one")
        .unwrap();
    loop {
        let actions = h.drain();
        let Some(action) = actions.into_iter().next() else {
            panic!("no approval request: {:?}", h.log)
        };
        if matches!(action, Action::RequestApproval(_)) {
            break;
        }
        h.perform(action);
    }
    h.agent.pause_run(Instant::from_millis(2)).unwrap();
    h
}

#[test]
fn a_paused_run_given_up_answers_its_open_calls_so_a_new_request_is_well_formed() {
    let mut h = paused_with_c2_open();
    assert_eq!(h.agent.answer_paused("not run: moved on"), Ok(1));
    assert!(h.agent.paused_calls().is_empty());
    assert_eq!(h.agent.answer_paused("again"), Ok(0), "nothing left open");
    // The transcript rebuilds the same, well-formed history.
    let saved = transcript_of(&mut h.agent);
    assert_eq!(saved.history(), h.agent.history());
    assert!(parse_jsonl(&saved.to_jsonl()).is_ok());
    h.run("something else");
    let request = h.requests.last().unwrap();
    assert_history_consistent(&request.messages);
    let results = h.all_tool_results();
    assert_eq!(results[1], ("c2".into(), "not run: moved on".into(), true));
    // Refused while a run is active.
    h.agent.start_run(Instant::from_millis(5), "more").unwrap();
    assert_eq!(h.agent.answer_paused("x"), Err(AgentError::RunActive));
}

#[test]
fn a_new_request_after_a_pause_answers_the_open_calls_as_not_run_by_itself() {
    let mut h = paused_with_c2_open();
    assert_eq!(h.agent.paused_calls().len(), 1);
    // No host step in between: the new run's start closes what the pause left open.
    h.run("something else");
    assert!(h.agent.paused_calls().is_empty());
    let request = h.requests.last().unwrap();
    assert_history_consistent(&request.messages);
    let results = h.all_tool_results();
    assert_eq!(results[1], ("c2".into(), GIVEN_UP.into(), true));
    // The answer is in the transcript, before the new request.
    let saved = transcript_of(&mut h.agent);
    assert_eq!(saved.history(), h.agent.history());
}
