//! Reading one file plugin's folder: its manifest, skills, commands and MCP servers, and what
//! it ships that agentwire does not run yet (agents named by manifest paths; hooks are read by
//! `super::hooks`, `agents/*.md` by `super::agents`). Servers are named
//! `plugin_<p>_<s>` (tools `mcp__plugin_<p>_<s>__<tool>`, as in Claude Code) and can never
//! turn on sampling or lower a tool's risk: those are the user's to give.

use super::discover::{ItemFile, Scope};
use super::plugin_paths::{read_components, server_sources};
use super::read::Bound;
use agentwire::config::ServerConfig;
use agentwire::ext::{parse_plugin_servers, PluginManifest};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A plugin folder, read.
#[derive(Debug)]
pub struct PluginFolder {
    /// The plugin's name: the manifest's `name`, else the folder's, as `[a-z0-9-]`.
    pub name: String,
    /// Its root.
    pub root: PathBuf,
    /// Scope it inherits.
    pub scope: Scope,
    /// The manifest's `version`, if any.
    pub version: Option<String>,
    /// Its skills (`skills/<d>/SKILL.md`, then the manifest's `skills` paths).
    pub skills: Vec<ItemFile>,
    /// Its commands (`commands/**/*.md`, then the manifest's `commands` paths).
    pub commands: Vec<ItemFile>,
    /// `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` for its `.mcp.json` and items.
    pub vars: Vec<(String, String)>,
    /// Whether its `.mcp.json` or an item names `${CLAUDE_PLUGIN_DATA}` (the folder is then
    /// created before anything runs, as Claude Code does on first reference).
    pub uses_data_dir: bool,
    /// Its MCP servers, already named `plugin_<p>_<s>`.
    pub servers: Vec<ServerConfig>,
    /// What it ships that is not supported yet ("agents (1): not supported yet").
    pub ignored: Vec<String>,
    /// Warnings naming the file.
    pub warnings: Vec<String>,
}

/// `text` as a plugin or server name part: lowercase ASCII letters, digits and `-`; anything
/// else becomes `-`, runs squeezed, ends trimmed. Empty when nothing is left.
pub fn sanitize_name(text: &str) -> String {
    let mut name = String::new();
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            name.push(c);
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    name.trim_matches('-').chars().take(64).collect()
}

/// Reads the plugin at `root`. `lookup` resolves `${VAR}` in its `.mcp.json` after the
/// plugin's own variables (`${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}`). Errors name the
/// file.
pub fn read_plugin(
    root: &Path,
    scope: Scope,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<PluginFolder, String> {
    if !root.is_dir() {
        return Err(format!("plugin {}: not a directory", root.display()));
    }
    // Every file of the plugin is read inside its root: no link out, no FIFO, bounded.
    let bound = Bound::new(root, "the plugin").map_err(|e| format!("plugin {e}"))?;
    let mut warnings = Vec::new();
    let folder_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The core validates the manifest (types, paths that leave the root, the name); the raw
    // value is kept only to list what is not run yet.
    let manifest_path = root.join(".claude-plugin/plugin.json");
    let (parsed, manifest) = if std::fs::symlink_metadata(&manifest_path).is_ok() {
        let read = bound.read(&manifest_path)?;
        warnings.extend(read.warnings);
        let shown = manifest_path.display().to_string();
        let parsed = PluginManifest::parse(&shown, &folder_name, &read.text)
            .map_err(|e| format!("invalid manifest: {e}"))?;
        let value = serde_json::from_str(&read.text).unwrap_or(Value::Null);
        (parsed, value)
    } else {
        let parsed = PluginManifest::from_dir_name(&folder_name).ok_or_else(|| {
            format!(
                "plugin {}: name {folder_name:?} has no letters or digits",
                root.display()
            )
        })?;
        (parsed, Value::Null)
    };
    warnings.extend(parsed.warnings.iter().cloned());
    let name = parsed.name.clone();
    let components = read_components(root, &name, &parsed, scope);
    warnings.extend(components.warnings);
    let vars = plugin_vars(root, &name);
    let own = |var: &str| {
        vars.iter()
            .find(|(k, _)| k == var)
            .map(|(_, v)| v.clone())
            .or_else(|| lookup(var))
    };
    let (servers, servers_text) = read_servers(root, &parsed, &own, &mut warnings);
    let uses_data_dir = std::iter::once(servers_text.as_str())
        .chain(components.skills.iter().map(|i| i.text.as_str()))
        .chain(components.commands.iter().map(|i| i.text.as_str()))
        .any(|text| text.contains("${CLAUDE_PLUGIN_DATA}"));
    Ok(PluginFolder {
        version: parsed.version,
        ignored: unsupported(root, &bound, &manifest, &mut warnings),
        name,
        root: root.to_path_buf(),
        scope,
        skills: components.skills,
        commands: components.commands,
        vars,
        uses_data_dir,
        servers,
        warnings,
    })
}

impl PluginFolder {
    /// Creates the plugin's `${CLAUDE_PLUGIN_DATA}` folder (private to the user) when the
    /// plugin names it; an error names the plugin and the folder.
    pub fn ensure_data_dir(&self) -> Result<(), String> {
        use std::os::unix::fs::DirBuilderExt;
        let Some((_, dir)) = self.vars.iter().find(|(k, _)| k == "CLAUDE_PLUGIN_DATA") else {
            return Ok(());
        };
        if !self.uses_data_dir {
            return Ok(());
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("plugin {}: cannot create {dir}: {e}", self.name))
    }
}

/// `${CLAUDE_PLUGIN_ROOT}` (the root, absolute) and `${CLAUDE_PLUGIN_DATA}` (a per-plugin
/// state folder, `<state dir>/plugins/<name>`, kept across updates of the plugin's files).
fn plugin_vars(root: &Path, name: &str) -> Vec<(String, String)> {
    let absolute = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut vars = vec![(
        "CLAUDE_PLUGIN_ROOT".to_owned(),
        absolute.display().to_string(),
    )];
    if let Some(state) = crate::os::private_file::state_dir() {
        let data = state.join("plugins").join(name);
        vars.push(("CLAUDE_PLUGIN_DATA".to_owned(), data.display().to_string()));
    }
    vars
}

/// The plugin's MCP configs (`.mcp.json`, the manifest's `mcpServers`), each in either shape:
/// wrapped (`{"mcpServers": {…}}`) or the flat map official plugins use. Risk settings and
/// sampling are dropped with a warning; a server defined twice keeps its first definition.
/// Returns the servers and the configs' text.
fn read_servers(
    root: &Path,
    manifest: &PluginManifest,
    lookup: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<String>,
) -> (Vec<ServerConfig>, String) {
    let plugin = manifest.name.as_str();
    let mut renamed: Vec<ServerConfig> = Vec::new();
    let mut texts = String::new();
    for source in server_sources(root, plugin, manifest, warnings) {
        let shown = &source.shown;
        // Each server is parsed on its own: a broken one is named and the others still start.
        let (servers, errors, parsed_warnings) =
            parse_plugin_servers(shown, &source.text, plugin, lookup);
        warnings.extend(parsed_warnings);
        warnings.extend(errors.iter().map(|e| e.to_string()));
        for mut server in servers {
            let original = server.name.clone();
            if renamed.iter().any(|s| s.name == original) {
                warnings.push(format!(
                    "{shown}: server {original:?} is already defined; the first one is used"
                ));
                continue;
            }
            // The core already turned `sampling` off (and warned); risk settings are dropped.
            if server.risk.is_some() || !server.tool_risk.is_empty() {
                warnings.push(format!(
                    "{shown}: server {original:?}: \"risk\" and \"toolRisk\" are the user's to \
                     set; ignored in a plugin"
                ));
            }
            server.sampling = false;
            server.risk = None;
            server.tool_risk.clear();
            renamed.push(server);
        }
        texts.push_str(&source.text);
    }
    (renamed, texts)
}

/// What the plugin ships that is parsed but not run yet; `hooks/hooks.json` is read (inside
/// `bound`) only to name its events, a refusal to read it goes to `warnings`.
fn unsupported(
    root: &Path,
    bound: &Bound,
    manifest: &Value,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut ignored = Vec::new();
    // Hooks run (`super::hooks`); a hooks file that cannot be read is a warning here.
    let hooks_file = root.join("hooks/hooks.json");
    if std::fs::symlink_metadata(&hooks_file).is_ok() {
        if let Err(error) = bound.read(&hooks_file) {
            warnings.push(error);
        }
    }
    // `agents/*.md` are read as subagents (`extensions::agents`); other paths are not.
    if !manifest["agents"].is_null() {
        ignored.push("agents (manifest paths): not supported yet".to_owned());
    }
    for key in ["lspServers", "outputStyles", "userConfig", "monitors"] {
        if !manifest[key].is_null() {
            ignored.push(format!("{key}: not supported yet"));
        }
    }
    ignored
}

/// The variables a plugin's `.mcp.json` may use besides its own: `${CLAUDE_PROJECT_DIR}`
/// (`project`), then the environment.
pub fn host_lookup(project: &Path) -> impl Fn(&str) -> Option<String> {
    let project = project.display().to_string();
    move |var: &str| match var {
        "CLAUDE_PROJECT_DIR" => Some(project.clone()),
        _ => std::env::var(var).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn unsupported_parts_are_listed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        write(&root.join(".claude-plugin/plugin.json"), r#"{"name": "p"}"#);
        write(
            &root.join("skills/s/SKILL.md"),
            "---\ndescription: d\n---\nx\n",
        );
        let plain = read_plugin(&root, Scope::User, &env).unwrap();
        assert!(plain.ignored.is_empty(), "{:?}", plain.ignored);
        assert!(plain.warnings.is_empty(), "{:?}", plain.warnings);
        write(
            &root.join("hooks/hooks.json"),
            r#"{"hooks": {"SessionStart": [], "PreToolUse": []}}"#,
        );
        write(&root.join("agents/reviewer.md"), "x");
        write(
            &root.join(".claude-plugin/plugin.json"),
            r#"{"name": "p", "lspServers": {}, "userConfig": {}}"#,
        );
        let full = read_plugin(&root, Scope::User, &env).unwrap();
        assert_eq!(
            full.ignored,
            [
                "lspServers: not supported yet",
                "userConfig: not supported yet",
            ]
        );
        // Declared in the manifest only: agent paths still listed, hooks run.
        std::fs::remove_dir_all(root.join("hooks")).unwrap();
        std::fs::remove_dir_all(root.join("agents")).unwrap();
        write(
            &root.join(".claude-plugin/plugin.json"),
            r#"{"name": "p", "hooks": "./h.json", "agents": ["./a.md"]}"#,
        );
        let declared = read_plugin(&root, Scope::User, &env).unwrap();
        assert_eq!(
            declared.ignored,
            ["agents (manifest paths): not supported yet"],
            "hooks and agents/*.md run now: they are not listed as unsupported"
        );
    }

    #[test]
    fn only_a_plugin_asking_for_sampling_or_risk_is_warned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        let server = |extra: &str| format!(r#"{{"s": {{"command": "true"{extra}}}}}"#);
        for (extra, warned) in [
            ("", false),
            (r#", "sampling": true"#, true),
            (r#", "risk": "read""#, true),
            (r#", "toolRisk": {"x": "read"}"#, true),
        ] {
            write(&root.join(".mcp.json"), &server(extra));
            let plugin = read_plugin(&root, Scope::User, &env).unwrap();
            assert_eq!(
                plugin.warnings.len(),
                usize::from(warned),
                "{extra}: {:?}",
                plugin.warnings
            );
            let s = &plugin.servers[0];
            assert_eq!(s.name, "plugin_p_s");
            assert!(
                !s.sampling && s.risk.is_none() && s.tool_risk.is_empty(),
                "{extra}"
            );
        }
    }

    #[test]
    fn a_broken_server_is_named_and_the_others_still_load() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("my-tools");
        write(
            &root.join(".mcp.json"),
            r#"{"mcpServers": {"good": {"command": "true"}, "bad": {"command": 5}}}"#,
        );
        let plugin = read_plugin(&root, Scope::User, &env).unwrap();
        let names: Vec<&str> = plugin.servers.iter().map(|s| s.name.as_str()).collect();
        // The plugin part keeps its `-`, so the core attributes the server to `my-tools`.
        assert_eq!(names, ["plugin_my-tools_good"]);
        assert!(
            plugin
                .warnings
                .iter()
                .any(|w| w.contains("plugin_my-tools_bad")),
            "{:?}",
            plugin.warnings
        );
    }

    #[test]
    fn no_manifest_means_the_folder_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("My Plugin");
        std::fs::create_dir_all(&root).unwrap();
        assert_eq!(
            read_plugin(&root, Scope::User, &env).unwrap().name,
            "my-plugin"
        );
    }

    #[test]
    fn names_are_sanitised_to_ascii_identifiers() {
        assert_eq!(sanitize_name("Commit Commands"), "commit-commands");
        assert_eq!(sanitize_name("--évil__"), "vil");
        assert_eq!(sanitize_name("日本"), "");
    }
}
