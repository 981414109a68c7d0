//! Tool search: finding MCP tools whose definitions are not sent upfront.
//!
//! When a session defers tools, the model searches them by name or by what it wants done; the
//! [`index`] answers from names, descriptions and parameters, sans-IO and deterministic, so the
//! same catalog and query always give the same results on every host.

pub mod index;

pub use index::{SearchHit, ToolDoc, ToolIndex};
