//! Subagents: a child agent with its own context, never more rights than its parent.
//!
//! The pieces here are plain data and pure logic: agent definitions ([`AgentDefinition`], read
//! from Claude Code Markdown files and Codex TOML files), the session's [`AgentSet`] and its
//! `Agent` tool, and [`child_scope`], which derives a child's tools and gate from its
//! parent's. A child *is* an [`crate::agent::Agent`] machine, nested: the async driver
//! (`crate::driver`) starts one per `Agent` call and drives it beside the parent with the same
//! model, MCP connections and approval prompt; see `docs/subagents.md`.

mod catalog;
#[cfg(feature = "skill-set")]
mod codex_toml;
mod definition;
mod host_json;
#[cfg(feature = "skill-set")]
mod markdown;
mod scope;

pub use catalog::{
    agent_tool, AgentRequest, AgentSet, DEFAULT_AGENT_CATALOG_CHARS, MAX_ANSWER_CHARS,
};
#[cfg(feature = "skill-set")]
pub use codex_toml::parse_codex_toml;
pub use definition::{valid_name, AgentDefinition, PermissionMode, GENERAL_PURPOSE};
pub use host_json::{
    agent_set_from_json, definition_from_json, definition_from_record, definition_to_record,
};
#[cfg(feature = "skill-set")]
pub use markdown::parse_markdown;
pub use scope::{child_scope, scope_warnings, ChildScope};

/// Name of the tool that starts a child (Claude Code's name).
pub const AGENT_TOOL: &str = "Agent";

/// How deep children may nest by default: the main agent's children cannot start their own.
pub const DEFAULT_MAX_DEPTH: u32 = 1;

/// Tokens (input + output, summed over its steps) one child run may use by default.
pub const DEFAULT_TOKEN_BUDGET: u64 = 400_000;

use crate::model::{ChatMessage, Usage};

/// What one child run left behind, handed to the host's sink when the child ends so the host
/// can show or save it (the parent's tool result names it by the sink's reference, else by
/// `index`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChildTranscript {
    /// The child's number in its runtime, 0 for the first started (the `transcript`
    /// reference when the host's sink gives none).
    pub index: usize,
    /// The child's agent name.
    pub agent: String,
    /// The id of the parent's `Agent` call.
    pub parent_tool_use_id: String,
    /// How deep it ran: 1 for a child of the main agent.
    pub depth: u32,
    /// The child's conversation, oldest first (its system prompt is not in it).
    pub history: Vec<ChatMessage>,
    /// Tokens of the child's steps that reported usage.
    pub usage: Option<Usage>,
    /// Model calls made.
    pub steps: u32,
    /// `Ok(answer)`, `Err(why it stopped)`, or `None` while it runs.
    pub outcome: Option<Result<String, String>>,
}
