//! Models: the request/response shape, codecs for real backends, and the mock model.

mod answer_size;
pub mod anthropic;
pub mod mock;
pub mod openai;
mod types;
mod usage;

pub use answer_size::DEFAULT_MAX_ANSWER_BYTES;
pub use anthropic::{AnthropicOptions, MessagesStream};
pub use mock::MockModel;
pub use openai::{
    decode_response, decode_response_value, encode_request, ChatCompletionStream, DecodeError,
    OpenAiOptions, StreamAccumulator, StreamDelta,
};
pub use types::{
    ChatMessage, ModelRequest, ModelResponse, ToolCall, ToolDefinition, CALL_TOOL, TOOL_SEARCH,
};
pub use usage::Usage;

/// At most `max_chars` characters of `text`, with `…` appended when something was cut.
pub(crate) fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
