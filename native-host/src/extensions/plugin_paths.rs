//! A plugin's skills, commands and MCP configs: the default `skills/`, `commands/` and
//! `.mcp.json` plus what its manifest adds (`"skills"`, `"commands"`, `"mcpServers"`: a string
//! or a list, relative to the root; a skills path is a folder of skill folders or one skill
//! folder, a commands path a folder or one `.md` file; `mcpServers` may also be inline).
//! Everything stays inside the plugin's root: a path or an item that leaves it through a
//! symlink is refused with a warning naming the plugin and the path (`..` and absolute paths
//! are already refused by the core's manifest parser), and every file is read through the
//! root's [`Bound`] (no window for a swapped-in symlink, FIFOs refused without blocking). An
//! item reached twice loads once.

use super::discover::{commands_in, entries_dropped, first_by_name, MAX_ENTRIES};
use super::discover::{read_command, read_skill, ItemFile, Scope};
use super::read::Bound;
use agentwire::ext::PluginManifest;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The skills and commands of one plugin, and what was refused or missing.
#[derive(Debug, Default)]
pub struct Components {
    /// Skill files, default folder first, then the manifest's paths in order.
    pub skills: Vec<ItemFile>,
    /// Command files, in the same order.
    pub commands: Vec<ItemFile>,
    /// Warnings naming the plugin and the path; unreadable files naming the file.
    pub warnings: Vec<String>,
}

/// One place to look: where it is, how to name it in a warning, whether the manifest named it.
struct Place {
    path: PathBuf,
    shown: String,
    explicit: bool,
}

fn places(root: &Path, default: &str, field: &str, extra: &[String]) -> Vec<Place> {
    let mut list = vec![Place {
        path: root.join(default),
        shown: format!("{default}/"),
        explicit: false,
    }];
    list.extend(extra.iter().map(|relative| Place {
        path: root.join(relative),
        shown: format!("\"{field}\" path {relative:?}"),
        explicit: true,
    }));
    list
}

/// Reads the skills and commands of the plugin `plugin` at `root`.
pub fn read_components(
    root: &Path,
    plugin: &str,
    manifest: &PluginManifest,
    scope: Scope,
) -> Components {
    let mut out = Components::default();
    let Ok(bound) = Bound::new(root, "the plugin") else {
        out.warnings.push(format!(
            "plugin {plugin}: {} cannot be resolved",
            root.display()
        ));
        return out;
    };
    let confine = Confine { bound, plugin };
    let mut seen = HashSet::new();
    for place in places(root, "skills", "skills", &manifest.skills) {
        let Some(dir) = confine.place(&place, &mut out.warnings) else {
            continue;
        };
        for skill_dir in skill_dirs(&dir, place.explicit, &mut out.warnings) {
            let file = skill_dir.join("SKILL.md");
            if !confine.item(&file, &mut seen, &mut out.warnings) {
                continue;
            }
            match read_skill(&file, scope, &confine.bound) {
                Ok(skill) => out.skills.push(skill),
                Err(error) => out.warnings.push(error),
            }
        }
    }
    let extra = manifest.commands.as_deref().unwrap_or_default();
    for place in places(root, "commands", "commands", extra) {
        let Some(path) = confine.place(&place, &mut out.warnings) else {
            continue;
        };
        let mut found = Vec::new();
        if path.is_file() {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.extension().is_none_or(|ext| ext != "md") {
                out.warnings.push(format!(
                    "plugin {plugin}: {} is not a .md command file; ignored",
                    place.shown
                ));
                continue;
            }
            match read_command(&path, name, None, scope, &confine.bound) {
                Ok(command) => found.push(command),
                Err(error) => out.warnings.push(error),
            }
        } else {
            let listed = commands_in(&path, scope, &confine.bound);
            found = listed.items;
            out.warnings.extend(listed.errors);
            out.warnings.extend(listed.warnings);
        }
        for command in found {
            if confine.item(&command.path, &mut seen, &mut out.warnings) {
                out.commands.push(command);
            }
        }
    }
    out
}

/// One MCP config of a plugin: its name in messages, and its text.
#[derive(Debug)]
pub struct ServerSource {
    /// The file (or `<plugin.json> mcpServers` for the manifest's inline object).
    pub shown: String,
    /// The config text, wrapped or flat.
    pub text: String,
}

/// The plugin's MCP configs: `.mcp.json` at the root, then the manifest's `mcpServers` (paths,
/// confined like the others, or an inline object). A file reached twice is read once.
pub fn server_sources(
    root: &Path,
    plugin: &str,
    manifest: &PluginManifest,
    warnings: &mut Vec<String>,
) -> Vec<ServerSource> {
    let mut sources = Vec::new();
    let Ok(bound) = Bound::new(root, "the plugin") else {
        return sources;
    };
    let confine = Confine { bound, plugin };
    let mut paths = vec![Place {
        path: root.join(".mcp.json"),
        shown: ".mcp.json".into(),
        explicit: false,
    }];
    let named: Vec<&str> = match &manifest.mcp_servers {
        Some(Value::String(path)) => vec![path.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(Value::Object(inline)) => {
            sources.push(ServerSource {
                shown: format!(
                    "{} mcpServers",
                    root.join(".claude-plugin/plugin.json").display()
                ),
                text: json!({ "mcpServers": inline }).to_string(),
            });
            Vec::new()
        }
        _ => Vec::new(),
    };
    paths.extend(named.into_iter().map(|relative| Place {
        path: root.join(relative),
        shown: format!("\"mcpServers\" path {relative:?}"),
        explicit: true,
    }));
    let mut seen = HashSet::new();
    for place in paths {
        let Some(path) = confine.place(&place, warnings) else {
            continue;
        };
        if !confine.item(&path, &mut seen, warnings) {
            continue;
        }
        match confine.bound.read(&path) {
            Ok(read) => {
                warnings.extend(read.warnings);
                sources.push(ServerSource {
                    shown: path.display().to_string(),
                    text: read.text,
                });
            }
            Err(error) => warnings.push(error),
        }
    }
    sources
}

/// Whether `dir` holds a SKILL.md of any kind (a FIFO or a link out is then refused by name
/// when read, never skipped in silence).
fn has_skill_md(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join("SKILL.md")).is_ok()
}

/// The skill folders under `dir`, the first [`MAX_ENTRIES`] by name (the rest reported in
/// `warnings`); a manifest path may also name one skill folder itself.
fn skill_dirs(dir: &Path, explicit: bool, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    if explicit && has_skill_md(dir) {
        return vec![dir.to_path_buf()];
    }
    let Some((entries, total)) = first_by_name(dir, MAX_ENTRIES) else {
        return Vec::new();
    };
    warnings.extend(entries_dropped(dir, total));
    entries
        .into_iter()
        .filter(|path| has_skill_md(path))
        .collect()
}

/// The plugin's root, resolved, and the checks that keep its items inside it.
struct Confine<'a> {
    bound: Bound,
    plugin: &'a str,
}

impl Confine<'_> {
    /// Where the plugin's files really are, if inside the root; `Err` with what it resolves to.
    fn resolve(&self, path: &Path) -> Result<PathBuf, String> {
        self.bound.resolve(path).map_err(|error| {
            // The bound's refusal names the path first; the callers name it their own way.
            let shown = path.display().to_string();
            let rest = error.strip_prefix(&shown).unwrap_or(&error);
            rest.trim_start_matches(':').trim_start().to_owned()
        })
    }

    /// The place, when it exists and stays inside the root. A missing default folder is
    /// silent; a missing manifest path is a warning.
    fn place(&self, place: &Place, warnings: &mut Vec<String>) -> Option<PathBuf> {
        if !place.path.exists() {
            if place.explicit {
                warnings.push(format!(
                    "plugin {}: {} does not exist; ignored",
                    self.plugin, place.shown
                ));
            }
            return None;
        }
        match self.resolve(&place.path) {
            Ok(_) => Some(place.path.clone()),
            Err(why) => {
                warnings.push(format!("plugin {}: {} {why}", self.plugin, place.shown));
                None
            }
        }
    }

    /// Whether the item at `path` loads: inside the root, and not loaded already.
    fn item(&self, path: &Path, seen: &mut HashSet<PathBuf>, warnings: &mut Vec<String>) -> bool {
        match self.resolve(path) {
            Ok(real) => seen.insert(real),
            Err(why) => {
                warnings.push(format!("plugin {}: {} {why}", self.plugin, path.display()));
                false
            }
        }
    }
}
