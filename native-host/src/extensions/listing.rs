//! What `/skills`, `/plugins`, `/help`, `agentwire skills …` and `agentwire plugins …` print.

use super::discover::ItemFile;
use super::session::Extensions;
use crate::app::App;
use crate::repl_commands::HelpEntry;
use serde_json::{json, Value};

/// One skill or command as listed: its kind, file, source label and qualified name.
struct Entry<'a> {
    kind: &'static str,
    item: &'a ItemFile,
    source: String,
    qualified: String,
}

/// Every skill and command: user and project ones (skills, then commands), then each
/// plugin's, qualified `plugin:name`.
fn items(extensions: &Extensions) -> Vec<Entry<'_>> {
    let found = &extensions.found;
    let mut entries = Vec::new();
    for (kind, list) in [("skill", &found.skills), ("command", &found.commands)] {
        for item in list {
            entries.push(Entry {
                kind,
                item,
                source: item.scope.as_str().to_owned(),
                qualified: match &item.group {
                    Some(group) => format!("{group}:{}", item.name),
                    None => item.name.clone(),
                },
            });
        }
    }
    for plugin in &extensions.plugins {
        for (kind, list) in [("skill", &plugin.skills), ("command", &plugin.commands)] {
            for item in list {
                entries.push(Entry {
                    kind,
                    item,
                    source: format!("plugin:{}", plugin.name),
                    qualified: format!("{}:{}", plugin.name, item.name),
                });
            }
        }
    }
    entries
}

/// One item as `skills list --json` shows it.
fn item_json(entry: &Entry) -> Value {
    let item = entry.item;
    json!({
        "name": item.name,
        "qualified": entry.qualified,
        "kind": entry.kind,
        "source": entry.source,
        "location": item.path.display().to_string(),
        "files": item.files.len(),
        "filesCut": item.files_cut,
        "warnings": item.warnings,
    })
}

/// `skills list --json`.
pub fn skills_json(extensions: &Extensions) -> Value {
    let skills: Vec<Value> = items(extensions).iter().map(item_json).collect();
    let errors: Vec<&String> = extensions
        .found
        .errors
        .iter()
        .chain(&extensions.plugin_errors)
        .collect();
    json!({"skills": skills, "errors": errors})
}

/// `plugins list --json`: the loaded plugins, then those found but not loaded.
pub fn plugins_json(extensions: &Extensions) -> Value {
    let names = |list: &[ItemFile]| list.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
    let mut plugins: Vec<Value> = extensions
        .plugins
        .iter()
        .map(|p| {
            let servers: Vec<&str> = p.servers.iter().map(|s| s.name.as_str()).collect();
            json!({
                "name": p.name,
                "version": p.version,
                "root": p.root.display().to_string(),
                "scope": p.scope.as_str(),
                "loaded": true,
                "skills": names(&p.skills),
                "commands": names(&p.commands),
                "servers": servers,
                "ignored": p.ignored,
                "warnings": p.warnings,
            })
        })
        .collect();
    for root in &extensions.found.plugins {
        if let Some(reason) = &root.not_loaded {
            plugins.push(json!({
                "root": root.root.display().to_string(),
                "scope": root.scope.as_str(),
                "loaded": false,
                "reason": reason,
            }));
        }
    }
    json!({"plugins": plugins, "errors": extensions.plugin_errors})
}

/// The user-invocable skills and commands, for `/help`.
pub fn help_entries(app: &App) -> Vec<HelpEntry> {
    items(&app.extensions.borrow())
        .into_iter()
        .map(|entry| HelpEntry {
            name: entry.qualified,
            hint: None,
            description: String::new(),
            source: entry.source,
        })
        .collect()
}

/// `/skills` and `agentwire skills list`.
pub fn print_skills(extensions: &Extensions) {
    let mut any = false;
    for entry in items(extensions) {
        any = true;
        crate::outln!(
            "/{}  {}, {}: {}",
            entry.qualified,
            entry.kind,
            entry.source,
            entry.item.path.display()
        );
        for warning in &entry.item.warnings {
            crate::outln!("    warning: {warning}");
        }
    }
    for error in extensions
        .found
        .errors
        .iter()
        .chain(&extensions.plugin_errors)
    {
        crate::outln!("error: {error}");
    }
    if !any {
        crate::outln!("no skills or commands (looked in ~/.claude and the project's .claude)");
    }
}

/// `/plugins` and `agentwire plugins list`.
pub fn print_plugins(extensions: &Extensions) {
    if extensions.found.plugins.is_empty() {
        crate::outln!("no plugins (--plugin-dir DIR loads one)");
    }
    for plugin in &extensions.plugins {
        let version = plugin
            .version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        crate::outln!(
            "{}{version} ({}, {}): {} skills, {} commands, {} servers",
            plugin.name,
            plugin.scope.as_str(),
            plugin.root.display(),
            plugin.skills.len(),
            plugin.commands.len(),
            plugin.servers.len()
        );
        for line in plugin.ignored.iter().chain(&plugin.warnings) {
            crate::outln!("    {line}");
        }
    }
    for reason in extensions
        .found
        .plugins
        .iter()
        .filter_map(|p| p.not_loaded.as_ref())
    {
        crate::outln!("{reason}");
    }
    for error in &extensions.plugin_errors {
        crate::outln!("error: {error}");
    }
}
