//! What a broken or hostile Messages endpoint might stream: valid events, deltas for missing
//! or mismatched blocks, error events, garbage, cut lines and invalid UTF-8, in random chunk
//! sizes. The decoder must never panic, and `finish` must give an answer or a named error.

use crate::model::anthropic::MessagesStream;
use crate::test_rng::Rng;

const RUNS: u64 = 3_000;

fn pieces() -> Vec<Vec<u8>> {
    let event = |name: &str, data: &str| format!("event: {name}\ndata: {data}\n\n").into_bytes();
    vec![
        event("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}"#),
        event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
        event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#),
        event("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"calc","input":{}}}"#),
        event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#),
        event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}"#),
        event("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":"hm"}}"#),
        event("content_block_delta", r#"{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"..."}}"#),
        event("content_block_delta", r#"{"type":"content_block_delta","index":18446744073709551615,"delta":{"type":"text_delta","text":7}}"#),
        event("content_block_start", r#"{"type":"content_block_start","index":-1,"content_block":{"type":"tool_use"}}"#),
        event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
        event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#),
        event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":"x"}}"#),
        event("message_stop", r#"{"type":"message_stop"}"#),
        event("ping", r#"{"type":"ping"}"#),
        event("error", r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
        event("error", r#""just text""#),
        event("mystery", r#"{"type":"mystery"}"#),
        b"data: not json\n\n".to_vec(),
        b"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xff\"}}\n\n".to_vec(),
        b"data: {\"type\":\"mess".to_vec(),
        b"\r\n".to_vec(),
        b": comment\n\n".to_vec(),
        br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#.to_vec(),
        format!("data: {}\n\n", "x".repeat(70_000)).into_bytes(),
    ]
}

#[test]
fn random_streams_end_in_an_answer_or_a_named_error() {
    let pieces = pieces();
    let mut rng = Rng(0x5eed_c1a0_de00);
    let (mut answers, mut errors) = (0, 0);
    for run in 0..RUNS {
        let mut stream = MessagesStream::new();
        let mut body: Vec<u8> = Vec::new();
        // Most runs start like a real stream, so answers are reachable too.
        if rng.below(2) == 0 {
            body.extend_from_slice(&pieces[0]);
        }
        for _ in 0..rng.below(14) {
            let piece: &Vec<u8> = rng.pick(&pieces);
            body.extend_from_slice(piece);
        }
        if rng.below(2) == 0 {
            body.extend_from_slice(&pieces[13]);
        }
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
        answers > 100 && errors > 100,
        "answers {answers}, errors {errors}"
    );
}
