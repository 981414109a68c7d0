//! How deferred tool loading is configured: the session-wide mode and the per-server settings.

use crate::json::quoted;

/// Default number of definitions one `tool_search` returns.
pub const DEFAULT_SEARCH_LIMIT: u8 = 5;

/// Default token threshold of [`ToolSearchMode::Auto`].
pub const DEFAULT_THRESHOLD_TOKENS: u32 = 3_000;

/// When MCP tools are deferred behind `tool_search`/`call_tool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolSearchMode {
    /// Never defer: every tool is sent in `tools` (the behaviour before deferred loading).
    Off,
    /// Defer every deferrable MCP tool when their estimated definition tokens exceed
    /// `min(threshold_tokens, 10% of the context window when known)`.
    Auto {
        /// The threshold in estimated tokens (default 3,000).
        threshold_tokens: u32,
    },
    /// Always defer every deferrable MCP tool (a threshold of 0).
    On,
}

impl Default for ToolSearchMode {
    fn default() -> Self {
        ToolSearchMode::Auto {
            threshold_tokens: DEFAULT_THRESHOLD_TOKENS,
        }
    }
}

impl ToolSearchMode {
    /// Reads `auto`, `on`, `off`, or `auto:N` (N tokens), as `AGENTWIRE_TOOL_SEARCH` takes them.
    pub fn parse(text: &str) -> Result<ToolSearchMode, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "auto" => return Ok(ToolSearchMode::default()),
            "on" | "true" => return Ok(ToolSearchMode::On),
            "off" | "false" => return Ok(ToolSearchMode::Off),
            _ => {}
        }
        if let Some(n) = text.strip_prefix("auto:") {
            if let Ok(threshold_tokens) = n.trim().parse::<u32>() {
                return Ok(ToolSearchMode::Auto { threshold_tokens });
            }
        }
        Err(format!(
            "unknown tool search mode {text}: expected auto, on, off or auto:TOKENS",
            text = quoted(text)
        ))
    }

    /// `"off"`, `"auto"` or `"on"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolSearchMode::Off => "off",
            ToolSearchMode::Auto { .. } => "auto",
            ToolSearchMode::On => "on",
        }
    }
}

/// How found definitions reach the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reveal {
    /// Only as `tool_search` results; deferred tools are called through `call_tool`. `tools`
    /// never changes within a session, so the provider's prompt cache holds (default).
    #[default]
    Bridge,
    /// Also appended to `tools` once found, so models can call them natively; every load
    /// changes `tools` and costs one prompt-cache miss.
    Append,
}

impl Reveal {
    /// Reads `bridge` or `append`.
    pub fn parse(text: &str) -> Result<Reveal, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "bridge" => Ok(Reveal::Bridge),
            "append" => Ok(Reveal::Append),
            _ => Err(format!(
                "unknown reveal {text}: expected bridge or append",
                text = quoted(text)
            )),
        }
    }

    /// `"bridge"` or `"append"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Reveal::Bridge => "bridge",
            Reveal::Append => "append",
        }
    }
}

/// One server's `"defer"` setting in `.mcp.json`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Defer {
    /// Follow the session's mode and threshold (default).
    #[default]
    Auto,
    /// Defer this server's tools whenever tool search is not `off`, even below the threshold.
    Always,
    /// Never defer this server's tools.
    Never,
}

/// A server's deferral settings (`"defer"` and `"alwaysLoad"` in `.mcp.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerDefer {
    /// Whether its tools may be deferred.
    pub defer: Defer,
    /// Tools (names as the server lists them) that are always sent directly.
    pub always_load: Vec<String>,
}

/// Deferred tool loading for one agent (see [`crate::tool_search`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSearchConfig {
    /// When to defer (default `auto` at 3,000 tokens).
    pub mode: ToolSearchMode,
    /// How found definitions reach the model (default bridge).
    pub reveal: Reveal,
    /// Most definitions one search returns when the model gives no limit (default 5).
    pub limit: u8,
    /// Model-facing tool names (`mcp__github__get_issue`) that are never deferred.
    pub always_load: Vec<String>,
    /// The model's context window in tokens, when known: `auto` then defers above 10% of it
    /// if that is lower than the threshold.
    pub context_window: Option<u32>,
    /// Per-server settings, by server name.
    pub servers: Vec<(String, ServerDefer)>,
}

impl Default for ToolSearchConfig {
    fn default() -> Self {
        ToolSearchConfig {
            mode: ToolSearchMode::default(),
            reveal: Reveal::default(),
            limit: DEFAULT_SEARCH_LIMIT,
            always_load: Vec::new(),
            context_window: None,
            servers: Vec::new(),
        }
    }
}

impl ToolSearchConfig {
    /// Sets `server`'s deferral settings, replacing earlier ones.
    pub fn set_server(&mut self, server: &str, settings: ServerDefer) {
        // A plain loop: no `retain` instance in the wasm build (names are unique here).
        for (name, current) in &mut self.servers {
            if name == server {
                *current = settings;
                return;
            }
        }
        self.servers.push((server.to_owned(), settings));
    }

    /// `server`'s deferral settings, when any were set (the defaults apply otherwise).
    pub fn server(&self, server: &str) -> Option<&ServerDefer> {
        // A plain loop: no clone of the settings, no `find` instance in the wasm build.
        for (name, settings) in &self.servers {
            if name == server {
                return Some(settings);
            }
        }
        None
    }

    /// The token count above which `auto` defers: `min(threshold, 10% of the window)`; `None`
    /// for `off`, 0 for `on`.
    pub fn threshold(&self) -> Option<u32> {
        match self.mode {
            ToolSearchMode::Off => None,
            ToolSearchMode::On => Some(0),
            ToolSearchMode::Auto { threshold_tokens } => Some(match self.context_window {
                Some(window) => threshold_tokens.min(window / 10),
                None => threshold_tokens,
            }),
        }
    }
}
