//! Token usage: one `step_end` per model call that reported it, the run's sum in `done`.

use super::*;
use crate::model::Usage;

fn with_usage(
    reply: Result<ModelResponse, String>,
    input: u64,
    cached: Option<u64>,
    output: u64,
) -> Result<ModelResponse, String> {
    reply.map(|r| ModelResponse {
        usage: Some(Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: cached,
            cache_write_tokens: None,
        }),
        ..r
    })
}

#[test]
fn reported_usage_is_shown_per_step_and_summed_in_done() {
    let mut h = Harness::default().script([
        with_usage(reply(None, &[("c1", GET, json!({"n": 1}))]), 1000, None, 20),
        with_usage(answer("open"), 1412, Some(1024), 96),
    ]);
    let log = h.run("status?");
    assert_eq!(
        log,
        [
            "step 1",
            "model",
            "step 1 tokens: 1,000 in, 20 out",
            "start c1 mcp__gh__get_issue",
            "tools c1",
            "end c1 ok",
            "step 2",
            "audit c1 ok",
            "model",
            "step 2 tokens: 1,412 in (1,024 cached), 96 out",
            "text: open",
            "done 2: open (tokens: 2,412 in (1,024 cached), 116 out)",
        ]
    );
    // The next run counts from zero.
    h.script
        .push_back(with_usage(answer("again"), 1500, Some(1400), 3));
    let log = h.run("again?");
    assert_eq!(
        log.last().unwrap(),
        "done 1: again (tokens: 1,500 in (1,400 cached), 3 out)"
    );
}

#[test]
fn steps_without_usage_invent_nothing() {
    let mut h = Harness::default().script([
        reply(None, &[("c1", GET, json!({"n": 1}))]),
        with_usage(answer("open"), 50, None, 5),
    ]);
    let log = h.run("status?");
    assert_eq!(
        log[2], "start c1 mcp__gh__get_issue",
        "no step_end for step 1"
    );
    assert_eq!(log.last().unwrap(), "done 2: open (tokens: 50 in, 5 out)");

    let mut h = Harness::default().script([answer("plain")]);
    assert_eq!(h.run("hi").last().unwrap(), "done 1: plain");
}
