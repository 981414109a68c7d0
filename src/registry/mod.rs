//! The tool registry: built-in and MCP tools under one namespace, with risk and limits.
//!
//! Every tool, wherever it runs, is a [`ToolSpec`]: a model-facing name, a description, the JSON
//! Schema of its input (kept verbatim), a [`Risk`], whether it may run concurrently, a timeout, an
//! output limit and a [`ToolSource`] that tells the host where to route the call. MCP tools enter
//! through [`Registry::load_server`] as `mcp__<server>__<tool>` (see [`names`]); from then on they
//! are treated exactly like built-in tools.
//!
//! Registering never overwrites: a name that is taken is an error naming both tools, and the
//! first tool stays.

mod checks;
mod mcp;
pub mod names;
mod risk;
mod truncate;
mod vetting;

pub use checks::{MAX_DESCRIPTION_CHARS, MAX_MCP_TOOLS, MAX_TOOLS_PER_SERVER};
pub use mcp::{LoadReport, SkippedTool};
pub use risk::{infer_risk, risk_from_annotations, risk_from_name, Risk, RiskOverrides};
pub use truncate::{char_prefix, truncate_output};

use crate::json::quoted;
use crate::model::ToolDefinition;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// Default time a tool call may take before the host gives up on it.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// Default cap on one tool result fed to the model, in characters.
pub const DEFAULT_MAX_OUTPUT_CHARS: usize = 50_000;

/// Where a tool runs: in the host, or on an MCP server under its original name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolSource {
    /// A tool the host implements itself.
    Builtin,
    /// A tool of an MCP server.
    Mcp {
        /// The server's name, as the host configured it.
        server: String,
        /// The tool's name on that server, for `tools/call`.
        original_name: String,
    },
    /// A tool of a JS plugin, run by the host that holds the plugin's code.
    Plugin {
        /// The plugin's name (as in `plugin__<plugin>__`).
        plugin: String,
        /// The tool's name inside the plugin.
        original_name: String,
    },
    /// One of the core's skill tools (`activate_skill`, `read_skill_file`).
    Skill,
    /// The `Agent` tool: the host's driver runs a child agent (see [`crate::subagent`]).
    Subagent,
}

impl ToolSource {
    /// `builtin`, `mcp`, `plugin` or `skill`, for audit records and listings.
    pub fn label(&self) -> &'static str {
        match self {
            ToolSource::Builtin => "builtin",
            ToolSource::Mcp { .. } => "mcp",
            ToolSource::Plugin { .. } => "plugin",
            ToolSource::Skill => "skill",
            ToolSource::Subagent => "subagent",
        }
    }

    /// The plugin that owns the tool: a JS plugin's own tool, or a tool of a plugin's MCP
    /// server (`plugin_<p>_<server>`; plugin parts contain no `_`). Attribution comes from the
    /// registry, never from what an extension declares.
    pub fn plugin(&self) -> Option<&str> {
        match self {
            ToolSource::Plugin { plugin, .. } => Some(plugin),
            ToolSource::Mcp { server, .. } => {
                let rest = server.strip_prefix("plugin_")?;
                rest.split_once('_').map(|(plugin, _)| plugin)
            }
            _ => None,
        }
    }
}

/// Per-call limits of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolLimits {
    /// How long the host lets a call run before reporting a timeout.
    pub timeout: Duration,
    /// Longest result fed to the model, in characters; longer output is cut with a marker.
    pub max_output_chars: usize,
}

impl Default for ToolLimits {
    fn default() -> Self {
        ToolLimits {
            timeout: DEFAULT_TOOL_TIMEOUT,
            max_output_chars: DEFAULT_MAX_OUTPUT_CHARS,
        }
    }
}

/// Everything the runtime knows about one tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// Model-facing name: `[A-Za-z0-9_-]`, at most 64 characters, unique in the registry.
    pub name: String,
    /// What the tool does, as the server described it.
    pub description: String,
    /// JSON Schema of the arguments, verbatim.
    pub input_schema: Value,
    /// How dangerous the tool is.
    pub risk: Risk,
    /// Whether calls may run alongside other concurrency-safe calls.
    pub concurrency_safe: bool,
    /// How long a call may take.
    pub timeout: Duration,
    /// Longest result fed to the model, in characters.
    pub max_output_chars: usize,
    /// MCP annotations as the server sent them, if any.
    pub annotations: Option<Value>,
    /// Where calls go.
    pub source: ToolSource,
    /// Whether the permission gate may rely on `risk`: true for built-in tools, user
    /// overrides, and tools of servers the host trusts as first listed; false for tools of a
    /// distrusted server and tools that changed mid-session (see [`ToolSpec::gate_risk`]).
    pub risk_trusted: bool,
}

impl ToolSpec {
    /// A built-in tool with default limits; read-only tools are concurrency-safe.
    pub fn builtin(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        risk: Risk,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema,
            risk,
            concurrency_safe: risk.is_read_only(),
            timeout: DEFAULT_TOOL_TIMEOUT,
            max_output_chars: DEFAULT_MAX_OUTPUT_CHARS,
            annotations: None,
            source: ToolSource::Builtin,
            risk_trusted: true,
        }
    }

    /// The risk the permission gate weighs: `risk` when trusted, else at least `write`, so a
    /// tool that only claims to read still asks unless a rule allows it.
    pub fn gate_risk(&self) -> Risk {
        if self.risk_trusted {
            self.risk
        } else {
            self.risk.max(Risk::Write)
        }
    }

    /// This spec with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// This spec with another output limit (characters).
    pub fn with_max_output_chars(mut self, max_output_chars: usize) -> Self {
        self.max_output_chars = max_output_chars;
        self
    }

    /// This spec with the concurrency flag set explicitly.
    pub fn with_concurrency_safe(mut self, concurrency_safe: bool) -> Self {
        self.concurrency_safe = concurrency_safe;
        self
    }

    /// The definition the model sees.
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
        }
    }

    /// The MCP server this tool belongs to, if any.
    pub fn server(&self) -> Option<&str> {
        match &self.source {
            ToolSource::Mcp { server, .. } => Some(server),
            _ => None,
        }
    }

    /// The plugin that owns this tool (see [`ToolSource::plugin`]).
    pub fn plugin(&self) -> Option<&str> {
        self.source.plugin()
    }

    /// `builtin`, `mcp`, `plugin` or `skill`, for audit records and listings.
    pub fn source_label(&self) -> &'static str {
        self.source.label()
    }

    /// The name to call the tool by where it runs: the original MCP name, or the built-in name.
    pub fn call_name(&self) -> &str {
        match &self.source {
            ToolSource::Mcp { original_name, .. } | ToolSource::Plugin { original_name, .. } => {
                original_name
            }
            _ => &self.name,
        }
    }

    /// Who owns the name, for error messages: `built-in tool "x"` or `tool "y" of MCP server "s"`.
    pub fn describe_owner(&self) -> String {
        match &self.source {
            ToolSource::Builtin => format!("built-in tool {}", quoted(&self.name)),
            ToolSource::Skill | ToolSource::Subagent => {
                format!("core tool {}", quoted(&self.name))
            }
            ToolSource::Plugin {
                plugin,
                original_name,
            } => format!(
                "tool {original_name} of plugin {plugin}",
                original_name = quoted(original_name),
                plugin = quoted(plugin)
            ),
            ToolSource::Mcp {
                server,
                original_name,
            } => format!(
                "tool {original_name} of MCP server {server}",
                original_name = quoted(original_name),
                server = quoted(server)
            ),
        }
    }
}

/// Why a tool could not be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name is not acceptable to model APIs.
    InvalidName {
        /// The rejected name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The name is taken; the tool already registered stays.
    Clash {
        /// The contested name.
        name: String,
        /// The tool that holds the name.
        existing: String,
        /// The tool that was refused.
        rejected: String,
    },
    /// An MCP tool description that could not be read.
    InvalidTool {
        /// The MCP server.
        server: String,
        /// Which tool (its name, or its position in the list).
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// The name lies in a namespace someone else owns (`mcp__…`, `plugin__<p>__…`, core tools).
    Reserved {
        /// The refused name.
        name: String,
        /// Who owns the namespace.
        owner: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::InvalidName { name, reason } => {
                write!(f, "invalid tool name {name}: {reason}", name = quoted(name))
            }
            RegistryError::Clash {
                name,
                existing,
                rejected,
            } => write!(
                f,
                "tool name {name} is already taken by {existing}; {rejected} was not registered",
                name = quoted(name)
            ),
            RegistryError::InvalidTool {
                server,
                tool,
                reason,
            } => write!(
                f,
                "MCP server {server}, tool {tool}: {reason}",
                server = quoted(server)
            ),
            RegistryError::Reserved { name, owner } => write!(
                f,
                "tool name {name} is reserved: it belongs to {owner}",
                name = quoted(name)
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// The set of tools the model may call, in a stable order: built-in tools in registration order,
/// then MCP tools by server name, each server's tools in the order the server listed them.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    tools: Vec<ToolSpec>,
    /// Servers whose tools were loaded (even if the list was empty).
    loaded_servers: VecSet<String>,
    server_errors: VecMap<String, String>,
    overrides: RiskOverrides,
    default_limits: ToolLimits,
    server_limits: VecMap<String, ToolLimits>,
    /// Each loaded server's tools as its connection first listed them (see [`vetting`]).
    first_listings: VecMap<String, Vec<vetting::Listed>>,
    /// What each server's last load skipped (see [`Registry::skipped_tools`]).
    skipped: VecMap<String, Vec<SkippedTool>>,
}

impl Registry {
    /// An empty registry with default limits and no overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the risk overrides and re-applies them to every registered MCP tool, and to
    /// built-in tools the new overrides name (a built-in keeps an earlier override's risk until
    /// it is registered again).
    pub fn set_overrides(&mut self, overrides: RiskOverrides) {
        self.overrides = overrides;
        let trusted: Vec<bool> = self
            .tools
            .iter()
            .map(|spec| match spec.server() {
                Some(server) => self.risk_is_trusted(server, spec),
                None => spec.risk_trusted,
            })
            .collect();
        for (spec, trusted) in self.tools.iter_mut().zip(trusted) {
            spec.risk_trusted = trusted;
            let risk = match &spec.source {
                ToolSource::Builtin => match self.overrides.for_builtin(&spec.name) {
                    Some(risk) => risk,
                    None => continue,
                },
                ToolSource::Mcp {
                    server,
                    original_name,
                } => self.overrides.mcp_risk(
                    server,
                    original_name,
                    &spec.description,
                    spec.annotations.as_ref(),
                ),
                _ => continue,
            };
            spec.risk = risk;
            spec.concurrency_safe = risk.is_read_only();
        }
    }

    /// The risk overrides in force.
    pub fn overrides(&self) -> &RiskOverrides {
        &self.overrides
    }

    /// Sets the limits MCP tools get when their server has none of its own (later loads only).
    pub fn set_default_limits(&mut self, limits: ToolLimits) {
        self.default_limits = limits;
    }

    /// Sets the limits of `server`'s tools (later loads only).
    pub fn set_server_limits(&mut self, server: &str, limits: ToolLimits) {
        self.server_limits.insert(server.to_owned(), limits);
    }

    /// Limits for tools of `server`: its own, else the defaults.
    pub fn limits_for(&self, server: &str) -> ToolLimits {
        self.server_limits
            .get(server)
            .copied()
            .unwrap_or(self.default_limits)
    }

    /// Registers a built-in tool; the name must already be valid and free.
    ///
    /// A built-in risk override from [`RiskOverrides::set_builtin`] replaces the declared risk.
    /// Names in a namespace someone else owns ([`names::reserved_owner`]) are refused with
    /// [`RegistryError::Reserved`] naming the owner.
    pub fn register_builtin(&mut self, mut spec: ToolSpec) -> Result<(), RegistryError> {
        if let Some(reason) = names::tool_name_problem(&spec.name) {
            return Err(RegistryError::InvalidName {
                name: spec.name,
                reason,
            });
        }
        if let Some(owner) = names::reserved_owner(&spec.name) {
            return Err(RegistryError::Reserved {
                name: spec.name,
                owner,
            });
        }
        spec.source = ToolSource::Builtin;
        if let Some(risk) = self.overrides.for_builtin(&spec.name) {
            spec.risk = risk;
            spec.concurrency_safe = risk.is_read_only();
        }
        if let Some(existing) = self.get(&spec.name) {
            return Err(RegistryError::Clash {
                name: spec.name.clone(),
                existing: existing.describe_owner(),
                rejected: spec.describe_owner(),
            });
        }
        let at = self
            .tools
            .iter()
            .take_while(|t| t.source == ToolSource::Builtin)
            .count();
        self.tools.insert(at, spec);
        Ok(())
    }

    /// Registers tool `spec.name` of JS plugin `plugin` as `plugin__<plugin>__<tool>`; a
    /// `spec.name` in a reserved namespace is refused ([`RegistryError::Reserved`]). The
    /// declared risk is a claim: unless the host trusts the plugin (`trusted`), the tool gets at
    /// least the risk its name and description suggest, and the gate never lets it run
    /// unasked on a `read` claim alone. Returns the model-facing name.
    pub fn register_plugin_tool(
        &mut self,
        plugin: &str,
        mut spec: ToolSpec,
        trusted: bool,
    ) -> Result<String, RegistryError> {
        // A plugin naming its tool after someone else's (`mcp__github__delete_repo`, a core
        // tool) is refused rather than quietly prefixed: it is trying to look like that tool.
        if let Some(owner) = names::reserved_owner(&spec.name) {
            return Err(RegistryError::Reserved {
                name: spec.name,
                owner,
            });
        }
        let name = names::plugin_tool_name(plugin, &spec.name);
        if let Some(reason) = names::tool_name_problem(&name) {
            return Err(RegistryError::InvalidName { name, reason });
        }
        if !trusted {
            if let Some(inferred) = risk_from_name(&spec.name, &spec.description) {
                spec.risk = spec.risk.max(inferred);
            }
        }
        spec.concurrency_safe = spec.concurrency_safe && spec.risk.is_read_only();
        // An untrusted plugin's `read` is only a claim: the gate weighs it as at least `write`.
        spec.risk_trusted = trusted;
        spec.source = ToolSource::Plugin {
            plugin: names::plugin_part(plugin),
            original_name: std::mem::replace(&mut spec.name, name.clone()),
        };
        if let Some(existing) = self.get(&name) {
            return Err(RegistryError::Clash {
                name,
                existing: existing.describe_owner(),
                rejected: spec.describe_owner(),
            });
        }
        self.tools.push(spec);
        Ok(name)
    }

    /// Removes exactly the tools of JS plugin `plugin` and of its MCP servers
    /// (`plugin_<plugin>_<server>`); returns how many tools.
    pub fn remove_plugin(&mut self, plugin: &str) -> usize {
        let part = names::plugin_part(plugin);
        let server_prefix = format!("plugin_{part}_");
        let servers: Vec<String> = self
            .loaded_servers
            .iter()
            .chain(self.server_errors.iter().map(|(s, _)| s))
            .filter(|s| s.starts_with(&server_prefix))
            .cloned()
            .collect();
        let mut removed = 0;
        for server in servers {
            removed += self.remove_server(&server);
        }
        let before = self.tools.len();
        self.tools
            .retain(|t| !matches!(&t.source, ToolSource::Plugin { plugin, .. } if *plugin == part));
        removed + before - self.tools.len()
    }

    /// Replaces the core's skill tools with `specs` (built by [`crate::ext::tools`]); they go
    /// after the built-in tools, in the given order, so definitions stay byte-stable.
    pub fn set_skill_tools(&mut self, specs: Vec<ToolSpec>) {
        self.tools.retain(|t| t.source != ToolSource::Skill);
        let at = self
            .tools
            .iter()
            .take_while(|t| t.source == ToolSource::Builtin)
            .count();
        for (n, mut spec) in specs.into_iter().enumerate() {
            spec.source = ToolSource::Skill;
            self.tools.insert(at + n, spec);
        }
    }

    /// Sets (or with `None` removes) the `Agent` tool; it goes after the built-in and skill
    /// tools, so definitions stay byte-stable.
    pub fn set_agent_tool(&mut self, spec: Option<ToolSpec>) {
        // There is at most one.
        let current = self
            .tools
            .iter()
            .position(|t| t.source == ToolSource::Subagent);
        if let Some(at) = current {
            self.tools.remove(at);
        }
        if let Some(mut spec) = spec {
            let at = self
                .tools
                .iter()
                .take_while(|t| matches!(t.source, ToolSource::Builtin | ToolSource::Skill))
                .count();
            spec.source = ToolSource::Subagent;
            self.tools.insert(at, spec);
        }
    }

    /// A registry of only the tools `keep` accepts (a child agent's narrower set). A child
    /// registers and loads nothing itself, so the parent's loading records (listings, skips,
    /// errors) and its settings for new tools (overrides, limits) stay behind: each tool
    /// carries its own risk and limits already.
    pub fn narrowed(&self, mut keep: impl FnMut(&ToolSpec) -> bool) -> Registry {
        let mut tools = Vec::new();
        for spec in &self.tools {
            if keep(spec) {
                tools.push(spec.clone());
            }
        }
        Registry {
            tools,
            ..Registry::default()
        }
    }

    /// Removes built-in tool `name`; MCP tools leave with their server.
    pub fn unregister_builtin(&mut self, name: &str) -> Option<ToolSpec> {
        let at = self
            .tools
            .iter()
            .position(|t| t.name == name && t.source == ToolSource::Builtin)?;
        Some(self.tools.remove(at))
    }

    /// The tool called `name` by the model, with its source for routing.
    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Every tool, in the registry's stable order.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The definitions the model sees, in the registry's stable order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.iter().map(ToolSpec::definition).collect()
    }

    /// Tools of MCP server `server`, in the order the server listed them.
    pub fn server_tools<'a>(&'a self, server: &'a str) -> impl Iterator<Item = &'a ToolSpec> {
        self.tools
            .iter()
            .filter(move |t| t.server() == Some(server))
    }

    /// Servers whose tool lists are loaded, sorted.
    pub fn servers(&self) -> impl Iterator<Item = &str> {
        self.loaded_servers.iter().map(String::as_str)
    }

    /// Servers that failed, with the reason, sorted by server name.
    pub fn server_errors(&self) -> impl Iterator<Item = (&str, &str)> {
        self.server_errors
            .iter()
            .map(|(s, r)| (s.as_str(), r.as_str()))
    }

    /// Why `server` failed, if it did.
    pub fn server_error(&self, server: &str) -> Option<&str> {
        self.server_errors.get(server).map(String::as_str)
    }

    /// Removes exactly `server`'s tools and any failure recorded for it; returns how many tools.
    pub fn remove_server(&mut self, server: &str) -> usize {
        self.server_errors.remove(server);
        self.first_listings.remove(server);
        self.loaded_servers.remove(server);
        self.drop_server_tools(server)
    }

    /// Records that `server` could not start or list its tools: it then has no tools.
    pub fn record_server_failure(&mut self, server: &str, reason: impl Into<String>) {
        self.loaded_servers.remove(server);
        self.first_listings.remove(server);
        self.drop_server_tools(server);
        self.server_errors.insert(server.to_owned(), reason.into());
    }

    fn drop_server_tools(&mut self, server: &str) -> usize {
        self.skipped.remove(server);
        let before = self.tools.len();
        self.tools.retain(|t| t.server() != Some(server));
        before - self.tools.len()
    }
}

#[cfg(test)]
mod tests;
