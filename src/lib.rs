//! agentwire: an embeddable agent runtime with a sans-IO core.
//!
//! Nothing in this crate performs I/O, spawns threads or reads a clock. Hosts feed bytes, time
//! and model answers in, and drain bytes, events and deadlines out. See `README.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod jsonrpc;
pub mod model;
pub mod time;

pub use time::Instant;
