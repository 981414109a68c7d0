//! `.claude-plugin/plugin.json` and a plugin's `.mcp.json` (wrapped or flat).

use crate::config::{ConfigError, McpConfig, ServerConfig};
use crate::json::quoted;
use crate::registry::names::{plugin_part, plugin_server_name};
use serde_json::{json, Map, Value};

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
    /// Command files or folders (`commands`), relative; the CLI reads them besides `commands/`.
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

/// Manifest fields kept for listings.
const KEPT: &[&str] = &[
    "$schema",
    "displayName",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "metadata",
];
/// Manifest fields Claude Code reads that agentwire does not act on yet.
const IGNORED: &[&str] = &[
    "hooks",
    "agents",
    "lspServers",
    "outputStyles",
    "experimental",
    "userConfig",
    "channels",
    "dependencies",
    "workflows",
    "defaultEnabled",
    "monitors",
    "themes",
];

/// `name` as a plugin identifier: lowercase ASCII letters, digits and `-`, at most 32
/// characters; `None` when nothing is left.
pub fn sanitize_plugin_name(name: &str) -> Option<String> {
    name.chars()
        .any(|c| c.is_ascii_alphanumeric())
        .then(|| plugin_part(name))
}

fn field_error(file: &str, field: &str, message: String) -> ConfigError {
    ConfigError {
        file: file.to_owned(),
        server: None,
        field: Some(field.to_owned()),
        position: None,
        message,
    }
}

/// A relative path inside the plugin root, or an error naming the field.
fn inside_path(file: &str, field: &str, value: &Value) -> Result<String, ConfigError> {
    let Some(path) = value.as_str() else {
        return Err(field_error(
            file,
            field,
            format!("{field}: expected a string path"),
        ));
    };
    let escapes = path.starts_with('/')
        || path.starts_with('\\')
        || path.contains(':')
        || path.split(['/', '\\']).any(|p| p == "..");
    if escapes || path.is_empty() {
        return Err(field_error(
            file,
            field,
            format!(
                "{field}: {} must be a relative path inside the plugin",
                quoted(path)
            ),
        ));
    }
    Ok(path.to_owned())
}

fn paths(file: &str, field: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
    match value {
        Value::Array(items) => {
            let mut out = Vec::new();
            for (n, item) in items.iter().enumerate() {
                out.push(inside_path(file, &format!("{field}[{n}]"), item)?);
            }
            Ok(out)
        }
        other => Ok(vec![inside_path(file, field, other)?]),
    }
}

fn count(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            keys.join(", ")
        }
        Value::Array(items) => format!("{} entries", items.len()),
        _ => "set".into(),
    }
}

impl PluginManifest {
    /// Parses `plugin.json` text; `dir_name` names the plugin when the manifest does not.
    /// Wrong types and paths that leave the root are errors naming the field.
    pub fn parse(file: &str, dir_name: &str, text: &str) -> Result<PluginManifest, ConfigError> {
        let root = crate::json::parse_str(text)
            .map_err(|e| field_error(file, "", format!("invalid JSON: {e}")))?;
        let Value::Object(root) = root else {
            return Err(field_error(
                file,
                "",
                "the manifest must be a JSON object".into(),
            ));
        };
        let text_field = |key: &str| -> Result<Option<String>, ConfigError> {
            match root.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(field_error(file, key, format!("{key}: expected string"))),
            }
        };
        let declared = text_field("name")?;
        let raw_name = declared.as_deref().unwrap_or(dir_name);
        let Some(name) = sanitize_plugin_name(raw_name) else {
            return Err(field_error(
                file,
                "name",
                format!(
                    "name: {} has no letter or digit to name the plugin by",
                    quoted(raw_name)
                ),
            ));
        };
        let mut manifest = PluginManifest {
            version: text_field("version")?,
            description: text_field("description")?,
            ..PluginManifest::default()
        };
        if name != raw_name {
            manifest.warnings.push(format!(
                "{file}: name {} is used as {name}",
                quoted(raw_name)
            ));
        }
        manifest.name = name;
        for (key, value) in &root {
            match key.as_str() {
                "name" | "version" | "description" => {}
                "skills" => manifest.skills = paths(file, key, value)?,
                "commands" => manifest.commands = Some(paths(file, key, value)?),
                "mcpServers" => {
                    match value {
                        Value::Object(_) => {}
                        other => {
                            paths(file, key, other)?;
                        }
                    }
                    manifest.mcp_servers = Some(value.clone());
                }
                k if KEPT.contains(&k) => {}
                k if IGNORED.contains(&k) => manifest
                    .ignored
                    .push(format!("{k} ({}): not supported yet", count(value))),
                k => manifest
                    .warnings
                    .push(format!("{file}: unknown field {} ignored", quoted(k))),
            }
        }
        Ok(manifest)
    }

    /// The manifest of a plugin directory without `plugin.json`.
    pub fn from_dir_name(dir_name: &str) -> Option<PluginManifest> {
        Some(PluginManifest {
            name: sanitize_plugin_name(dir_name)?,
            ..PluginManifest::default()
        })
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
    let mut servers = Vec::new();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let root = match crate::json::parse_str(text) {
        Ok(Value::Object(root)) => root,
        Ok(_) => {
            errors.push(field_error(
                file,
                "",
                "the top level must be a JSON object".into(),
            ));
            return (servers, errors, warnings);
        }
        Err(e) => {
            errors.push(field_error(file, "", format!("invalid JSON: {e}")));
            return (servers, errors, warnings);
        }
    };
    let entries: Map<String, Value> = match root.get("mcpServers") {
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            errors.push(field_error(
                file,
                "mcpServers",
                "\"mcpServers\" must be an object".into(),
            ));
            return (servers, errors, warnings);
        }
        None => root
            .into_iter()
            .filter(|(k, _)| !k.starts_with('$'))
            .collect(),
    };
    for (name, entry) in entries {
        let full = plugin_server_name(plugin, &name);
        if entry.to_string().contains("${user_config.") {
            errors.push(ConfigError {
                server: Some(full),
                message: "userConfig (${user_config.…}) is not supported yet".into(),
                ..field_error(file, "", String::new())
            });
            continue;
        }
        let one = json!({ "mcpServers": { full.clone(): entry } }).to_string();
        match McpConfig::parse(file, &one, lookup) {
            Ok(parsed) => {
                warnings.extend(parsed.warnings);
                for mut server in parsed.servers {
                    // A broken entry is the plugin's error, as before.
                    if let crate::config::ServerTransport::Invalid { error } = server.transport {
                        errors.push(error);
                        continue;
                    }
                    if server.sampling {
                        warnings.push(format!(
                            "{file}: server {}: \"sampling\" is the user's to turn on; ignored in a plugin",
                            quoted(&server.name)
                        ));
                    }
                    server.sampling = false;
                    servers.push(server);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    (servers, errors, warnings)
}
