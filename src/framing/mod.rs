//! Newline-delimited framing (NDJSON, MCP's stdio transport): a linear-time decoder of byte
//! chunks into frames, and an encoder of one message per line.
//!
//! Sans-IO: [`LineDecoder`] never reads anything; the host pushes the bytes it received and
//! drains frames (or messages). See the decoder's rustdoc for the full contract.

#[cfg(test)]
mod cost_tests;
mod decoder;
mod edges;
mod encode;
mod error;
mod messages;
mod search;
#[cfg(test)]
mod tests;

pub use decoder::LineDecoder;
pub use edges::{LineEdges, EDGE_BYTES};
pub use encode::{encode_line, encode_value};
pub use error::{excerpt, DecodeError, FrameError, EXCERPT_CHARS};
pub use messages::{parse_line, Messages};

/// The default maximum frame length: 64 MiB.
///
/// Large enough for any realistic tool result (a big file or log as one text block), small
/// enough that a runaway peer cannot make the host buffer unbounded memory. Hosts pick their
/// own with [`LineDecoder::new`].
pub const DEFAULT_MAX_FRAME_LEN: usize = 64 * 1024 * 1024;
