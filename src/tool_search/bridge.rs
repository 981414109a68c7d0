//! The bridge's two tools and their texts: `tool_search` (returns deferred definitions as its
//! result) and `call_tool` (runs a deferred tool by name). Everything here is a pure function of
//! its inputs, so the same catalog and the same call always give the same bytes.

use crate::json::{parse_str, quoted};
use crate::model::ToolDefinition;
use crate::registry::names::mcp_server_prefix;
use crate::registry::{Registry, ToolSpec};
use serde_json::{Map, Value};

pub use crate::model::{CALL_TOOL, TOOL_SEARCH};

/// `tool_search`'s definition: constant text, then the catalog `index` (see [`render_index`]).
pub fn tool_search_definition(index: &str, limit: u8) -> ToolDefinition {
    let mut description = String::from(
        "Find tools that are not loaded yet and get their full definitions. Query with words \
         for the task, or select:NAME,NAME for exact names from the list below. Then call a \
         found tool with call_tool. Tools not loaded, by server:\n",
    );
    description.push_str(index);
    let mut schema = String::from(
        r#"{"type":"object","properties":{"query":{"type":"string","description":"Words describing the task, or select:NAME,NAME"},"limit":{"type":"integer","description":"Most definitions to return (default "#,
    );
    schema.push_str(&limit.to_string());
    schema.push_str(r#")"}},"required":["query"]}"#);
    definition(TOOL_SEARCH, description, &schema)
}

/// `call_tool`'s definition.
pub fn call_tool_definition() -> ToolDefinition {
    definition(
        CALL_TOOL,
        "Call a tool whose definition tool_search returned, with arguments that follow that \
         definition's parameters."
            .to_owned(),
        r#"{"type":"object","properties":{"name":{"type":"string","description":"The tool's name, e.g. mcp__github__list_issues"},"arguments":{"type":"object","description":"The tool's arguments"}},"required":["name","arguments"]}"#,
    )
}

/// A bridge tool's definition with its input schema given as JSON text: one parse instead of a
/// `json!` tree built by code (smaller in the wasm module). The texts are constants, pinned
/// byte for byte by the tests, so the parse cannot fail.
fn definition(name: &str, description: String, schema: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        description,
        input_schema: parse_str(schema).unwrap_or_default(),
    }
}

/// The part of `spec`'s model-facing name after `mcp__<server>__` (the whole name otherwise).
pub fn bare_name(spec: &ToolSpec) -> &str {
    match spec.server() {
        Some(server) => spec
            .name
            .strip_prefix(&mcp_server_prefix(server))
            .and_then(|rest| rest.strip_prefix("__"))
            .unwrap_or(&spec.name),
        None => &spec.name,
    }
}

/// One line per server, servers sorted, tools in list order: `github: get_issue, list_issues`.
/// Tools without a server come first under `host`.
pub fn render_index<'a>(tools: impl IntoIterator<Item = &'a ToolSpec>) -> String {
    // Groups kept sorted by server as they are created (a plain loop, no sort instance).
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for spec in tools {
        let server = spec.server().unwrap_or("");
        let mut at = 0;
        while at < groups.len() && groups[at].0 < server {
            at += 1;
        }
        if at == groups.len() || groups[at].0 != server {
            groups.insert(at, (server, Vec::new()));
        }
        groups[at].1.push(bare_name(spec));
    }
    let mut text = String::new();
    for (server, names) in &groups {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(if server.is_empty() { "host" } else { server });
        text.push_str(": ");
        text.push_str(&names.join(", "));
    }
    text
}

/// `tool_search`'s arguments: the query and the limit (the default when absent or invalid,
/// capped at 20).
pub fn search_arguments(arguments: &Value, default_limit: u8) -> Result<(String, usize), String> {
    let query = match arguments.get("query") {
        Some(Value::String(q)) if !q.trim().is_empty() => q.trim().to_owned(),
        _ => return Err("error: tool_search needs a non-empty string \"query\"".to_owned()),
    };
    let limit = arguments
        .get("limit")
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .map_or(usize::from(default_limit), |n| n.min(20) as usize);
    Ok((query, limit))
}

/// `call_tool`'s arguments: the name and the target's arguments (an object, or a JSON text of
/// one, as some models send it).
pub fn call_arguments(arguments: &Value) -> Result<(String, Value), String> {
    let name = match arguments.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.trim().to_owned(),
        _ => return Err("error: call_tool needs a string \"name\" (the tool to call)".to_owned()),
    };
    let inner = match arguments.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(text)) => parse_str(text).map_err(|e| {
            format!(
                "error: call_tool's \"arguments\" for {name} are not valid JSON: {e}",
                name = quoted(&name)
            )
        })?,
        Some(other) => other.clone(),
    };
    Ok((name, inner))
}

/// The registry tool `name` designates: its full model-facing name, or a bare name (the part
/// after `mcp__<server>__`, or the server's own name for it) that only one tool has.
pub fn resolve_name<'a>(registry: &'a Registry, name: &str) -> Result<&'a ToolSpec, String> {
    if let Some(spec) = registry.get(name) {
        return Ok(spec);
    }
    // Plain loops: no iterator adapter or `collect` instances in the wasm build.
    let mut matches: Vec<&ToolSpec> = Vec::new();
    for tool in registry.tools() {
        if tool.server().is_some() && (bare_name(tool) == name || tool.call_name() == name) {
            matches.push(tool);
        }
    }
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(unknown_name(registry, name)),
        many => {
            let mut text = String::from("error: ");
            text.push_str(&quoted(name).to_string());
            text.push_str(" names several tools (");
            for (i, tool) in many.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                text.push_str(&tool.name);
            }
            text.push_str("); call_tool needs the full name");
            Err(text)
        }
    }
}

/// "unknown tool", with up to five close names: those sharing the most name words.
fn unknown_name(registry: &Registry, name: &str) -> String {
    let wanted = name_words(name);
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for tool in registry.tools() {
        let have = name_words(&tool.name);
        let shared = wanted.iter().filter(|w| have.contains(w)).count();
        if shared > 0 {
            scored.push((shared, tool.name.as_str()));
        }
    }
    let mut text = String::from("error: unknown tool ");
    text.push_str(&quoted(name).to_string());
    text.push_str("; ");
    if scored.is_empty() {
        text.push_str("use tool_search to find tools");
        return text;
    }
    text.push_str("close names: ");
    // Most shared words first, ties in registry order: repeated selection of the first best
    // (five at most, so no sort is needed).
    for n in 0..5 {
        let mut best = 0;
        for at in 1..scored.len() {
            if scored[at].0 > scored[best].0 {
                best = at;
            }
        }
        if n > 0 {
            text.push_str(", ");
        }
        text.push_str(scored.remove(best).1);
        if scored.is_empty() {
            break;
        }
    }
    text
}

/// The lower-cased ASCII words of a tool name, without `mcp`.
fn name_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    for word in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !word.is_empty() && word != "mcp" {
            words.push(word.to_ascii_lowercase());
        }
    }
    words
}

/// The result of a search that found `definitions` (each exactly as it would be in `tools`).
pub fn found_text(definitions: &[String], native: bool) -> String {
    let mut text = definitions.len().to_string();
    text.push_str(if native {
        " tool definitions found; call them by name, or with call_tool:"
    } else {
        " tool definitions found; call them with call_tool:"
    });
    for definition in definitions {
        text.push('\n');
        text.push_str(definition);
    }
    text
}

/// The fixed answer when nothing matches: the servers that have tools to search, never
/// arbitrary tools.
pub fn no_match_text(query: &str, servers: &[&str]) -> String {
    let mut text = String::from("no tool matches ");
    text.push_str(&quoted(query).to_string());
    text.push_str(". Servers with tools to search: ");
    text.push_str(&if servers.is_empty() {
        "none".to_owned()
    } else {
        servers.join(", ")
    });
    text.push_str(". Try other words, or select:NAME with a name from tool_search's description.");
    text
}

/// The answer to a call of a deferred tool whose definition the model has not been given yet.
pub fn not_loaded_text(name: &str, definition: &str) -> String {
    let mut text = String::from("not run: ");
    text.push_str(name);
    text.push_str(
        " was called before its definition was loaded. Here it is; check the arguments \
         against it and call again:\n",
    );
    text.push_str(definition);
    text
}
