//! What can go wrong between bytes and messages, and the excerpts that point at the culprit.

use super::LineEdges;
use crate::json::quoted;
use crate::jsonrpc::MessageError;
use std::fmt;

/// How many characters of a bad line an error quotes.
pub const EXCERPT_CHARS: usize = 80;

/// A short, printable quote of the start of a line, for error messages.
///
/// Invalid UTF-8 becomes U+FFFD; at most [`EXCERPT_CHARS`] characters are kept and a cut is
/// marked with `…`. Only the first bytes are looked at, so a 50 MB line costs nothing here.
pub fn excerpt(line: &[u8]) -> String {
    // Four bytes per character is the UTF-8 maximum, so this prefix holds enough characters
    // (an invalid byte becomes one U+FFFD, which only adds characters).
    let head = &line[..line.len().min(EXCERPT_CHARS * 4)];
    let text = String::from_utf8_lossy(head);
    let mut chars = text.char_indices();
    match chars.nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None if head.len() < line.len() => format!("{text}…"),
        None => text.into_owned(),
    }
}

/// A line the decoder could not turn into a frame. The decoder has already skipped it: the
/// next call to [`LineDecoder::next_frame`](super::LineDecoder::next_frame) reads on normally.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameError {
    /// The line was longer than the decoder's limit; its bytes were dropped as they arrived.
    TooLong {
        /// The line's length in bytes, without its `\n` or `\r\n` (at end of stream: the bytes
        /// received before it ended).
        len: usize,
        /// The decoder's maximum frame length.
        max: usize,
        /// The line's first and last bytes, to tell which message it was.
        edges: LineEdges,
    },
    /// The line is not valid UTF-8 (so it cannot be JSON).
    InvalidUtf8 {
        /// Offset in the line of the first byte that is not valid UTF-8.
        valid_up_to: usize,
        /// The start of the line, see [`excerpt`].
        excerpt: String,
    },
    /// The stream ended in the middle of a line (bytes after the last `\n`).
    UnexpectedEof {
        /// How many bytes of the unfinished line were dropped.
        buffered: usize,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLong { len, max, .. } => write!(
                f,
                "frame of {len} bytes exceeds the maximum frame length of {max} bytes; it was \
                 discarded"
            ),
            FrameError::InvalidUtf8 {
                valid_up_to,
                excerpt,
            } => write!(
                f,
                "frame is not valid UTF-8 (first bad byte at offset {valid_up_to}): {excerpt}",
                excerpt = quoted(excerpt)
            ),
            FrameError::UnexpectedEof { buffered } => write!(
                f,
                "stream ended in the middle of a frame ({buffered} bytes after the last newline)"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// A line that did not yield a JSON-RPC message: a framing error, or a frame that is not a valid
/// message (with a quote of the line, so a log names the culprit).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The line could not be framed.
    Frame(FrameError),
    /// The line was framed but is not valid JSON or not a JSON-RPC 2.0 message.
    Message {
        /// Why the frame was rejected; [`MessageError::to_error_object`] gives the reply a
        /// server owes its peer.
        error: MessageError,
        /// The start of the line, see [`excerpt`].
        excerpt: String,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Frame(e) => e.fmt(f),
            DecodeError::Message { error, excerpt } => {
                write!(f, "{error}, in line {excerpt}", excerpt = quoted(excerpt))
            }
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Frame(e) => Some(e),
            DecodeError::Message { error, .. } => Some(error),
        }
    }
}

impl From<FrameError> for DecodeError {
    fn from(e: FrameError) -> Self {
        DecodeError::Frame(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_lossy_and_marked_when_cut() {
        assert_eq!(excerpt(b"{\"a\":1}"), "{\"a\":1}");
        assert_eq!(excerpt(b"ab\xffcd"), "ab\u{FFFD}cd");
        let long = "é".repeat(200);
        let quoted = excerpt(long.as_bytes());
        assert_eq!(quoted.chars().count(), EXCERPT_CHARS + 1);
        assert!(quoted.starts_with("éé") && quoted.ends_with('…'));
        let exactly = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(exactly.as_bytes()), exactly);
        // A cut inside the byte window that leaves fewer than EXCERPT_CHARS characters (4-byte
        // characters) is still marked as cut.
        let emoji = "🦀".repeat(EXCERPT_CHARS + 1);
        let quoted = excerpt(emoji.as_bytes());
        assert!(quoted.ends_with('…'), "{quoted}");
        assert_eq!(quoted.chars().count(), EXCERPT_CHARS + 1);
    }

    #[test]
    fn errors_name_sizes_limits_and_the_line() {
        let too_long = FrameError::TooLong {
            len: 70,
            max: 64,
            edges: LineEdges::default(),
        }
        .to_string();
        assert!(
            too_long.contains("70") && too_long.contains("64"),
            "{too_long}"
        );
        let utf8 = FrameError::InvalidUtf8 {
            valid_up_to: 3,
            excerpt: "ab\u{FFFD}".into(),
        }
        .to_string();
        assert!(
            utf8.contains("offset 3") && utf8.contains("ab\u{FFFD}"),
            "{utf8}"
        );
        let eof = FrameError::UnexpectedEof { buffered: 12 }.to_string();
        assert!(eof.contains("12 bytes"), "{eof}");
        let msg = DecodeError::Message {
            error: MessageError::Batch,
            excerpt: "[1]".into(),
        }
        .to_string();
        assert!(msg.contains("batches") && msg.contains("\"[1]\""), "{msg}");
    }
}
