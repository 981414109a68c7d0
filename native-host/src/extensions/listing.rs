//! What `/skills`, `/plugins`, `/help`, `agentwire skills …` and `agentwire plugins …` print.

use super::discover::ItemFile;
use super::session::Extensions;
use crate::app::App;
use crate::repl_commands::HelpEntry;
use serde_json::{json, Value};

/// `"skill"` or `"command"`, and the item.
fn items(extensions: &Extensions) -> impl Iterator<Item = (&'static str, &ItemFile)> {
    let found = &extensions.found;
    found
        .skills
        .iter()
        .map(|s| ("skill", s))
        .chain(found.commands.iter().map(|c| ("command", c)))
}

/// The qualified name of a found item: `group:name` for a command in a subdirectory.
fn qualified(item: &ItemFile) -> String {
    match &item.group {
        Some(group) => format!("{group}:{}", item.name),
        None => item.name.clone(),
    }
}

/// One item as `skills list --json` shows it.
fn item_json(kind: &str, item: &ItemFile) -> Value {
    json!({
        "name": item.name,
        "qualified": qualified(item),
        "kind": kind,
        "source": item.scope.as_str(),
        "location": item.path.display().to_string(),
        "files": item.files.len(),
        "filesCut": item.files_cut,
        "warnings": item.warnings,
    })
}

/// `skills list --json`.
pub fn skills_json(extensions: &Extensions) -> Value {
    let skills: Vec<Value> = items(extensions).map(|(k, i)| item_json(k, i)).collect();
    json!({"skills": skills, "errors": extensions.found.errors})
}

/// `plugins list --json`.
pub fn plugins_json(extensions: &Extensions) -> Value {
    let plugins: Vec<Value> = extensions
        .found
        .plugins
        .iter()
        .map(|p| {
            json!({
                "root": p.root.display().to_string(),
                "scope": p.scope.as_str(),
                "loaded": p.not_loaded.is_none(),
                "reason": p.not_loaded,
            })
        })
        .collect();
    json!({"plugins": plugins})
}

/// The user-invocable skills and commands, for `/help`.
pub fn help_entries(app: &App) -> Vec<HelpEntry> {
    items(&app.extensions.borrow())
        .map(|(_, item)| HelpEntry {
            name: qualified(item),
            hint: None,
            description: String::new(),
            source: item.scope.as_str().to_owned(),
        })
        .collect()
}

/// `/skills` and `agentwire skills list`.
pub fn print_skills(extensions: &Extensions) {
    let mut any = false;
    for (kind, item) in items(extensions) {
        any = true;
        crate::outln!(
            "/{}  {kind}, {}: {}",
            qualified(item),
            item.scope.as_str(),
            item.path.display()
        );
        for warning in &item.warnings {
            crate::outln!("    warning: {warning}");
        }
    }
    for error in &extensions.found.errors {
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
    for plugin in &extensions.found.plugins {
        match &plugin.not_loaded {
            None => crate::outln!("{} ({})", plugin.root.display(), plugin.scope.as_str()),
            Some(reason) => crate::outln!("{reason}"),
        }
    }
}
