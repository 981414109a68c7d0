//! The transcript the loop emits rebuilds its history exactly: the requests of an agent
//! resumed from the saved JSONL are byte-identical to those of the agent that wrote it.

use super::*;
use crate::model::{encode_request, OpenAiOptions};
use crate::transcript::{parse_jsonl, Entry, Transcript};

fn drain_transcript(agent: &mut Agent, into: &mut Transcript) {
    while let Some(entry) = agent.poll_transcript() {
        into.append(entry);
    }
}

fn wire(request: &ModelRequest) -> Vec<u8> {
    serde_json::to_vec(&encode_request(request, &OpenAiOptions::new("m"))).unwrap()
}

#[test]
fn resumed_agent_sends_byte_identical_requests() {
    let mut policy = Policy::new();
    policy.ask(CREATE).unwrap();
    let usage = crate::model::Usage {
        input_tokens: 40,
        output_tokens: 3,
        cache_read_tokens: Some(32),
        cache_write_tokens: None,
    };
    let mut first_step = reply(
        Some("Looking"),
        &[
            ("c1", GET, json!({"n": 1, "z": [1.5, "ü"], "a": null})),
            ("c1", LIST, json!({})),
        ],
    )
    .unwrap();
    first_step.usage = Some(usage);
    let mut h = Harness::new(policy, AgentConfig::default())
        .script([
            Ok(first_step),
            reply(None, &[("c9", CREATE, json!({"title": "x"}))]),
            answer("Done: issue 1 is open"),
            reply(None, &[("c10", CREATE, json!({"title": "y"}))]),
            answer("Declined, fine"),
            answer("bye"),
        ])
        .approvals(&[Approval::Yes, Approval::No]);
    let mut transcript = Transcript::new("s1");
    h.run("status of issue 1?");
    drain_transcript(&mut h.agent, &mut transcript);
    h.run("make another");
    drain_transcript(&mut h.agent, &mut transcript);
    assert!(transcript.entries().iter().any(|e| matches!(
        e,
        Entry::Approval {
            answer: Approval::No,
            ..
        }
    )));
    assert!(transcript.entries().iter().any(
        |e| matches!(e, Entry::Assistant { usage: Some(u), .. } if u.cache_read_tokens == Some(32))
    ));

    let text = transcript.to_jsonl();
    let parsed = parse_jsonl(&text).unwrap();
    assert!(parsed.warnings.is_empty());
    assert_eq!(parsed.complete_bytes, text.len());
    assert_eq!(parsed.transcript, transcript);
    assert_eq!(parsed.transcript.history(), h.agent.history());

    // The same next turn on the writer and on an agent resumed from the file.
    let mut resumed = Harness::default().script([answer("bye")]);
    resumed
        .agent
        .set_history(parsed.transcript.history())
        .unwrap();
    h.run("thanks");
    resumed.run("thanks");
    let (a, b) = (h.requests.last().unwrap(), resumed.requests.last().unwrap());
    assert_eq!(wire(a), wire(b));
    assert_eq!(h.agent.history(), resumed.agent.history());
}

#[test]
fn clear_is_recorded_and_rebuilds_an_empty_history() {
    let mut h = Harness::default().script([answer("one"), answer("two")]);
    let mut transcript = Transcript::new("s");
    h.run("a");
    h.agent.clear_history().unwrap();
    h.run("b");
    drain_transcript(&mut h.agent, &mut transcript);
    let kinds: Vec<_> = transcript.entries().iter().map(Entry::kind).collect();
    assert_eq!(kinds, ["user", "assistant", "clear", "user", "assistant"]);
    assert_eq!(transcript.history(), h.agent.history());
    assert_eq!(h.agent.history().len(), 2);
}

#[test]
fn interrupted_run_leaves_no_dangling_call_in_the_transcript() {
    let mut h = Harness::default().script([reply(None, &[("c1", GET, json!({}))])]);
    h.agent.start_run(Instant::from_millis(1), "look").unwrap();
    let actions = h.drain();
    h.perform(actions.into_iter().next().unwrap());
    // The tool call is in flight; the user interrupts.
    h.agent
        .interrupt_run(Instant::from_millis(9), "Ctrl-C")
        .unwrap();
    let mut transcript = Transcript::new("s");
    drain_transcript(&mut h.agent, &mut transcript);
    let parsed = parse_jsonl(&transcript.to_jsonl()).unwrap();
    assert_eq!(parsed.transcript.history(), h.agent.history());
    assert!(crate::transcript::pending_calls(h.agent.history()).is_empty());
}
