//! Which tools are sent directly and which are deferred behind `tool_search`.
//!
//! Decided once per session (at its first model request) from the configuration and the
//! estimated size of the definitions; see [`partition`].

use super::config::{Defer, ToolSearchConfig};
use crate::json::to_text;
use crate::model::openai::tool_json;
use crate::model::ToolDefinition;
use crate::registry::{Registry, ToolSpec};
use serde_json::{json, Value};

/// How a tool reaches the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loading {
    /// Its definition is in `tools` on every request.
    Direct,
    /// Only its name is listed in `tool_search`'s description; its definition comes back from a
    /// search and it is called through `call_tool`.
    Deferred,
}

impl Loading {
    /// `"direct"` or `"deferred"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Loading::Direct => "direct",
            Loading::Deferred => "deferred",
        }
    }
}

/// One tool's loading and size, for `agentwire tools --json` and `agent.tools()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolLoading {
    /// Model-facing name.
    pub name: String,
    /// Direct or deferred.
    pub loading: Loading,
    /// Estimated tokens of its definition as sent ([`estimate_tokens`]).
    pub estimated_tokens: u32,
}

impl ToolLoading {
    /// `{"name", "loading", "estimatedTokens"}`.
    pub fn to_value(&self) -> Value {
        json!({
            "name": self.name,
            "loading": self.loading.as_str(),
            "estimatedTokens": self.estimated_tokens,
        })
    }
}

/// The definition exactly as it appears in a request's `tools` array (OpenAI encoding).
pub fn definition_text(definition: &ToolDefinition) -> String {
    to_text(&tool_json(definition))
}

/// Estimated tokens of a definition: its encoded bytes / 4.5, rounded up (within ±5% of the
/// o200k count on the four reference servers; no tokenizer ships in the core).
pub fn estimate_tokens(definition: &ToolDefinition) -> u32 {
    bytes_to_tokens(definition_text(definition).len())
}

fn bytes_to_tokens(bytes: usize) -> u32 {
    u32::try_from((bytes * 2).div_ceil(9)).unwrap_or(u32::MAX)
}

/// Whether `spec` may be deferred at all: MCP tools of servers without `"defer": false`, not
/// named in either `alwaysLoad` list.
fn deferrable(spec: &ToolSpec, config: &ToolSearchConfig) -> Option<Defer> {
    let server = spec.server()?;
    let (defer, server_pins) = match config.server(server) {
        Some(settings) => (settings.defer, settings.always_load.as_slice()),
        None => (Defer::Auto, &[][..]),
    };
    let pinned = config.always_load.contains(&spec.name)
        || server_pins.iter().any(|n| n == spec.call_name());
    match defer {
        _ if pinned => None,
        Defer::Never => None,
        other => Some(other),
    }
}

/// The loading of every tool of `registry`, in registry order, under `config`.
///
/// `off` defers nothing. Otherwise servers with `"defer": true` are always deferred, and the
/// other deferrable tools are deferred when all deferrable tools together are estimated above
/// [`ToolSearchConfig::threshold`] (so `on`, a threshold of 0, defers whatever it can).
pub fn partition(registry: &Registry, config: &ToolSearchConfig) -> Vec<ToolLoading> {
    let threshold = config.threshold();
    // Plain loops: no iterator adapter or `collect` instances in the wasm build.
    let mut sized: Vec<(&ToolSpec, u32, Option<Defer>)> = Vec::new();
    let mut deferrable_tokens: u64 = 0;
    for spec in registry.tools() {
        let tokens = estimate_tokens(&spec.definition());
        let defer = deferrable(spec, config);
        if defer.is_some() {
            deferrable_tokens += u64::from(tokens);
        }
        sized.push((spec, tokens, defer));
    }
    let over = threshold.is_some_and(|t| deferrable_tokens > u64::from(t));
    let mut loading = Vec::with_capacity(sized.len());
    for (spec, estimated_tokens, defer) in sized {
        let deferred = threshold.is_some()
            && match defer {
                Some(Defer::Always) => true,
                Some(Defer::Auto) => over,
                _ => false,
            };
        loading.push(ToolLoading {
            name: spec.name.clone(),
            loading: if deferred {
                Loading::Deferred
            } else {
                Loading::Direct
            },
            estimated_tokens,
        });
    }
    loading
}
