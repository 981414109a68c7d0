//! Answers that cannot be read as sent (invalid UTF-8, nesting past serde_json's recursion
//! limit, numbers out of range) answer or fail their request at once, under simulated time:
//! never a wait for the timeout.

mod support;

use agentwire::mcp::{CallOptions, RequestError, RequestId, SessionEvent};
use serde_json::Value;
use support::Pair;

/// A ready pair with one `tools/call` in flight: the call's handle and its wire id.
fn calling() -> (Pair, RequestId, Value) {
    let mut pair = Pair::ready();
    let call = pair
        .client
        .call_tool(
            pair.now,
            "echo",
            serde_json::json!({}),
            CallOptions::default(),
        )
        .unwrap();
    let id = pair.recv()["id"].clone();
    (pair, call, id)
}

/// Feeds `line` plus a newline as stream bytes and returns the events, without time passing.
fn feed(pair: &mut Pair, line: &[u8]) -> Vec<SessionEvent> {
    let mut bytes = line.to_vec();
    bytes.push(b'\n');
    pair.client.handle_bytes(pair.now, &bytes);
    pair.drain();
    pair.events.drain(..).collect()
}

fn failure(events: &[SessionEvent], call: RequestId) -> String {
    events
        .iter()
        .find_map(|event| match event {
            SessionEvent::ToolResult {
                request,
                result: Err(RequestError::InvalidResult(reason)),
            } if *request == call => Some(reason.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the call did not fail at once: {events:?}"))
}

#[test]
fn invalid_utf8_in_an_answer_is_read_as_replacement_characters_and_reported() {
    for through_frames in [false, true] {
        let (mut pair, call, id) = calling();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"caf"#
        );
        let mut bytes = line.into_bytes();
        bytes.extend_from_slice(b"\xff\xfe ok\"}]}}");
        let events = if through_frames {
            pair.client.handle_frame(pair.now, &bytes);
            pair.drain();
            pair.events.drain(..).collect()
        } else {
            feed(&mut pair, &bytes)
        };
        let text = events.iter().find_map(|event| match event {
            SessionEvent::ToolResult {
                request,
                result: Ok(output),
            } if *request == call => Some(output.to_model_text()),
            _ => None,
        });
        assert_eq!(
            text.as_deref(),
            Some("caf\u{FFFD}\u{FFFD} ok"),
            "{events:?}"
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, SessionEvent::ProtocolError { message }
                if message.contains("not valid UTF-8"))),
            "the bad bytes are reported: {events:?}"
        );
    }
}

#[test]
fn nesting_past_the_limit_fails_the_call_at_once_with_a_named_error() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for (before, payload) in [
        (true, deep(100_000)),
        (false, deep(100_000)),
        (true, deep(129)),
    ] {
        let (mut pair, call, id) = calling();
        let line = if before {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"deep":{payload}}}}}"#)
        } else {
            format!(r#"{{"result":{{"deep":{payload}}},"jsonrpc":"2.0","id":{id}}}"#)
        };
        let events = feed(&mut pair, line.as_bytes());
        let reason = failure(&events, call);
        assert!(
            reason.contains("nested deeper than 128"),
            "names the limit: {reason}"
        );
        assert_eq!(pair.client.in_flight(), 0);
    }
    // Within the limit it is an ordinary answer.
    let (mut pair, call, id) = calling();
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{{"d":{}}}}}}}"#,
        deep(100)
    );
    let events = feed(&mut pair, line.as_bytes());
    assert!(events.iter().any(
        |e| matches!(e, SessionEvent::ToolResult { request, result: Ok(_) } if *request == call)
    ));
}

#[test]
fn a_number_out_of_range_fails_the_call_at_once() {
    let (mut pair, call, id) = calling();
    let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"x":1e999999}}}}"#);
    let reason = failure(&feed(&mut pair, line.as_bytes()), call);
    assert!(reason.contains("number out of range"), "{reason}");
}

#[test]
fn an_unreadable_request_from_the_server_never_fails_a_call_of_ours() {
    let (mut pair, _call, id) = calling();
    // Same id, but a request of the server's (its own numbering): not an answer to us.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"sampling/createMessage","params":{{"x":{}}}}}"#,
        "[".repeat(200) + &"]".repeat(200)
    );
    let events = feed(&mut pair, line.as_bytes());
    assert!(
        events
            .iter()
            .all(|e| matches!(e, SessionEvent::ProtocolError { .. })),
        "{events:?}"
    );
    assert_eq!(
        pair.client.in_flight(),
        1,
        "the call still waits for its answer"
    );
}
