//! `.claude-plugin/plugin.json` and a plugin's `.mcp.json` (wrapped or flat).

use crate::config::{ConfigError, ServerConfig};
use serde_json::Value;

/// A parsed plugin manifest (or the defaults when a plugin has none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PluginManifest {
    /// Sanitised name (`[a-z0-9-]`, ≤ 64).
    pub name: String,
    /// `version`.
    pub version: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// Extra skill directories (`skills`), relative to the root; added to `skills/`.
    pub skills: Vec<String>,
    /// Command paths (`commands`), relative; replace `commands/` when given.
    pub commands: Option<Vec<String>>,
    /// `mcpServers` as written: a path, a list of paths, or an inline object.
    pub mcp_servers: Option<Value>,
    /// Parsed but not acted on: `hooks`, `agents`, `lspServers`, … with a short count.
    pub ignored: Vec<String>,
    /// Unknown fields and other oddities.
    pub warnings: Vec<String>,
}

/// A loaded plugin: its manifest and where it lives.
#[derive(Clone, Debug, PartialEq)]
pub struct Plugin {
    /// The manifest (defaults from the directory name when there is no manifest).
    pub manifest: PluginManifest,
    /// The plugin's root directory, as the host shows it.
    pub root: String,
    /// Whether its origin is trusted (user, host, or a trusted project).
    pub trusted: bool,
}

/// `name` as a plugin identifier: lowercase ASCII letters, digits and `-`, at most 64
/// characters; `None` when nothing is left.
pub fn sanitize_plugin_name(name: &str) -> Option<String> {
    let _ = name;
    todo!()
}

impl PluginManifest {
    /// Parses `plugin.json` text; `dir_name` names the plugin when the manifest does not.
    /// Wrong types and paths that leave the root are errors naming the field.
    pub fn parse(file: &str, dir_name: &str, text: &str) -> Result<PluginManifest, ConfigError> {
        let _ = (file, dir_name, text);
        todo!()
    }

    /// The manifest of a plugin directory without `plugin.json`.
    pub fn from_dir_name(dir_name: &str) -> Option<PluginManifest> {
        let _ = dir_name;
        todo!()
    }
}

/// Parses a plugin's `.mcp.json`: `{"mcpServers": {…}}` (other top-level keys ignored) or a
/// flat map of servers. Each server is parsed on its own and named `plugin_<p>_<s>`; a broken
/// one (an unset `${VAR}`, `${user_config.x}`) fails alone. `sampling` is always off.
/// Returns the servers, the failures and the warnings.
pub fn parse_plugin_servers(
    file: &str,
    text: &str,
    plugin: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> (Vec<ServerConfig>, Vec<ConfigError>, Vec<String>) {
    let _ = (file, text, plugin, lookup);
    todo!()
}
