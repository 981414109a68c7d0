//! A 20 MB tool result through `StdioTransport`, `McpClient` and `Runtime::call_tool`: it
//! arrives whole, the agent-level text is truncated, and memory stays bounded.
//!
//! Alone in its own test binary so that `VmHWM` (this process's peak RSS) measures this
//! test only.

mod common;

use common::lib_host::{connect, local, peak_rss, runtime, session, Recorder};
use serde_json::json;
use std::time::{Duration, Instant};

const TWENTY_MIB: usize = 20 * 1024 * 1024;
/// Ceiling for the whole test process: the result is 20 MiB, held a few times at most on its
/// way (about 105 MiB measured in a debug build).
const PEAK_LIMIT: u64 = 200 * 1024 * 1024;

#[test]
fn a_20_mb_result_arrives_whole_is_truncated_for_the_agent_and_memory_stays_bounded() {
    let before = peak_rss();
    local(async {
        let big = connect(
            "big",
            "big-result.mjs",
            &[],
            session(Duration::from_secs(20)),
        )
        .await;
        let runtime = runtime();
        assert_eq!(runtime.add_server("big", big.client).await, Ok(5));
        let recorder = Recorder::default();

        let started = Instant::now();
        let call = runtime
            .call_tool("mcp__big__big", json!({}), &recorder)
            .await
            .expect("the call is allowed");
        let elapsed = started.elapsed();

        let output = call.output.as_ref().expect("the tool produced an output");
        assert!(!output.is_error);
        let text = output.to_model_text();
        assert_eq!(text.len(), TWENTY_MIB, "the raw output is whole");
        assert!(text.starts_with("0123456789") && text.ends_with("0123456789"));

        // What the model would see is cut to the tool's limit (50 000 characters by default).
        assert!(call.shaped.truncated, "the agent-level text is truncated");
        assert!(!call.shaped.is_error);
        assert!(
            call.shaped.text.len() < 60_000,
            "{} bytes reach the model",
            call.shaped.text.len()
        );
        assert!(call.shaped.text.starts_with("0123456789"));

        {
            let audit = recorder.audit.borrow();
            assert_eq!(audit.len(), 1);
            assert_eq!(audit[0].output_chars, TWENTY_MIB);
            assert!(audit[0].truncated);
        }

        // The connection is still healthy after the big frame.
        let echo = runtime
            .call_tool("mcp__big__echo", json!({"text": "still here"}), &recorder)
            .await
            .expect("allowed");
        assert_eq!(echo.shaped.text, "still here");
        eprintln!("20 MiB result in {elapsed:?}");
        assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
        runtime.close();
    });
    let peak = peak_rss();
    eprintln!(
        "peak RSS {} MiB (before the test {} MiB)",
        peak / (1024 * 1024),
        before / (1024 * 1024)
    );
    assert!(
        peak < PEAK_LIMIT,
        "peak RSS {} MiB exceeds {} MiB",
        peak / (1024 * 1024),
        PEAK_LIMIT / (1024 * 1024)
    );
}
