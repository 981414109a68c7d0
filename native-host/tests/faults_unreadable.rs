//! A real server answering with the right id but an unreadable body: the call is answered
//! (lossy UTF-8) or fails at once naming why, never after the 60 s request timeout.

mod common;

use agentwire::mcp::{CallOptions, RequestError};
use common::lib_host::{connect, local, session};
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn unreadable_answers_answer_or_fail_their_call_at_once() {
    local(async {
        let server = connect(
            "unreadable",
            "unreadable.mjs",
            &[],
            session(Duration::from_secs(60)),
        )
        .await;
        let call = |kind: &'static str| {
            server
                .client
                .call_tool("broken", json!({"kind": kind}), CallOptions::default())
        };
        let started = Instant::now();
        let utf8 = call("utf8").await.expect("invalid UTF-8 is read lossily");
        assert_eq!(utf8.to_model_text(), "caf\u{FFFD}\u{FFFD} ok");
        for (kind, needle) in [
            ("deep", "nested deeper than 128"),
            ("deep-tail", "nested deeper than 128"),
            ("range", "number out of range"),
        ] {
            match call(kind).await {
                Err(RequestError::InvalidResult(reason)) => {
                    assert!(reason.contains(needle), "{kind}: {reason}")
                }
                other => panic!("{kind}: expected a failure at once, got {other:?}"),
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        // The connection reads on.
        let echo = server
            .client
            .call_tool(
                "echo",
                json!({"text": "still fine"}),
                CallOptions::default(),
            )
            .await
            .expect("echo");
        assert_eq!(echo.to_model_text(), "still fine");
    });
}
