//! Codec tests over payloads shaped like Anthropic's Messages API documentation shows them.

mod chaos;
mod decode;
mod encode;
mod stream;
