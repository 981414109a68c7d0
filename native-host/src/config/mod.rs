//! What a run is configured with and may trust: the workspace trust store, which MCP config a
//! run may use, and how deferred tool loading is asked for.

pub mod project_config;
pub mod settings;
pub mod tool_search;
pub mod trust;
pub mod trust_summary;
pub mod user_sandbox;
