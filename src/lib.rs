//! agentwire: an embeddable agent runtime with a sans-IO core.
//!
//! Nothing in this crate performs I/O, spawns threads or reads a clock. Hosts feed bytes, time
//! and model answers in, and drain bytes, events and deadlines out. See `README.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent;
pub mod audit;
mod base64;
pub mod config;
pub mod content;
pub mod driver;
pub mod ext;
pub mod fallback;
pub mod framing;
mod json;
pub mod jsonrpc;
pub mod mcp;
pub mod mock_github;
pub mod model;
pub mod policy;
pub mod registry;
pub mod rpc;
pub mod sse;
#[cfg(test)]
mod test_rng;
pub mod time;
pub mod tool_search;
mod vec_map;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use time::Instant;
