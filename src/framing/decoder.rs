//! [`LineDecoder`]: byte chunks in, frames out, in time linear in the bytes received.

use super::edges::LineEdges;
use super::error::{excerpt, FrameError};
use super::search::find_newline;
use super::DEFAULT_MAX_FRAME_LEN;
use std::borrow::Cow;
use std::collections::VecDeque;

/// Buffer capacity kept across frames; a larger buffer left by a big frame is released once it
/// empties, so one 50 MB message does not pin 50 MB for the rest of the connection.
const RETAINED_CAPACITY: usize = 1 << 20;

/// A decoded line waiting for [`LineDecoder::next_frame`], in arrival order.
#[derive(Clone, Debug)]
enum Item {
    /// `buf[start..end]`: the line without its `\n` or `\r\n`.
    Line { start: usize, end: usize },
    /// A line over the limit whose bytes were dropped; `len` excludes its line ending.
    TooLong { len: usize, edges: LineEdges },
}

/// The over-long line currently being dropped as it arrives.
#[derive(Clone, Debug)]
struct Discard {
    /// Bytes of the line received so far.
    len: usize,
    /// Whether the last of them was `\r` (which a following `\n` makes part of the line ending).
    ends_with_cr: bool,
    /// Its first and latest bytes: all that is kept of it.
    edges: LineEdges,
}

/// Work counters that let tests prove linear time without a clock.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Work {
    /// Bytes examined by the newline search.
    pub scanned: u64,
    /// Bytes moved when compacting the buffer.
    pub moved: u64,
}

/// Splits a byte stream into newline-delimited frames (NDJSON, as used by MCP's stdio transport).
///
/// # Contract
/// - **Input**: [`push`](Self::push) any chunk of bytes, of any size, split anywhere (inside a
///   line, inside a `\r\n`, inside a multi-byte character). At end of stream call
///   [`finish`](Self::finish).
/// - **Output**: after each push, call [`next_frame`](Self::next_frame) (or
///   [`next_message`](Self::next_message)) until it returns `None`. Frames and errors come out in
///   the order their lines arrived; an error concerns one line only and the decoder reads on.
/// - **Lines**: a frame is the text between two `\n`, without the `\n`; one trailing `\r` is
///   stripped, so CRLF peers work. Lines that are empty or only ASCII whitespace are skipped.
///   A frame is valid UTF-8, else [`FrameError::InvalidUtf8`] with a quote of the line.
/// - **Limit**: a line longer than `max_frame_len` bytes (line ending excluded) yields
///   [`FrameError::TooLong`] when its `\n` arrives. Its bytes are dropped as they arrive, never
///   buffered, so memory stays bounded by the limit plus the frames not yet drained; the stream
///   resynchronises at the `\n`. Only its [`LineEdges`] are kept, so the layer above can still
///   tell which message it was and fail the request it answered.
/// - **Cost**: linear in the bytes pushed, however they are chunked. Each byte is searched for
///   `\n` once (the decoder remembers where the unfinished line starts and never rescans it),
///   copied once into the buffer, and moved by compaction at most an amortised constant number of
///   times.
///
/// ```
/// use agentwire::framing::LineDecoder;
/// let mut decoder = LineDecoder::default();
/// decoder.push(b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n{\"jsonrpc\":");
/// assert_eq!(decoder.next_frame(), Some(Ok("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}")));
/// assert_eq!(decoder.next_frame(), None); // the second line is not complete yet
/// decoder.push(b"\"2.0\",\"method\":\"b\"}\n");
/// assert!(decoder.next_frame().is_some());
/// assert_eq!(decoder.finish(), None); // nothing left over
/// ```
#[derive(Clone, Debug)]
pub struct LineDecoder {
    max: usize,
    /// Queued lines (contiguous, without line endings), then the unfinished line.
    buf: Vec<u8>,
    /// Start of the bytes still needed: the first queued line, or the unfinished line.
    head: usize,
    /// Start of the unfinished line; everything from here on has been searched for `\n`.
    partial: usize,
    queue: VecDeque<Item>,
    /// Set while an over-long unfinished line is being dropped (then `partial == buf.len()`).
    discard: Option<Discard>,
    #[cfg(test)]
    work: Work,
}

impl Default for LineDecoder {
    /// A decoder with the [`DEFAULT_MAX_FRAME_LEN`] limit.
    fn default() -> Self {
        LineDecoder::new(DEFAULT_MAX_FRAME_LEN)
    }
}

impl LineDecoder {
    /// A decoder that rejects lines longer than `max_frame_len` bytes (line ending excluded).
    pub fn new(max_frame_len: usize) -> Self {
        LineDecoder {
            max: max_frame_len,
            buf: Vec::new(),
            head: 0,
            partial: 0,
            queue: VecDeque::new(),
            discard: None,
            #[cfg(test)]
            work: Work::default(),
        }
    }

    /// The maximum frame length this decoder accepts, in bytes.
    pub fn max_frame_len(&self) -> usize {
        self.max
    }

    /// Bytes held: frames not yet drained plus the unfinished line (a dropped line holds none).
    pub fn buffered_len(&self) -> usize {
        self.buf.len() - self.head
    }

    /// How many frames or errors [`next_frame`](Self::next_frame) will yield before `None`.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// While an over-long line is being dropped: how many of its bytes arrived so far. Lets a
    /// host give up on a peer early instead of waiting for the line's end.
    pub fn discarding(&self) -> Option<usize> {
        self.discard.as_ref().map(|d| d.len)
    }

    /// Feeds bytes received from the peer. Never fails: problems surface from `next_frame`.
    pub fn push(&mut self, mut chunk: &[u8]) {
        self.compact();
        while let Some(at) = find_newline(chunk) {
            self.count_scanned(at + 1);
            self.end_line(&chunk[..at]);
            chunk = &chunk[at + 1..];
        }
        self.count_scanned(chunk.len());
        self.extend_partial(chunk);
    }

    /// The next frame (a line of text, without its line ending) or the error for a bad line;
    /// `None` when every complete line has been drained.
    ///
    /// The frame borrows the decoder's buffer: no copy is made. It stays valid until the next
    /// call on the decoder.
    pub fn next_frame(&mut self) -> Option<Result<&str, FrameError>> {
        match self.queue.pop_front()? {
            Item::TooLong { len, edges } => Some(Err(FrameError::TooLong {
                len,
                max: self.max,
                edges,
            })),
            Item::Line { start, end } => {
                self.head = end;
                let line = &self.buf[start..end];
                Some(
                    std::str::from_utf8(line).map_err(|e| FrameError::InvalidUtf8 {
                        valid_up_to: e.valid_up_to(),
                        excerpt: excerpt(line),
                    }),
                )
            }
        }
    }

    /// Like [`next_frame`](Self::next_frame), but a line that is not valid UTF-8 comes out
    /// with each invalid sequence replaced by U+FFFD, flagged `true`, instead of as
    /// [`FrameError::InvalidUtf8`]. Valid lines are borrowed, as with `next_frame`.
    pub fn next_frame_lossy(&mut self) -> Option<Result<(Cow<'_, str>, bool), FrameError>> {
        match self.queue.pop_front()? {
            Item::TooLong { len, edges } => Some(Err(FrameError::TooLong {
                len,
                max: self.max,
                edges,
            })),
            Item::Line { start, end } => {
                self.head = end;
                let text = String::from_utf8_lossy(&self.buf[start..end]);
                let replaced = matches!(text, Cow::Owned(_));
                Some(Ok((text, replaced)))
            }
        }
    }

    /// Signals the end of the stream. Returns an error if an unfinished line (one with anything
    /// but whitespace) was pending: [`FrameError::UnexpectedEof`], or [`FrameError::TooLong`] if
    /// that line was already over the limit. The unfinished line is dropped either way.
    ///
    /// Complete lines still queued stay available from `next_frame` (drain it first to keep the
    /// order of events). The decoder can be reused afterwards, as if for a new stream.
    pub fn finish(&mut self) -> Option<FrameError> {
        if let Some(discard) = self.discard.take() {
            return Some(FrameError::TooLong {
                len: discard.len,
                max: self.max,
                edges: discard.edges,
            });
        }
        let unfinished = &self.buf[self.partial..];
        let error = (!is_blank(unfinished)).then_some(FrameError::UnexpectedEof {
            buffered: unfinished.len(),
        });
        self.buf.truncate(self.partial);
        error
    }

    /// Ends the unfinished line with `rest`, the bytes before its `\n`.
    fn end_line(&mut self, rest: &[u8]) {
        if let Some(mut discard) = self.discard.take() {
            let len = discard.len + rest.len();
            let ends_with_cr = rest.last().map_or(discard.ends_with_cr, |&b| b == b'\r');
            let len = len - usize::from(ends_with_cr);
            discard.edges.extend(rest);
            discard.edges.end(len, ends_with_cr);
            let edges = discard.edges;
            self.queue.push_back(Item::TooLong { len, edges });
            return;
        }
        let len = self.buf.len() - self.partial + rest.len();
        let ends_with_cr = match rest.last() {
            Some(&b) => b == b'\r',
            None => self.buf.len() > self.partial && self.buf.last() == Some(&b'\r'),
        };
        let len = len - usize::from(ends_with_cr);
        if len > self.max {
            let mut edges = LineEdges::starting_with(&self.buf[self.partial..]);
            edges.extend(rest);
            edges.end(len, ends_with_cr);
            self.buf.truncate(self.partial);
            self.queue.push_back(Item::TooLong { len, edges });
            return;
        }
        self.buf.extend_from_slice(rest);
        let start = self.partial;
        let end = start + len;
        if is_blank(&self.buf[start..end]) {
            self.buf.truncate(start);
        } else {
            // Drops the `\r`, if any, so lines stay contiguous in the buffer.
            self.buf.truncate(end);
            self.queue.push_back(Item::Line { start, end });
            self.partial = end;
        }
    }

    /// Appends `bytes` (no `\n` among them) to the unfinished line, or drops them if the line is
    /// over the limit.
    fn extend_partial(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else { return };
        let ends_with_cr = last == b'\r';
        if let Some(discard) = &mut self.discard {
            discard.len += bytes.len();
            discard.ends_with_cr = ends_with_cr;
            discard.edges.extend(bytes);
            return;
        }
        let len = self.buf.len() - self.partial + bytes.len();
        // A final `\r` may turn out to be half of a `\r\n`, which the limit does not count.
        if len - usize::from(ends_with_cr) > self.max {
            let mut edges = LineEdges::starting_with(&self.buf[self.partial..]);
            edges.extend(bytes);
            self.buf.truncate(self.partial);
            self.discard = Some(Discard {
                len,
                ends_with_cr,
                edges,
            });
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Reclaims the space of drained frames once nothing is pending: all of it, or, when an
    /// unfinished line follows them, by moving that line to the front if it is no longer than
    /// the space freed. Each byte is moved at most once: after a move nothing is dead until a
    /// frame is drained, and the next move only takes bytes that came after that frame's end.
    fn compact(&mut self) {
        if !self.queue.is_empty() || self.head == 0 {
            return;
        }
        let live = self.buf.len() - self.head;
        if live == 0 {
            self.buf.clear();
            if self.buf.capacity() > RETAINED_CAPACITY {
                self.buf.shrink_to(RETAINED_CAPACITY);
            }
        } else if live <= self.head {
            self.buf.drain(..self.head);
            #[cfg(test)]
            {
                self.work.moved += live as u64;
            }
        } else {
            return;
        }
        self.head = 0;
        self.partial = 0;
    }

    #[inline]
    fn count_scanned(&mut self, _bytes: usize) {
        #[cfg(test)]
        {
            self.work.scanned += _bytes as u64;
        }
    }

    /// Work done so far, for the linear-time tests.
    #[cfg(test)]
    pub(crate) fn work(&self) -> Work {
        self.work
    }

    /// The buffer's capacity, for the bounded-memory tests.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// Whether a line holds only ASCII whitespace (stops at the first other byte, so it is cheap for
/// real frames, which start with `{`).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}
