//! Models: the request/response shape, codecs for real backends, and the mock model.

pub mod sse;
mod types;

pub use types::{ChatMessage, ModelRequest, ModelResponse, ToolCall, ToolDefinition};
