//! The Anthropic Messages wire format (`POST /v1/messages`), without I/O.
//!
//! [`encode_request`] turns a [`ModelRequest`](super::ModelRequest) into the request body, with
//! prompt-caching breakpoints on the last tool definition and on the newest message by default;
//! [`decode_response`] reads a non-streaming answer (or an API error body); [`MessagesStream`]
//! reads a streaming (`"stream": true`) answer from raw bytes in any chunking, on top of the
//! generic [`SseDecoder`](crate::sse::SseDecoder), yielding the same
//! [`StreamDelta`](super::StreamDelta)s as the OpenAI-compatible codec. Usage (cache reads and
//! writes included) fills the common [`Usage`](super::Usage) record; `stop_reason`
//! `max_tokens` and `refusal` end in [`DecodeError::Stopped`](super::DecodeError::Stopped).

mod decode;
mod encode;
mod stream;

pub use decode::{decode_response, decode_response_value};
pub use encode::{encode_request, tool_json, AnthropicOptions, DEFAULT_MAX_TOKENS};
pub use stream::{MessageAccumulator, MessagesStream};

#[cfg(test)]
mod tests;
