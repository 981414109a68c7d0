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
//! [`SseDecoder::finish`] once. A decoder with a size limit also reports each event it discarded
//! for its size, once that event has ended, through [`SseDecoder::next_dropped`]: the first and
//! last bytes of its data, enough to tell which message it carried.

use crate::framing::LineEdges;
use std::collections::VecDeque;
use std::fmt;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many discarded events are kept for [`SseDecoder::next_dropped`]; older ones are forgotten
/// (a caller that drains after every push never comes near it).
pub const MAX_DROPPED: usize = 32;

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

/// An event discarded for its size, reported once its end was reached (its blank line, or the
/// end of the stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedEvent {
    /// Event type, as in [`SseEvent::event`].
    pub event: String,
    /// The first and last bytes of its data (the `data:` lines joined with `\n`), e.g. for
    /// [`crate::rpc::sniff_response_id`].
    pub edges: LineEdges,
    /// The limit it exceeded, in bytes.
    pub limit: usize,
}

/// What becomes of the rest of a line that overflowed the limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum SkipLine {
    /// No line is being skipped.
    #[default]
    No,
    /// Drop the rest of the line.
    Ignore,
    /// The line is `data` of the discarded event: its rest goes to the edges. `strip_space`: the
    /// line so far ends with its colon, so a space that comes next is the optional one.
    Data { strip_space: bool },
}

/// Incremental `text/event-stream` decoder; see the module docs for the calling contract.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line being received (never holds a complete line after `push` returns).
    line: Vec<u8>,
    /// The previous chunk ended in CR: a leading LF of the next chunk belongs to that CRLF.
    after_cr: bool,
    /// Whether the stream start has been checked for a UTF-8 BOM.
    bom_checked: bool,
    /// The current line overflowed the limit: its bytes up to its terminator are not kept.
    skip_line: SkipLine,
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
    /// The current event overflowed: until the blank line that ends it, only the edges of its
    /// data (and its type) are kept.
    discarding: Option<LineEdges>,
    max_event_bytes: Option<usize>,
    ready: VecDeque<SseEvent>,
    dropped: VecDeque<DroppedEvent>,
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
    /// exceeded it (once per event, as soon as it does); the decoder then skips that event,
    /// reports it through [`next_dropped`](Self::next_dropped) when it ends, and stays usable.
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
            if self.skip_line != SkipLine::No {
                // The rest of a line that already overflowed, up to its terminator.
                self.skip_rest(&bytes[start..end]);
                self.skip_line = SkipLine::No;
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
        if self.skip_line != SkipLine::No {
            self.skip_rest(tail);
            return result;
        }
        if let Some(limit) = self.max_event_bytes {
            // A single endless line must not grow the buffer without bound either.
            if self.line.len() + tail.len() > limit {
                if self.line.first().or(tail.first()) == Some(&b':') {
                    // A comment: skipped whole, as when it arrives in one piece.
                    self.line.clear();
                    self.skip_line = SkipLine::Ignore;
                    return result;
                }
                let overflowed = self.start_discarding();
                let line = std::mem::take(&mut self.line);
                self.skip_line = self.skip_overlong(&line, tail);
                self.line = line;
                self.line.clear();
                return match overflowed {
                    true => result.and(Err(SseError { limit })),
                    false => result,
                };
            }
        }
        self.line.extend_from_slice(tail);
        result
    }

    /// The event being assembled went over the limit: its data so far is dropped, except its
    /// edges. Returns false when it was being discarded already.
    fn start_discarding(&mut self) -> bool {
        if self.discarding.is_some() {
            return false;
        }
        self.discarding = Some(LineEdges::starting_with(self.data.as_bytes()));
        self.data = String::new();
        true
    }

    /// Starts skipping a line that overflowed, made of `start` then `rest`; a `data` line
    /// records its value so far in the edges of the discarded event.
    fn skip_overlong(&mut self, start: &[u8], rest: &[u8]) -> SkipLine {
        const FIELD: &[u8] = b"data:";
        // The field name may straddle the two parts.
        let from_start = start.len().min(FIELD.len());
        let from_rest = rest.len().min(FIELD.len() - from_start);
        if start[..from_start] != FIELD[..from_start]
            || rest[..from_rest] != FIELD[from_start..from_start + from_rest]
            || from_start + from_rest < FIELD.len()
        {
            return SkipLine::Ignore;
        }
        self.begin_data();
        self.skip_line = SkipLine::Data { strip_space: true };
        self.skip_rest(&start[from_start..]);
        self.skip_rest(&rest[from_rest..]);
        self.skip_line
    }

    /// Records the rest of a skipped line: in the edges when it is data.
    fn skip_rest(&mut self, mut bytes: &[u8]) {
        let SkipLine::Data { strip_space } = self.skip_line else {
            return;
        };
        if strip_space && !bytes.is_empty() {
            bytes = bytes.strip_prefix(b" ").unwrap_or(bytes);
            self.skip_line = SkipLine::Data { strip_space: false };
        }
        if let Some(edges) = &mut self.discarding {
            edges.extend(bytes);
        }
    }

    /// A `data` line of the discarded event begins: joins it to the previous one.
    fn begin_data(&mut self) {
        if let Some(edges) = &mut self.discarding {
            if self.has_data {
                edges.extend(b"\n");
            }
            self.has_data = true;
        }
    }

    /// Applies one complete line (without its terminator).
    fn process_line(&mut self, line: &[u8]) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let mut result = Ok(());
        if let (Some(limit), None) = (self.max_event_bytes, &self.discarding) {
            self.event_bytes += line.len();
            if self.event_bytes > limit {
                self.start_discarding();
                result = Err(SseError { limit });
            }
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if name != b"data" && self.max_event_bytes.is_some_and(|limit| line.len() > limit) {
            // Skipped, as when it arrives in pieces (`push_lines`): however the bytes were cut,
            // a field over the limit sets nothing.
            return result;
        }
        if self.discarding.is_some() {
            // Of a discarded event only what tells which message it carried is kept.
            match name {
                b"data" => {
                    self.begin_data();
                    if let Some(edges) = &mut self.discarding {
                        edges.extend(value);
                    }
                }
                b"event" => self.event_type = Some(String::from_utf8_lossy(value).into_owned()),
                _ => {}
            }
            return result;
        }
        let raw = value;
        let value = String::from_utf8_lossy(value);
        match name {
            b"data" => {
                let decoded = self.data.len() + usize::from(self.has_data) + value.len();
                if let Some(limit) = self.max_event_bytes.filter(|&limit| decoded > limit) {
                    // Each invalid byte decodes to U+FFFD (three bytes): an event within the
                    // limit on the wire may not be once decoded, and the limit is on what
                    // comes out.
                    self.start_discarding();
                    self.begin_data();
                    if let Some(edges) = &mut self.discarding {
                        edges.extend(raw);
                    }
                    return Err(SseError { limit });
                }
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

    /// Blank line: emit the assembled event if it has data (or report it, when it was
    /// discarded), then reset the per-event fields.
    fn dispatch(&mut self) {
        let event_type = self
            .event_type
            .take()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "message".to_owned());
        match self.discarding.take() {
            Some(edges) if self.has_data => {
                if self.dropped.len() == MAX_DROPPED {
                    self.dropped.pop_front();
                }
                self.dropped.push_back(DroppedEvent {
                    event: event_type,
                    edges,
                    limit: self.max_event_bytes.unwrap_or_default(),
                });
            }
            Some(_) => {}
            None if self.has_data => self.ready.push_back(SseEvent {
                event: event_type,
                data: std::mem::take(&mut self.data),
                id: self.last_id.clone(),
                retry: self.retry,
            }),
            None => {}
        }
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event_type = None;
        self.retry = None;
        self.event_bytes = 0;
    }

    /// The next complete event, oldest first.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    /// The next event that was discarded for its size and has since ended, oldest first.
    pub fn next_dropped(&mut self) -> Option<DroppedEvent> {
        self.dropped.pop_front()
    }

    /// End of stream. The spec drops an unterminated last event; servers that omit the final
    /// blank line are common enough that this dispatches it instead, and returns it (together
    /// with any events still queued, which stay available from `next_event`). An event being
    /// discarded for its size ends here too, and becomes available from `next_dropped`.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() && self.skip_line == SkipLine::No {
            let line = std::mem::take(&mut self.line);
            // Should this line take the event over the limit, the event is discarded silently
            // (there is no error to return) and still reported by `next_dropped`.
            let _ = self.process_line(&line);
        }
        self.dispatch();
        self.line.clear();
        self.after_cr = false;
        self.skip_line = SkipLine::No;
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod tests;
