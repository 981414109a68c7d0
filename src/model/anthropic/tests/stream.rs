//! Streams shaped like the "Streaming Messages" documentation's examples: event names
//! `message_start`, `content_block_start`, `content_block_delta` (`text_delta`,
//! `input_json_delta` with `partial_json`, `thinking_delta`, `signature_delta`),
//! `content_block_stop`, `message_delta` (`delta.stop_reason`, `usage.output_tokens`),
//! `message_stop`, `ping` and `error`.

use serde_json::json;

use crate::model::anthropic::MessagesStream;
use crate::model::{DecodeError, ModelResponse, StreamDelta, Usage};

fn event(name: &str, data: serde_json::Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// A thinking block, text, then a tool call whose input arrives in one fragment per character.
fn recorded() -> String {
    let mut s = String::new();
    s += &event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null,
            "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 2048, "output_tokens": 1}}}),
    );
    s += &event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "thinking", "thinking": ""}}),
    );
    s += &event("ping", json!({"type": "ping"}));
    for piece in ["The user wants ", "issue 7."] {
        s += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "thinking_delta", "thinking": piece}}),
        );
    }
    s += &event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "signature_delta", "signature": "EqQB"}}),
    );
    s += &event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    s += &event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 1,
               "content_block": {"type": "text", "text": ""}}),
    );
    for piece in ["Looking ", "it up."] {
        s += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1,
                   "delta": {"type": "text_delta", "text": piece}}),
        );
    }
    s += &event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 1}),
    );
    s += &event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use",
               "id": "toolu_9", "name": "get_issue", "input": {}}}),
    );
    let input = r#"{"owner": "vercel", "repo": "ai", "issue_number": 7}"#;
    for c in input.chars() {
        s += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2,
                   "delta": {"type": "input_json_delta", "partial_json": c.to_string()}}),
        );
    }
    s += &event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 2}),
    );
    s += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
               "stop_sequence": null}, "usage": {"output_tokens": 89}}),
    );
    s += &event("message_stop", json!({"type": "message_stop"}));
    s
}

fn run(chunks: &[&[u8]]) -> (Vec<StreamDelta>, Result<ModelResponse, DecodeError>) {
    let mut stream = MessagesStream::new();
    let mut deltas = Vec::new();
    for chunk in chunks {
        match stream.push(chunk) {
            Ok(d) => deltas.extend(d),
            Err(e) => return (deltas, Err(e)),
        }
    }
    (deltas, stream.finish())
}

#[test]
fn a_recorded_stream_gives_text_reasoning_tool_call_and_usage() {
    let body = recorded();
    let (deltas, answer) = run(&[body.as_bytes()]);
    let answer = answer.unwrap();
    assert_eq!(answer.text.as_deref(), Some("Looking it up."));
    assert_eq!(answer.tool_calls.len(), 1);
    assert_eq!(answer.tool_calls[0].id, "toolu_9");
    assert_eq!(
        answer.tool_calls[0].arguments,
        json!({"owner": "vercel", "repo": "ai", "issue_number": 7})
    );
    assert_eq!(
        answer.usage,
        Some(Usage {
            input_tokens: 2060,
            output_tokens: 89,
            cache_read_tokens: Some(2048),
            cache_write_tokens: Some(0),
        })
    );
    assert_eq!(
        deltas,
        vec![
            StreamDelta::Reasoning("The user wants ".into()),
            StreamDelta::Reasoning("issue 7.".into()),
            StreamDelta::Text("Looking ".into()),
            StreamDelta::Text("it up.".into()),
            StreamDelta::ToolCallStarted {
                index: 2,
                id: "toolu_9".into(),
                name: "get_issue".into()
            },
        ]
    );
}

#[test]
fn any_chunking_gives_the_same_answer() {
    let body = recorded();
    let (whole_deltas, whole) = run(&[body.as_bytes()]);
    let bytes: Vec<&[u8]> = body.as_bytes().chunks(1).collect();
    let (byte_deltas, bytewise) = run(&bytes);
    assert_eq!(whole.clone().unwrap(), bytewise.unwrap());
    let text = |d: &[StreamDelta]| {
        d.iter()
            .map(|d| match d {
                StreamDelta::Text(t) | StreamDelta::Reasoning(t) => t.clone(),
                other => format!("{other:?}"),
            })
            .collect::<String>()
    };
    assert_eq!(text(&whole_deltas), text(&byte_deltas));
    for size in [2, 7, 64, 1000] {
        let chunks: Vec<&[u8]> = body.as_bytes().chunks(size).collect();
        assert_eq!(
            run(&chunks).1.unwrap(),
            whole.clone().unwrap(),
            "size {size}"
        );
    }
}

#[test]
fn an_error_event_mid_stream_is_the_api_error() {
    let body = recorded();
    let cut = body.find("event: content_block_start").unwrap();
    let broken = format!(
        "{}event: error\ndata: {}\n\n",
        &body[..cut],
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
    let (_, answer) = run(&[broken.as_bytes()]);
    assert_eq!(
        answer.unwrap_err().to_string(),
        "model API error: Overloaded (type overloaded_error)"
    );
}

#[test]
fn a_cut_connection_is_incomplete_never_a_partial_answer() {
    let body = recorded();
    for cut in [
        0,
        10,
        body.len() / 2,
        body.find("event: message_stop").unwrap(),
    ] {
        let (_, answer) = run(&[&body.as_bytes()[..cut]]);
        let err = answer.unwrap_err();
        assert!(
            matches!(err, DecodeError::Incomplete(_)),
            "cut {cut}: {err}"
        );
    }
}

#[test]
fn max_tokens_and_refusal_end_in_named_errors() {
    for reason in ["max_tokens", "refusal"] {
        let body = recorded().replace(
            "\"tool_use\",\"stop_sequence\"",
            &format!("\"{reason}\",\"stop_sequence\""),
        );
        assert!(body.contains(reason));
        let (_, answer) = run(&[body.as_bytes()]);
        assert_eq!(
            answer.unwrap_err(),
            DecodeError::Stopped {
                reason: reason.into()
            }
        );
    }
}

#[test]
fn invalid_utf8_in_text_is_replaced_not_fatal() {
    let mut body = Vec::new();
    body.extend_from_slice(
        event(
            "message_start",
            json!({"type": "message_start", "message": {"usage":
            {"input_tokens": 1, "output_tokens": 1}}}),
        )
        .as_bytes(),
    );
    body.extend_from_slice(
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        )
        .as_bytes(),
    );
    body.extend_from_slice(b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok \xff\xfe\"}}\n\n");
    body.extend_from_slice(event("message_stop", json!({"type": "message_stop"})).as_bytes());
    let (_, answer) = run(&[&body]);
    assert_eq!(answer.unwrap().text.as_deref(), Some("ok \u{fffd}\u{fffd}"));
}

#[test]
fn misplaced_events_are_malformed_with_the_block_named() {
    let start = event(
        "message_start",
        json!({"type": "message_start", "message": {}}),
    );
    let text_block = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "text", "text": ""}}),
    );
    let json_delta = event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": "{"}}),
    );
    for (body, says) in [
        (json_delta.clone(), "before message_start"),
        (format!("{start}{json_delta}"), "never started"),
        (
            format!("{start}{text_block}{json_delta}"),
            "does not fit content block 0",
        ),
        (format!("{start}{text_block}{text_block}"), "started twice"),
        (format!("{start}data: {{\"no\":1}}\n\n"), "no \"type\""),
    ] {
        let (_, answer) = run(&[body.as_bytes()]);
        let err = answer.unwrap_err().to_string();
        assert!(err.contains(says), "{says}: {err}");
    }
}

#[test]
fn a_plain_json_body_is_decoded_instead() {
    let body = json!({"type": "message", "content": [{"type": "text", "text": "hi"}],
                      "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 1}});
    let (_, answer) = run(&[body.to_string().as_bytes()]);
    assert_eq!(answer.unwrap().text.as_deref(), Some("hi"));
    let (_, answer) = run(&[b"<html>bad gateway</html>"]);
    assert!(answer.unwrap_err().to_string().contains("bad gateway"));
}

/// Feeds `MessagesStream::with_max_bytes(max)` the `start` events then `repeat` for ever;
/// returns how many bytes went in and the error that stopped it.
fn flood(max: usize, start: &str, repeat: &str) -> (usize, DecodeError) {
    let mut stream = MessagesStream::with_max_bytes(max);
    let mut fed = 0;
    let mut body = start.to_owned();
    loop {
        fed += body.len();
        if let Err(e) = stream.push(body.as_bytes()) {
            return (fed, e);
        }
        assert!(fed < 100 * max, "the stream was never stopped");
        body = repeat.to_owned();
    }
}

#[test]
fn an_endless_stream_of_text_tool_input_or_pings_stops_at_the_size_bound() {
    let start = event(
        "message_start",
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
    );
    let text = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    let tool = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "tool_use", "id": "t", "name": "x", "input": {}}}),
    );
    let text_delta = event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "aaaa"}}),
    );
    let json_delta = event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": "[1,"}}),
    );
    let ping = event("ping", json!({"type": "ping"}));
    for (opening, repeat) in [
        (format!("{start}{text}"), text_delta),
        (format!("{start}{tool}"), json_delta),
        (start.clone(), ping),
    ] {
        let (fed, error) = flood(4096, &opening, &repeat);
        assert_eq!(error, DecodeError::TooLarge { limit: 4096 });
        assert!(fed > 4096 && fed <= 4096 + repeat.len(), "{fed}");
        assert!(error.to_string().contains("size limit of 4 KiB"), "{error}");
    }
}

#[test]
fn an_answer_within_the_bound_is_unaffected() {
    let body = recorded();
    let mut exact = MessagesStream::with_max_bytes(body.len());
    assert!(exact.push(body.as_bytes()).is_ok());
    assert!(exact.finish().is_ok());
    let mut short = MessagesStream::with_max_bytes(body.len() - 1);
    assert_eq!(
        short.push(body.as_bytes()).unwrap_err(),
        DecodeError::TooLarge {
            limit: body.len() - 1
        }
    );
}
