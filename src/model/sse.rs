//! Server-Sent Events, sans-IO: bytes in (in chunks of any size), events out.
//!
//! Follows the WHATWG `text/event-stream` parsing rules: lines end in CRLF, LF or a lone CR;
//! `data:` lines accumulate (joined by `\n`), `event:`, `id:` and `retry:` set fields, lines
//! starting with `:` are comments, unknown fields are ignored, a blank line dispatches the event,
//! and an event with no `data` is not dispatched. The decoder knows nothing about what the data
//! means, so it serves both model streams (OpenAI-style `data: {...}` / `data: [DONE]`) and the
//! MCP Streamable HTTP transport.
//!
//! Contract: call [`SseDecoder::push`] with each chunk as it arrives, then drain
//! [`SseDecoder::next_event`] until it returns `None`. At end of stream call
//! [`SseDecoder::finish`] once.

use std::collections::VecDeque;
use std::fmt;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched server-sent event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// Event type: the last `event:` field of the block, or `"message"` when there was none.
    pub event: String,
    /// The `data:` lines of the block joined with `\n` (no trailing newline).
    pub data: String,
    /// The last event id seen on the stream so far (ids persist across events, as in browsers);
    /// `None` when no id was set or it was reset with an empty `id:` field.
    pub id: Option<String>,
    /// Reconnection time in milliseconds, when this event's block carried a valid `retry:` field.
    pub retry: Option<u64>,
}

/// An event grew past the configured size limit; it was discarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseError {
    /// The configured limit, in bytes.
    pub limit: usize,
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "server-sent event larger than {} bytes; it was discarded and decoding resumes at the next event",
            self.limit
        )
    }
}

impl std::error::Error for SseError {}

/// Incremental `text/event-stream` decoder; see the module docs for the calling contract.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line being received (never holds a complete line after `push` returns).
    line: Vec<u8>,
    /// The previous chunk ended in CR: a leading LF of the next chunk belongs to that CRLF.
    after_cr: bool,
    /// Whether the stream start has been checked for a UTF-8 BOM.
    bom_checked: bool,
    /// The current line overflowed the limit: drop bytes up to its terminator.
    skip_line: bool,
    /// Fields of the event being assembled.
    data: String,
    has_data: bool,
    event_type: Option<String>,
    retry: Option<u64>,
    /// Persists across events, as the spec's "last event ID buffer".
    last_id: Option<String>,
    /// The stream's reconnection time: set by any valid `retry:` field as soon as it is read,
    /// even in a block that is never dispatched (the spec applies it immediately).
    reconnection_time: Option<u64>,
    /// Bytes of the event being assembled, for the limit.
    event_bytes: usize,
    /// The current event overflowed: ignore lines until the next blank line.
    skipping: bool,
    max_event_bytes: Option<usize>,
    ready: VecDeque<SseEvent>,
}

impl SseDecoder {
    /// A decoder with no size limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that discards any event (or single line) larger than `limit` bytes.
    pub fn with_max_event_bytes(limit: usize) -> Self {
        SseDecoder {
            max_event_bytes: Some(limit),
            ..Self::default()
        }
    }

    /// The last event id seen, also when the event carrying it had no data (for `Last-Event-ID`).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time in milliseconds from the last valid `retry:` field on the stream,
    /// also when the block carrying it had no data (a server may send `retry:` alone).
    pub fn reconnection_time(&self) -> Option<u64> {
        self.reconnection_time
    }

    /// Feeds a chunk of the stream. Complete events become available from
    /// [`next_event`](Self::next_event). Errors only when a size limit is set and an event
    /// exceeded it; the decoder has then skipped that event and stays usable.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if bytes.is_empty() {
            return Ok(());
        }
        if !self.bom_checked {
            // A BOM may only open the stream, and it can arrive split: hold back a prefix of it.
            self.line.extend_from_slice(bytes);
            if self.line.len() < BOM.len() && BOM.starts_with(&self.line) {
                return Ok(());
            }
            self.bom_checked = true;
            let buffered = std::mem::take(&mut self.line);
            let rest = buffered.strip_prefix(BOM).unwrap_or(&buffered);
            return self.push_lines(rest);
        }
        let bytes = match std::mem::take(&mut self.after_cr) {
            true => bytes.strip_prefix(b"\n").unwrap_or(bytes),
            false => bytes,
        };
        self.push_lines(bytes)
    }

    /// Splits `bytes` into lines, appending to the partial line kept from earlier chunks.
    fn push_lines(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        let mut result = Ok(());
        let mut start = 0;
        while let Some(offset) = bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            let end = start + offset;
            if self.skip_line {
                // The rest of a line that already overflowed: drop it, terminator included.
                self.skip_line = false;
            } else if self.line.is_empty() {
                let r = self.process_line(&bytes[start..end]);
                result = result.and(r);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&bytes[start..end]);
                let r = self.process_line(&line);
                result = result.and(r);
                line.clear();
                self.line = line; // keep the allocation
            }
            start = end + 1;
            if bytes[end] == b'\r' {
                match bytes.get(start) {
                    Some(b'\n') => start += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        let tail = &bytes[start..];
        if self.skip_line {
            return result;
        }
        if let Some(limit) = self.max_event_bytes {
            // A single endless line must not grow the buffer without bound either.
            if self.line.len() + tail.len() > limit {
                self.line.clear();
                self.discard_event();
                self.skip_line = true;
                return result.and(Err(SseError { limit }));
            }
        }
        self.line.extend_from_slice(tail);
        result
    }

    /// Applies one complete line (without its terminator).
    fn process_line(&mut self, line: &[u8]) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if self.skipping || line[0] == b':' {
            return Ok(());
        }
        if let Some(limit) = self.max_event_bytes {
            self.event_bytes += line.len();
            if self.event_bytes > limit {
                self.discard_event();
                return Err(SseError { limit });
            }
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event_type = Some(value.into_owned()),
            b"id" if !value.contains('\0') => {
                self.last_id = (!value.is_empty()).then(|| value.into_owned());
            }
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Digits only, so parsing fails only on overflow; such a value is ignored.
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                    self.reconnection_time = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Blank line: emit the assembled event if it has data, then reset the per-event fields.
    fn dispatch(&mut self) {
        if self.has_data && !self.skipping {
            self.ready.push_back(SseEvent {
                event: self
                    .event_type
                    .take()
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| "message".to_owned()),
                data: std::mem::take(&mut self.data),
                id: self.last_id.clone(),
                retry: self.retry,
            });
        }
        self.reset_event();
        self.skipping = false;
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event_type = None;
        self.retry = None;
        self.event_bytes = 0;
    }

    fn discard_event(&mut self) {
        self.reset_event();
        self.skipping = true;
    }

    /// The next complete event, oldest first.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    /// End of stream. The spec drops an unterminated last event; servers that omit the final
    /// blank line are common enough that this dispatches it instead, and returns it (together
    /// with any events still queued, which stay available from `next_event`).
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() && !self.skip_line {
            let line = std::mem::take(&mut self.line);
            // An over-long last line was already rejected by `push`; nothing else can fail here.
            let _ = self.process_line(&line);
        }
        self.dispatch();
        self.line.clear();
        self.after_cr = false;
        self.skip_line = false;
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod tests;
