//! agentwire: an embeddable agent runtime with a sans-IO core.
//!
//! Nothing in this crate performs I/O, spawns threads or reads a clock. Hosts feed bytes, time
//! and model answers in, and drain bytes, events and deadlines out. See `docs/embedding.md` for
//! how a Rust host drives the machines, and `examples/stdio_agent.rs` for one that does it with
//! the standard library alone.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod agent;
pub mod audit;
mod base64;
pub mod config;
pub mod content;
pub mod context;
pub mod driver;
pub mod ext;
pub mod fallback;
pub mod framing;
pub mod hooks;
pub mod instructions;
mod json;
pub mod jsonrpc;
pub mod mcp;
pub mod mock_github;
pub mod model;
pub mod policy;
pub mod registry;
pub mod rpc;
pub mod sse;
pub mod subagent;
#[cfg(test)]
mod test_rng;
pub mod time;
pub mod tool_search;
pub mod transcript;
mod vec_map;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use time::Instant;

/// The Rust snippets of `README.md` and `docs/embedding.md`, compiled and run as doc tests, so
/// the examples a reader copies stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
#[doc = include_str!("../docs/embedding.md")]
pub struct DocSnippets;
