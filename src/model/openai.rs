//! The OpenAI-compatible chat completions wire format, without I/O.
//!
//! [`encode_request`] turns a [`ModelRequest`](super::ModelRequest) into the JSON body of
//! `POST /chat/completions`; [`decode_response`] reads a non-streaming answer (or an API error
//! body); [`ChatCompletionStream`] reads a streaming (`"stream": true`) answer from raw bytes,
//! yielding text as it arrives, on top of the generic [`SseDecoder`](crate::sse::SseDecoder)
//! and the chunk-level [`StreamAccumulator`]. The same shapes are spoken by OpenAI, DashScope's
//! compatible mode, DeepSeek, vLLM, Ollama and most gateways.

mod decode;
mod encode;
mod error;
mod stream;

pub use decode::{decode_response, decode_response_value};
pub use encode::{encode_request, tool_json, OpenAiOptions};
pub(crate) use error::parse_arguments;
pub use error::DecodeError;
pub use stream::{ChatCompletionStream, StreamAccumulator, StreamDelta};

#[cfg(test)]
mod tests;
