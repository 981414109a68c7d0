//! A frame over the session's limit is dropped as it streams in (never buffered whole), the
//! call it answered fails at once with the reason, the drop is reported, and the connection
//! stays usable.

mod common;

use agentwire::mcp::{CallOptions, RequestError, SessionConfig, SessionEvent};
use common::lib_host::{connect, local, session};
use futures::StreamExt;
use serde_json::json;
use std::time::Duration;

#[test]
fn a_frame_over_the_limit_is_dropped_without_buffering_it() {
    // With a 1 MiB frame limit the 20 MB line is discarded as it streams in (never buffered).
    // Its id survives in the edges the decoder keeps, so the call fails as soon as the line
    // ends, long before its (generous) timeout, and the connection stays usable.
    local(async {
        let config = SessionConfig {
            max_frame_len: 1024 * 1024,
            ..session(Duration::from_secs(120))
        };
        let big = connect("big", "big-result.mjs", &[], config).await;
        let mut events = big.client.take_events().expect("events");
        let result = big
            .client
            .call_tool("big", json!({}), CallOptions::default())
            .await;
        assert!(
            matches!(&result, Err(RequestError::InvalidResult(reason))
                if reason.contains("dropped") && reason.contains("1048576")),
            "{result:?}"
        );
        let report = tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(event) = events.next().await {
                if let SessionEvent::ProtocolError { message } = event {
                    if message.contains("1048576") || message.contains("long") {
                        return Some(message);
                    }
                }
            }
            None
        })
        .await;
        assert!(
            matches!(report, Ok(Some(_))),
            "the oversized frame is reported: {report:?}"
        );
        let echo = big
            .client
            .call_tool("echo", json!({"text": "ok"}), CallOptions::default())
            .await
            .expect("the connection survives");
        assert_eq!(echo.to_model_text(), "ok");
    });
}
