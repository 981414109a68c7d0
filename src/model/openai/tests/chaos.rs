//! What a broken or hostile OpenAI-compatible endpoint might stream: valid chunks, tool-call
//! fragments with wrong types or indexes, error events, JSON error bodies, garbage, cut lines
//! and invalid UTF-8, in random chunk sizes. The stream decoder must never panic, and
//! `finish` must give an answer or an error that says something.

use crate::model::openai::ChatCompletionStream;
use crate::test_rng::Rng;

const RUNS: u64 = 2_000;

/// SSE events (or body fragments) such a server might send.
fn pieces() -> Vec<Vec<u8>> {
    let event = |data: &str| format!("data: {data}\n\n").into_bytes();
    vec![
        event(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}"#),
        event(r#"{"choices":[{"index":0,"delta":{"content":"lo"}}]}"#),
        event(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_issue","arguments":"{\"n\":"}}]}}]}"#,
        ),
        event(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}"#,
        ),
        event(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":4000000000,"function":{"name":7}}]}}]}"#,
        ),
        event(r#"{"choices":[{"index":0,"delta":{"tool_calls":"not a list"}}]}"#),
        event(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#),
        event(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
        event(r#"{"choices":[]}"#),
        event(r#"{"choices":null,"usage":{"total_tokens":5}}"#),
        event("[DONE]"),
        event("not json"),
        event(r#"{"error":{"message":"rate limited","type":"requests","code":"429"}}"#),
        b"event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n".to_vec(),
        b": keep-alive\n\n".to_vec(),
        b"retry: 99999999999999999999\n\n".to_vec(),
        b"data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n".to_vec(),
        b"data: {\"choi".to_vec(),
        b"\r\n".to_vec(),
        br#"{"error":{"message":"invalid api key","code":"invalid_api_key"}}"#.to_vec(),
        format!("data: {}\n\n", "x".repeat(70_000)).into_bytes(),
    ]
}

#[test]
fn random_streams_end_in_an_answer_or_a_named_error() {
    let pieces = pieces();
    let mut rng = Rng(0x0bad_5eed_0a11);
    let (mut answers, mut errors) = (0, 0);
    for run in 0..RUNS {
        let mut stream = ChatCompletionStream::new();
        let mut body: Vec<u8> = Vec::new();
        for _ in 0..rng.below(12) {
            let piece: &Vec<u8> = rng.pick(&pieces);
            body.extend_from_slice(piece);
        }
        // Delivered in random chunk sizes, as a network would.
        let mut failed = false;
        let mut rest = body.as_slice();
        while !rest.is_empty() {
            let size = 1 + rng.below(rest.len().min(4_096));
            let (chunk, tail) = rest.split_at(size);
            rest = tail;
            if let Err(error) = stream.push(chunk) {
                assert!(!error.to_string().is_empty(), "run {run}");
                failed = true;
                break;
            }
        }
        if failed {
            errors += 1;
            continue;
        }
        match stream.finish() {
            Ok(_) => answers += 1,
            Err(error) => {
                assert!(!error.to_string().is_empty(), "run {run}: {error:?}");
                errors += 1;
            }
        }
    }
    assert!(
        answers > 0 && errors > 0,
        "answers {answers}, errors {errors}"
    );
}
