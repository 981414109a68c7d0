//! The extension parsers for the JS layer, compiled into their own on-demand wasm module
//! (feature `wasm-ext`) so the runtime module carries none of them: `SKILL.md`,
//! `commands/*.md`, `plugin.json` and a plugin's `.mcp.json` → JSON records. The runtime takes
//! those records (`WasmAgent.addSkills`).
//!
//! Each function is pure and never throws on content: a file the core refuses comes back as
//! `{"error": "..."}` naming it.

use crate::config::ServerTransport;
use crate::ext::{
    frontmatter, parse_command_md, parse_plugin_servers, parse_skill_md, sanitize_plugin_name,
    skill_json, PluginManifest, Scope,
};
use crate::json::to_text;
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;

fn error(message: String) -> String {
    to_text(&json!({ "error": message }))
}

/// The name a text without a directory goes by: its frontmatter `name`, else `fallback`.
fn declared_name(text: &str, fallback: &str) -> String {
    frontmatter::parse(text)
        .ok()
        .and_then(|(fm, _)| fm.text("name"))
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
        .unwrap_or_else(|| fallback.to_owned())
}

/// Parses a `SKILL.md` text as the CLI does (`agentwire skills show --json` prints the same
/// record): `name` is its directory's name (empty: the frontmatter's `name`), `location` how
/// messages name it. Returns the record, or `{"error"}`.
#[wasm_bindgen(js_name = parseSkillText)]
pub fn parse_skill_text(text: &str, name: &str, location: &str) -> String {
    let name = if name.is_empty() {
        declared_name(text, "skill")
    } else {
        name.to_owned()
    };
    match parse_skill_md(location, &name, text, Scope::Host) {
        Ok(skill) => to_text(&skill_json(&skill)),
        Err(e) => error(e.to_string()),
    }
}

/// Parses a `commands/*.md` text named `name` (the file stem; `sub:name` for a nested one).
#[wasm_bindgen(js_name = parseCommandText)]
pub fn parse_command_text(text: &str, name: &str, location: &str) -> String {
    match parse_command_md(location, name, text, Scope::Host) {
        Ok(skill) => to_text(&skill_json(&skill)),
        Err(e) => error(e.to_string()),
    }
}

/// Parses `.claude-plugin/plugin.json` (`dir_name` names a plugin whose manifest does not):
/// `{name, version, description, skills, commands, mcpServers, ignored, warnings}` or
/// `{"error"}` naming the field.
#[wasm_bindgen(js_name = parsePluginManifestText)]
pub fn parse_plugin_manifest_text(text: &str, dir_name: &str, file: &str) -> String {
    let manifest = if text.is_empty() {
        PluginManifest::from_dir_name(dir_name)
            .ok_or_else(|| format!("{file}: {dir_name:?} is not a usable plugin name"))
    } else {
        PluginManifest::parse(file, dir_name, text).map_err(|e| e.to_string())
    };
    match manifest {
        Ok(m) => to_text(&json!({
            "name": m.name,
            "version": m.version,
            "description": m.description,
            "skills": m.skills,
            "commands": m.commands,
            "mcpServers": m.mcp_servers,
            "ignored": m.ignored,
            "warnings": m.warnings,
        })),
        Err(message) => error(message),
    }
}

/// Parses a plugin's `.mcp.json` (wrapped or flat) for plugin `plugin`; `${VAR}`s come from
/// `vars_json` (an object of strings). Returns `{servers: [{name, server, type, command?,
/// args?, env?, cwd?, url?, headers?, timeoutMs}], errors: [text], warnings: [text]}`; a broken
/// server fails alone.
#[wasm_bindgen(js_name = parsePluginServersText)]
pub fn parse_plugin_servers_text(text: &str, plugin: &str, file: &str, vars_json: &str) -> String {
    let vars: Map<String, Value> = match crate::json::parse_str(vars_json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let lookup = |key: &str| vars.get(key).and_then(Value::as_str).map(str::to_owned);
    let Some(part) = sanitize_plugin_name(plugin) else {
        return error(format!("{plugin:?} is not a usable plugin name"));
    };
    let (servers, errors, warnings) = parse_plugin_servers(file, text, &part, &lookup);
    let prefix = format!("plugin_{part}_");
    let servers: Vec<Value> = servers
        .iter()
        .map(|s| {
            let short = s.name.strip_prefix(&prefix).unwrap_or(&s.name);
            let mut v = json!({
                "name": s.name,
                "server": short,
                "timeoutMs": u64::try_from(s.timeout.as_millis()).unwrap_or(u64::MAX),
                "disabled": s.disabled,
            });
            match &s.transport {
                ServerTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    v["type"] = "stdio".into();
                    v["command"] = command.as_str().into();
                    v["args"] = json!(args);
                    let env: Map<String, Value> = env
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().into()))
                        .collect();
                    v["env"] = Value::Object(env);
                    v["cwd"] = json!(cwd);
                }
                ServerTransport::Http { url, headers, .. } => {
                    v["type"] = "http".into();
                    v["url"] = url.as_str().into();
                    let headers: Map<String, Value> = headers
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().into()))
                        .collect();
                    v["headers"] = Value::Object(headers);
                }
                _ => v["type"] = "other".into(),
            }
            v
        })
        .collect();
    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
    to_text(&json!({"servers": servers, "errors": errors, "warnings": warnings}))
}

/// One round of resolving project instructions (`agentwire/node`'s `loadInstructions` drives
/// it): `{sources, files, listings}` → `{need}` naming the files and folders still to read, or
/// `{instructions}`, or `{error}`. See [`crate::instructions::resolve_round`].
#[wasm_bindgen(js_name = resolveInstructionsRound)]
pub fn resolve_instructions_round(request_json: &str) -> String {
    match crate::json::parse_str(request_json) {
        Ok(request) => to_text(&crate::instructions::resolve_round(&request)),
        Err(e) => error(format!("instructions: the request is not JSON: {e}")),
    }
}

/// Reads a transcript (a session store's JSONL: a `session` header, then entries) as strictly
/// as the CLI reads a session file, and rebuilds its history: `{id, warnings, messages}` (the
/// messages in the runtime's `setHistory` shape), or `{"error": "line N: ..."}`. Here, not in
/// the runtime module: an agent reads its store once, when it is made.
#[wasm_bindgen(js_name = parseTranscriptText)]
pub fn parse_transcript_text(text: &str) -> String {
    match crate::transcript::parse_jsonl(text) {
        Ok(parsed) => {
            let messages: Vec<Value> = parsed
                .transcript
                .history()
                .iter()
                .map(crate::model::ChatMessage::to_value)
                .collect();
            to_text(&json!({
                "id": parsed.transcript.id,
                "warnings": parsed.warnings,
                "messages": messages,
            }))
        }
        Err(e) => error(e.to_string()),
    }
}
