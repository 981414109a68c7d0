//! What `/skills`, `/plugins`, `/help`, `agentwire skills …` and `agentwire plugins …` print.

use crate::app::App;
use crate::cli::repl_commands::HelpEntry;
use crate::extensions::discover::ItemFile;
use crate::extensions::session::Extensions;
use agentwire::ext::{Skill, SkillKind, DEFAULT_CATALOG_CHARS};
use serde_json::{json, Value};

/// Every problem: unreadable files, plugins not read, files the core could not parse.
fn errors(extensions: &Extensions) -> Vec<&String> {
    extensions
        .found
        .errors
        .iter()
        .chain(&extensions.plugin_errors)
        .chain(&extensions.parsed.errors)
        .collect()
}

fn kind(skill: &Skill) -> &'static str {
    match skill.kind {
        SkillKind::Skill => "skill",
        _ => "command",
    }
}

/// One item as `skills list --json` shows it.
fn item_json(skill: &Skill) -> Value {
    json!({
        "name": skill.name,
        "qualified": skill.qualified,
        "kind": kind(skill),
        "source": skill.scope.label(),
        "location": skill.location,
        "description": skill.description,
        "modelInvocable": skill.model_invocable,
        "userInvocable": skill.user_invocable,
        "argumentHint": skill.argument_hint,
        "files": skill.files.len(),
        "ignoredFields": skill.ignored_fields,
        "warnings": skill.warnings,
    })
}

/// `skills list --json`.
pub fn skills_json(extensions: &Extensions) -> Value {
    let set = &extensions.parsed.set;
    let skills: Vec<Value> = set.items().into_iter().map(item_json).collect();
    let collisions: Vec<Value> = extensions
        .parsed
        .collisions
        .iter()
        .map(|c| json!({"name": c.name, "winner": c.winner, "shadowed": c.shadowed, "message": c.message}))
        .collect();
    let catalog = set.catalog(DEFAULT_CATALOG_CHARS);
    json!({
        "skills": skills,
        "collisions": collisions,
        "catalogChars": catalog.text.chars().count(),
        "errors": errors(extensions),
        "warnings": extensions.found.warnings,
    })
}

/// `skills show NAME`: every field, the body and its size, the bundled files; the same record
/// the npm package's `parseSkill` returns.
pub fn show_json(skill: &Skill) -> Value {
    agentwire::ext::skill_json(skill)
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
    let extensions = app.extensions.borrow();
    extensions
        .parsed
        .set
        .items()
        .into_iter()
        .filter(|skill| skill.user_invocable)
        .map(|skill| HelpEntry {
            name: skill.qualified.clone(),
            hint: skill.argument_hint.clone(),
            description: skill.description.clone(),
            source: skill.scope.label(),
        })
        .collect()
}

/// `/skills` and `agentwire skills list`.
pub fn print_skills(extensions: &Extensions) {
    let items = extensions.parsed.set.items();
    if items.is_empty() {
        crate::outln!("no skills or commands (looked in ~/.claude and the project's .claude)");
    }
    for skill in items {
        crate::outln!(
            "/{}  {} [{}, {}]",
            skill.qualified,
            skill.description,
            kind(skill),
            skill.scope.label()
        );
        for note in skill.warnings.iter().chain(&skill.ignored_fields) {
            crate::outln!("    warning: {note}");
        }
    }
    for collision in &extensions.parsed.collisions {
        crate::outln!("warning: {}", collision.message);
    }
    for warning in &extensions.found.warnings {
        crate::outln!("warning: {warning}");
    }
    for error in errors(extensions) {
        crate::outln!("error: {error}");
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
