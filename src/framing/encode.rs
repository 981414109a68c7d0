//! The encoder: one message per line.

use crate::jsonrpc::Message;
use serde_json::Value;

/// Encodes a message as one line: compact JSON followed by `\n`.
///
/// One message per line is guaranteed: compact JSON from serde_json has no whitespace between
/// tokens, and a newline inside a string is always written as the escape `\n`, never raw.
pub fn encode_line(message: &Message) -> Vec<u8> {
    terminate(message.to_bytes())
}

/// Encodes any JSON value as one line: compact JSON followed by `\n` (see [`encode_line`]).
pub fn encode_value(value: &Value) -> Vec<u8> {
    // Serialising a `Value` cannot fail: all its keys are strings.
    terminate(serde_json::to_vec(value).unwrap_or_default())
}

fn terminate(mut json: Vec<u8>) -> Vec<u8> {
    debug_assert!(
        !json.contains(&b'\n'),
        "compact JSON never holds a raw newline"
    );
    json.push(b'\n');
    json
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::LineDecoder;
    use crate::jsonrpc::{Id, Request};
    use serde_json::json;

    #[test]
    fn newlines_inside_strings_stay_escaped_and_the_line_round_trips() {
        let message = Message::Request(Request {
            id: Id::from("line\nbreak"),
            method: "tools/call".into(),
            params: Some(json!({
                "name": "write",
                "arguments": {"text": "a\nb\r\nc\u{2028}d", "key\nwith newline": [1, "\n"]}
            })),
        });
        let line = encode_line(&message);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
        let mut decoder = LineDecoder::default();
        decoder.push(&line);
        assert_eq!(decoder.next_message(), Some(Ok(message)));
        assert_eq!(decoder.next_message(), None);
    }

    #[test]
    fn values_are_encoded_compact_on_one_line() {
        let value = json!({"b": [1, 2], "s": "x\ny"});
        let line = encode_value(&value);
        assert_eq!(line, b"{\"b\":[1,2],\"s\":\"x\\ny\"}\n");
        let parsed: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(parsed, value);
    }
}
