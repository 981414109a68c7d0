//! Lines straight to JSON-RPC messages, for the session layer.

use super::error::{excerpt, DecodeError};
use super::LineDecoder;
use crate::jsonrpc::Message;

impl LineDecoder {
    /// The next line parsed as a JSON-RPC message, or why it could not be (with a quote of the
    /// line); `None` when every complete line has been drained. Same contract as
    /// [`next_frame`](Self::next_frame): a bad line is reported and skipped.
    ///
    /// A line that is not valid UTF-8 is read with the invalid bytes replaced by U+FFFD (see
    /// [`next_frame_lossy`](Self::next_frame_lossy)), so a response with one bad byte in a
    /// string still answers its request.
    pub fn next_message(&mut self) -> Option<Result<Message, DecodeError>> {
        Some(match self.next_frame_lossy()? {
            Ok((line, _)) => parse_line(&line),
            Err(e) => Err(DecodeError::Frame(e)),
        })
    }

    /// An iterator over [`next_message`](Self::next_message): drains the complete lines pushed
    /// so far.
    pub fn messages(&mut self) -> Messages<'_> {
        Messages { decoder: self }
    }
}

/// Parses one frame as a message; the error quotes the line.
///
/// Does what [`Message::parse`] does, but from `&str`: the decoder has already checked the
/// line's UTF-8, and (natively) parsing from a `str` lets serde_json skip checking it a second
/// time (see `crate::json::parse_str`).
pub fn parse_line(line: &str) -> Result<Message, DecodeError> {
    crate::json::parse_str(line)
        .map_err(|e| crate::jsonrpc::json_error(&e))
        .and_then(Message::from_value)
        .map_err(|error| DecodeError::Message {
            error,
            excerpt: excerpt(line.as_bytes()),
        })
}

/// Drains a [`LineDecoder`] as messages; see [`LineDecoder::messages`].
#[derive(Debug)]
pub struct Messages<'a> {
    decoder: &'a mut LineDecoder,
}

impl Iterator for Messages<'_> {
    type Item = Result<Message, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.decoder.next_message()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{FrameError, LineEdges, EDGE_BYTES};
    use crate::jsonrpc::MessageError;
    use crate::jsonrpc::{Id, Response};
    use serde_json::json;

    #[test]
    fn each_line_becomes_a_message_or_an_error_that_quotes_it() {
        let mut decoder = LineDecoder::new(100);
        decoder.push(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\r\n");
        decoder.push(b"{not json at all\n");
        decoder.push(b"{\"jsonrpc\":\"1.0\",\"id\":\"k\",\"method\":\"m\"}\n");
        decoder.push(b"[{\"jsonrpc\":\"2.0\",\"method\":\"m\"}]\n\xff{}\n");
        decoder.push(&[b'x'; 150]);
        decoder.push(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n");
        let results: Vec<_> = decoder.messages().collect();
        assert_eq!(results.len(), 7, "{results:?}");
        assert_eq!(
            results[0],
            Ok(Message::Response(Response {
                id: Some(Id::from(1)),
                outcome: Ok(json!({"ok": true})),
            }))
        );
        let Err(DecodeError::Message {
            error: MessageError::InvalidJson(_),
            excerpt,
        }) = &results[1]
        else {
            panic!("{:?}", results[1])
        };
        assert_eq!(excerpt, "{not json at all");
        let Err(DecodeError::Message {
            error: error @ MessageError::Invalid { id, .. },
            excerpt,
        }) = &results[2]
        else {
            panic!("{:?}", results[2])
        };
        assert_eq!(
            id,
            &Some(Id::from("k")),
            "the id survives for the -32600 reply"
        );
        assert!(excerpt.contains("\"1.0\""), "{excerpt}");
        assert!(results[2]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains(&error.to_string()));
        assert!(matches!(
            &results[3],
            Err(DecodeError::Message { error: MessageError::Batch, excerpt }) if excerpt.starts_with('[')
        ));
        // Invalid UTF-8 is read as U+FFFD, which is not JSON here.
        assert!(
            matches!(
                &results[4],
                Err(DecodeError::Message { error: MessageError::InvalidJson(_), excerpt })
                    if excerpt == "\u{FFFD}{}"
            ),
            "{:?}",
            results[4]
        );
        assert_eq!(
            results[5],
            Err(DecodeError::Frame(FrameError::TooLong {
                len: 150,
                max: 100,
                edges: LineEdges {
                    head: vec![b'x'; EDGE_BYTES],
                    tail: vec![b'x'; EDGE_BYTES],
                },
            }))
        );
        assert_eq!(
            results[6].as_ref().map(Message::method),
            Ok(Some("notifications/progress"))
        );
        assert_eq!(decoder.next_message(), None);
    }

    #[test]
    fn parse_line_agrees_with_message_parse() {
        for line in [
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":3}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"é\u00e9"}"#,
            "nope",
        ] {
            let ours = parse_line(line).map_err(|e| match e {
                DecodeError::Message { error, .. } => error,
                other => panic!("{other:?}"),
            });
            assert_eq!(ours, Message::parse(line.as_bytes()), "{line}");
        }
    }
}
