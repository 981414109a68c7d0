//! Context economy: deferred tool loading behind a byte-stable prompt prefix.
//!
//! Every tool definition costs prompt tokens on every request. When the MCP tools' definitions
//! are large (see [`partition`]), a session *defers* them: `tools` carries the direct tools, then
//! `tool_search` (whose description lists the deferred names by server), then `call_tool`.
//! `tool_search` answers with the full definitions of the best matches as its *result* (ranked by
//! the [`index`], sans-IO and deterministic), and `call_tool` runs a found tool through the same
//! gate, approvals, limits, audit and events as a direct call, under the tool's own name. Found
//! definitions go into the conversation, never into `tools`, so `tools` and the system prompt are
//! byte-identical on every request of a session and the provider's prompt cache holds (see
//! [`ToolSession`]).
//!
//! The [`index`] ranks tools for a query from their names, descriptions and parameters,
//! sans-IO and deterministic, so the same catalog and query give the same results on every host.
//! Its scoring is the feature `lexical-index` (on by default); a build without it (the npm
//! runtime module) keeps the bridge, the partition and the pinning of named tools, and takes
//! its ranking from the host searcher (the JS layer's, which runs the same index in a wasm
//! module loaded on the first search; see the `rank` module).
//!
//! Every definition sent is also slimmed losslessly: MCP descriptions carry no `[MCP:<server>]`
//! prefix (the name says it) and input schemas no top-level `"$schema"`.

pub mod bridge;
mod config;
pub mod index;
mod partition;
mod rank;
mod session;

pub use config::{
    Defer, Reveal, ServerDefer, ToolSearchConfig, ToolSearchMode, DEFAULT_SEARCH_LIMIT,
    DEFAULT_THRESHOLD_TOKENS,
};
pub use index::ToolDoc;
#[cfg(feature = "lexical-index")]
pub use index::{SearchHit, ToolIndex};
pub use partition::{definition_text, estimate_tokens, partition, Loading, ToolLoading};
#[cfg(feature = "lexical-index")]
pub use rank::rank_tools;
pub use session::{SearchOutcome, Step, ToolSession};

#[cfg(test)]
mod tests;
