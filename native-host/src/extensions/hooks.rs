//! Where a session's hooks come from, merged as Claude Code merges them: the user's
//! `~/.claude/settings.json`, the project's `.claude/settings.json` and
//! `.claude/settings.local.json`, each `--settings FILE`, and every plugin's `hooks/hooks.json`
//! (or the manifest's `hooks`), all added up; the core runs an identical handler once.
//!
//! Trust: the project's files and the plugins inside the workspace are the repository's, not
//! the user's. In an untrusted workspace their hooks are listed (`agentwire hooks list`) but
//! never start a process; one line at start says so. `disableAllHooks: true` counts only from
//! the user's own files (a repository must not switch off the user's guards).

use super::read::Bound;
use super::session::Extensions;
use crate::os::config_file::read_config;
use agentwire::hooks::{HookSet, HookSource};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why a hook from an untrusted workspace does not run.
pub const UNTRUSTED: &str =
    "the workspace is not trusted (`agentwire trust`, or --trust-workspace)";

/// A session's hooks and what to say about them at start.
#[derive(Debug, Default)]
pub struct SessionHooks {
    /// Every hook found, runnable or blocked.
    pub set: HookSet,
    /// Problems, each naming its file.
    pub warnings: Vec<String>,
    /// The one line saying that some hooks will not run, and why.
    pub blocked_notice: Option<String>,
    /// The files read, with their scope label, for listings.
    pub files: Vec<(String, PathBuf)>,
}

/// Reads the hooks for a session: `extensions` gives the places (home, project, trust, bare)
/// and the plugins; `settings_files` are the user's `--settings` files (trusted).
pub fn load_hooks(extensions: &Extensions, settings_files: &[PathBuf]) -> SessionHooks {
    let mut hooks = SessionHooks::default();
    let places = &extensions.places;
    let trusted = places.trusted;
    let cwd = extensions.cwd();
    let mut user_files = Vec::new();
    if !places.bare {
        if let Some(home) = &places.home {
            user_files.push(("user", home.join(".claude/settings.json")));
        }
    }
    user_files.extend(settings_files.iter().map(|f| ("--settings", f.clone())));
    let mut disabled_by = None;
    for (scope, path) in &user_files {
        if let Some(settings) = read_settings(path, &mut hooks.warnings, true) {
            if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
                disabled_by.get_or_insert_with(|| path.display().to_string());
            }
            add(&mut hooks, &settings, scope, path, None, None);
        }
    }
    if !places.bare {
        for name in ["settings.json", "settings.local.json"] {
            let path = cwd.join(".claude").join(name);
            let Some(settings) = read_settings(&path, &mut hooks.warnings, false) else {
                continue;
            };
            let blocked = (!trusted).then(|| UNTRUSTED.to_owned());
            add(&mut hooks, &settings, "project", &path, None, blocked);
        }
    }
    for plugin in &extensions.plugins {
        if let Some((shown, settings)) = plugin_hooks(&plugin.root, &mut hooks.warnings) {
            let root = plugin
                .vars
                .iter()
                .find(|(k, _)| k == "CLAUDE_PLUGIN_ROOT")
                .map(|(_, v)| v.clone());
            let label = format!("plugin {}", plugin.name);
            add(&mut hooks, &settings, &label, Path::new(&shown), root, None);
        }
    }
    // Project plugins of an untrusted workspace are not loaded: their hooks are listed only.
    for root in extensions
        .found
        .plugins
        .iter()
        .filter(|p| p.not_loaded.is_some())
    {
        if let Some((shown, settings)) = plugin_hooks(&root.root, &mut Vec::new()) {
            let label = format!("plugin at {}", root.root.display());
            let blocked = Some(UNTRUSTED.to_owned());
            let root_text = Some(root.root.display().to_string());
            add(
                &mut hooks,
                &settings,
                &label,
                Path::new(&shown),
                root_text,
                blocked,
            );
        }
    }
    if let Some(file) = disabled_by {
        let mut all = HookSet::new();
        for mut spec in hooks.set.specs().iter().cloned() {
            spec.source
                .blocked
                .get_or_insert_with(|| format!("disableAllHooks in {file}"));
            all.push(spec);
        }
        hooks.set = all;
    }
    let blocked = hooks
        .set
        .specs()
        .iter()
        .filter(|s| s.source.blocked.as_deref() == Some(UNTRUSTED))
        .count();
    if blocked > 0 {
        hooks.blocked_notice = Some(format!(
            "warning: {blocked} hook(s) of the project in {} do not run: {UNTRUSTED}; \
             `agentwire hooks list` shows them",
            cwd.display()
        ));
    }
    hooks
}

fn add(
    hooks: &mut SessionHooks,
    settings: &Value,
    scope: &str,
    path: &Path,
    plugin_root: Option<String>,
    blocked: Option<String>,
) {
    let source = HookSource {
        label: format!("{scope}: {}", path.display()),
        plugin_root,
        blocked,
    };
    hooks
        .warnings
        .extend(hooks.set.add_settings(settings, &source));
    if settings.get("hooks").is_some() {
        hooks.files.push((scope.to_owned(), path.to_path_buf()));
    }
}

/// The settings object in `path`, or `None` when there is no such file (silently) or it is
/// unreadable or not JSON (with a warning naming it). `user` files may be anywhere; project
/// files are read with the same regular-file, bounded discipline.
fn read_settings(path: &Path, warnings: &mut Vec<String>, user: bool) -> Option<Value> {
    if std::fs::symlink_metadata(path).is_err() {
        if user && path.file_name().is_some_and(|n| n != "settings.json") {
            warnings.push(format!("--settings {}: no such file", path.display()));
        }
        return None;
    }
    let text = match read_config(path) {
        Ok(text) => text,
        Err(error) => {
            warnings.push(error);
            return None;
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Some(value),
        Ok(_) => {
            warnings.push(format!(
                "{}: settings must be a JSON object",
                path.display()
            ));
            None
        }
        Err(error) => {
            warnings.push(format!("{}: invalid JSON: {error}", path.display()));
            None
        }
    }
}

/// A plugin's hooks: `hooks/hooks.json`, else the manifest's `hooks` (an object, or a path
/// inside the plugin), read inside the plugin's root. Returns the file shown and its object.
pub fn plugin_hooks(root: &Path, warnings: &mut Vec<String>) -> Option<(String, Value)> {
    let bound = Bound::new(root, "the plugin").ok()?;
    let read = |path: &Path, warnings: &mut Vec<String>| -> Option<Value> {
        let text = bound.read(path).map_err(|e| warnings.push(e)).ok()?.text;
        serde_json::from_str::<Value>(&text)
            .map_err(|e| warnings.push(format!("{}: invalid JSON: {e}", path.display())))
            .ok()
    };
    let file = root.join("hooks/hooks.json");
    if std::fs::symlink_metadata(&file).is_ok() {
        return read(&file, warnings).map(|v| (file.display().to_string(), v));
    }
    let manifest = root.join(".claude-plugin/plugin.json");
    let manifest_value = read(&manifest, &mut Vec::new())?;
    match manifest_value.get("hooks")? {
        Value::String(relative) => {
            let path = root.join(relative);
            read(&path, warnings).map(|v| (path.display().to_string(), v))
        }
        inline @ Value::Object(_) => {
            let wrapped = serde_json::json!({ "hooks": inline.get("hooks").unwrap_or(inline) });
            Some((manifest.display().to_string(), wrapped))
        }
        _ => None,
    }
}
