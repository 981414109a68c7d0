//! The first and last bytes of a line too long to keep, so the layer above can still tell which
//! message it was (for JSON-RPC: its `id`, see [`crate::rpc::sniff_id`]).

/// How many bytes of each end of a dropped line are kept. Enough for a JSON-RPC envelope such as
/// `{"jsonrpc":"2.0","id":"<a UUID>",` at the start or `,"jsonrpc":"2.0","id":123}` at the end.
pub const EDGE_BYTES: usize = 128;

/// The edges of a line that was dropped for being over the frame limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineEdges {
    /// The line's first bytes (up to [`EDGE_BYTES`]).
    pub head: Vec<u8>,
    /// The line's last bytes (up to [`EDGE_BYTES`]), without its line ending.
    pub tail: Vec<u8>,
}

impl LineEdges {
    /// Edges of a line that starts with `bytes`.
    pub(crate) fn starting_with(bytes: &[u8]) -> LineEdges {
        let mut edges = LineEdges::default();
        edges.extend(bytes);
        edges
    }

    /// Records more of the line: the head fills up first, the tail always keeps the newest bytes.
    /// Costs at most `EDGE_BYTES` copies per call, whatever the size of `bytes`.
    pub(crate) fn extend(&mut self, bytes: &[u8]) {
        let room = EDGE_BYTES - self.head.len();
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if bytes.len() >= EDGE_BYTES {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - EDGE_BYTES..]);
        } else {
            let excess = (self.tail.len() + bytes.len()).saturating_sub(EDGE_BYTES);
            self.tail.drain(..excess);
            self.tail.extend_from_slice(bytes);
        }
    }

    /// The line ended after `len` bytes, not counting a `\r` recorded last that turned out to
    /// be part of its line ending (`ends_with_cr`): drops that `\r` from both edges.
    pub(crate) fn end(&mut self, len: usize, ends_with_cr: bool) {
        if ends_with_cr {
            self.tail.pop();
        }
        self.head.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_do_not_depend_on_how_the_line_was_chunked() {
        let line: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let whole = LineEdges::starting_with(&line);
        assert_eq!(whole.head, &line[..EDGE_BYTES]);
        assert_eq!(whole.tail, &line[line.len() - EDGE_BYTES..]);
        for chunk in [1, 7, 127, 128, 129, 500] {
            let mut edges = LineEdges::default();
            for piece in line.chunks(chunk) {
                edges.extend(piece);
            }
            assert_eq!(edges, whole, "chunks of {chunk}");
        }
    }

    #[test]
    fn a_short_line_is_both_head_and_tail() {
        let edges = LineEdges::starting_with(b"abc");
        assert_eq!(
            (edges.head.as_slice(), edges.tail.as_slice()),
            (&b"abc"[..], &b"abc"[..])
        );
    }
}
