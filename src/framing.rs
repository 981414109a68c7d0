//! Newline-delimited framing: a linear-time decoder of byte chunks into frames, and an encoder.

// TEMPORARY until the framing module lands: the session needs these two functions.
use crate::jsonrpc::Message;

/// Encodes one message as one line.
pub fn encode_line(message: &Message) -> Vec<u8> {
    let mut bytes = message.to_bytes();
    bytes.push(b'\n');
    bytes
}

/// A short, printable excerpt of a frame for error messages.
pub fn excerpt(frame: &[u8]) -> String {
    let text = String::from_utf8_lossy(&frame[..frame.len().min(80)]);
    text.into_owned()
}
