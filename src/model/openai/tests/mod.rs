//! Codec tests over payloads shaped like what OpenAI and DashScope return.

mod chaos;
mod decode;
mod encode;
mod stream;
