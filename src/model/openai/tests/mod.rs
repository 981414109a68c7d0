//! Codec tests over payloads shaped like what OpenAI and DashScope return.

mod decode;
mod encode;
mod stream;
