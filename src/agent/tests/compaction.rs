//! Compaction inside the loop: stubs first, then a prefix-preserving summary, the thrash guard,
//! the retry after a context-length error, and `/compact`.

use super::*;
use crate::context::compact::{SUMMARY_HEADING, SUMMARY_INSTRUCTION};
use crate::context::ContextConfig;
use crate::transcript::{CompactionMode, Entry, Transcript};

fn windowed(window: u64) -> AgentConfig {
    AgentConfig {
        context: ContextConfig {
            window: Some(window),
            keep_tool_results: 1,
            ..ContextConfig::default()
        },
        max_steps: 50,
        ..AgentConfig::default()
    }
}

fn big_results(chars: usize) -> impl FnMut(&ToolInvocation) -> Result<ToolOutput, ToolFailure> {
    move |inv| {
        Ok(ToolOutput::text(format!(
            "{} {}",
            inv.call_id,
            "r".repeat(chars)
        )))
    }
}

fn is_summary_request(request: &ModelRequest) -> bool {
    matches!(request.messages.last(), Some(ChatMessage::User { content }) if content.starts_with(SUMMARY_INSTRUCTION))
}

#[test]
fn old_tool_results_are_stubbed_before_anything_is_summarised() {
    // Window 1,000 tokens, threshold 800: three results of ~300 tokens each pass it.
    let mut h = Harness::new(Policy::new(), windowed(1000))
        .script([
            reply(None, &[("c1", GET, json!({}))]),
            reply(None, &[("c2", GET, json!({"n": 2}))]),
            reply(None, &[("c3", GET, json!({"n": 3}))]),
            answer("done"),
        ])
        .tools(big_results(1000));
    let log = h.run("read them all");
    assert!(
        log.iter().any(|l| l.starts_with("compacted stub")),
        "{log:?}"
    );
    assert!(log.last().unwrap().starts_with("done"), "{log:?}");
    assert!(!h.requests.iter().any(is_summary_request));
    let last = h.requests.last().unwrap();
    let stubs = last
        .messages
        .iter()
        .filter(|m| matches!(m, ChatMessage::Tool { content, .. } if content.starts_with("[result of ")))
        .count();
    assert_eq!(stubs, 2, "{:?}", last.messages);
    // Every call is still there, each with a result.
    assert_history_consistent(&last.messages);
    let report = h.agent.context_report();
    assert!(report.total <= 800, "{report:?}");
    // The driver learns of the stubs once (it fires `PreCompact` for them), then not again.
    assert!(h.agent.poll_stub_compaction());
    assert!(!h.agent.poll_stub_compaction());
    assert_eq!(h.agent.summary_compactions(), 0);
}

#[test]
fn a_summary_request_extends_the_request_before_it() {
    // Long user turns cannot be stubbed: the second run's first request passes the threshold.
    let mut h = Harness::new(Policy::new(), windowed(1000)).script([
        answer("first answer"),
        answer("SUMMARY: the user asked twice"),
        answer("second answer"),
    ]);
    let mut transcript = Transcript::new("s");
    h.run(&format!("one {}", "a".repeat(1400)));
    let two = format!("two {}", "b".repeat(1400));
    let log = h.run(&two);
    while let Some(e) = h.agent.poll_transcript() {
        transcript.append(e);
    }
    assert!(
        log.iter().any(|l| l.starts_with("compacted summary")),
        "{log:?}"
    );
    let summary = h
        .requests
        .iter()
        .position(is_summary_request)
        .expect("a summary request");
    let (before, request) = (&h.requests[summary - 1], &h.requests[summary]);
    assert_eq!(request.system, before.system);
    assert_eq!(request.tools, before.tools);
    assert_eq!(
        request.messages[..before.messages.len()],
        before.messages[..]
    );
    // After: the summary opens the history and carries the latest request verbatim.
    let after = &h.requests[summary + 1];
    let ChatMessage::User { content } = &after.messages[0] else {
        panic!("{:?}", after.messages)
    };
    assert!(content.starts_with(SUMMARY_HEADING));
    assert!(content.contains("SUMMARY: the user asked twice"));
    assert!(content.ends_with(&two));
    assert!(!content.contains("one aaa"));
    assert_eq!(after.messages.len(), 1);
    assert_eq!(log.last().unwrap(), "done 1: second answer");
    // The transcript rebuilds the compacted history.
    assert!(transcript.entries().iter().any(|e| matches!(
        e,
        Entry::Compaction {
            mode: CompactionMode::Summary,
            ..
        }
    )));
    assert_eq!(transcript.history(), h.agent.history());
    // A summary is no stub compaction: its `PreCompact` comes from `is_compacting`.
    assert!(!h.agent.poll_stub_compaction());
    assert_eq!(h.agent.summary_compactions(), 1);
}

#[test]
fn compacting_twice_without_enough_room_stops_the_run() {
    // The latest request alone passes the threshold: nothing can make room.
    let mut h = Harness::new(Policy::new(), windowed(300)).script([
        answer("S1"),
        answer("S2"),
        answer("never sent"),
    ]);
    let log = h.run(&"x".repeat(2000));
    let last = log.last().unwrap();
    assert!(
        last.starts_with("error: stopped: compacting freed too little twice in a row"),
        "{log:?}"
    );
    assert_eq!(h.requests.len(), 2, "two summary requests, no third");
    assert!(h.requests.iter().all(is_summary_request));
    assert!(!h.agent.is_running());
}

#[test]
fn a_context_length_error_gets_one_compaction_and_one_retry() {
    let overflow = || {
        Err(
            "400: This model's maximum context length is 600 tokens (context_length_exceeded)"
                .to_owned(),
        )
    };
    let mut h = Harness::default()
        .script([
            answer("a1"),
            overflow(),
            answer("SUMMARY"),
            answer("retried fine"),
        ])
        .tools(big_results(10));
    h.run(&format!("first {}", "a".repeat(1500)));
    let log = h.run("second");
    assert_eq!(h.agent.config().context.window, Some(600));
    assert!(
        log.iter().any(|l| l.starts_with("compacted summary")),
        "{log:?}"
    );
    assert_eq!(log.last().unwrap(), "done 2: retried fine");

    // A second overflow right after the retry ends the run: no loop.
    let mut h = Harness::default().script([overflow(), answer("SUMMARY"), overflow(), answer("x")]);
    let log = h.run(&"z".repeat(900));
    assert!(
        log.last()
            .unwrap()
            .starts_with("error: model call failed: 400"),
        "{log:?}"
    );
    assert_eq!(h.requests.len(), 3);
}

#[test]
fn no_compaction_when_the_window_is_unknown_or_compaction_is_off() {
    let mut config = windowed(300);
    config.context.auto_compact = false;
    for config in [AgentConfig::default(), config] {
        let mut h = Harness::new(Policy::new(), config).script([answer("fine")]);
        let log = h.run(&"x".repeat(5000));
        assert_eq!(log.last().unwrap(), "done 1: fine");
        assert_eq!(h.requests.len(), 1);
    }
}

#[test]
fn manual_compaction_uses_the_focus_and_ends_without_an_answer() {
    let mut h = Harness::default().script([answer("hello"), answer("focused summary")]);
    assert_eq!(
        h.agent.compact(Instant::from_millis(1), None),
        Err(AgentError::NothingToCompact)
    );
    h.run("hi there");
    h.agent
        .compact(Instant::from_millis(2000), Some("greetings"))
        .unwrap();
    assert!(h.agent.is_running());
    h.drive();
    assert!(!h.agent.is_running());
    let request = h.requests.last().unwrap();
    let ChatMessage::User { content } = request.messages.last().unwrap() else {
        panic!()
    };
    assert!(content.ends_with("Focus the summary on: greetings"));
    // The summary with the latest request, then the latest step.
    assert_eq!(h.agent.history().len(), 2);
    let mut events = Vec::new();
    while let Some(e) = h.agent.poll_event() {
        events.push(e);
    }
    assert!(
        h.log.iter().any(|l| l.starts_with("compacted summary")),
        "{:?}",
        h.log
    );
    // Refused while a run is active.
    h.script.push_back(reply(None, &[("c1", GET, json!({}))]));
    h.agent.start_run(Instant::from_millis(3000), "go").unwrap();
    assert_eq!(
        h.agent.compact(Instant::from_millis(3001), None),
        Err(AgentError::RunActive)
    );
}

#[test]
fn done_carries_the_context_figures() {
    let mut h = Harness::new(Policy::new(), windowed(10_000)).script([answer("ok")]);
    h.agent.start_run(Instant::from_millis(1), "hi").unwrap();
    let mut done = None;
    loop {
        while let Some(event) = h.agent.poll_event() {
            if let UiEvent::Done { context, .. } = event {
                done = context;
            }
        }
        let Some(action) = h.agent.poll_action() else {
            break;
        };
        h.perform(action);
    }
    let context = done.expect("done with context");
    assert_eq!(context.window, Some(10_000));
    assert!(context.history > 0 && context.system > 0);
    assert_eq!(context.compact_at, Some(8_000));
}
