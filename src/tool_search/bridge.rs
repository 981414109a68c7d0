//! The bridge's two tools and their texts: `tool_search` (returns deferred definitions as its
//! result) and `call_tool` (runs a deferred tool by name). Everything here is a pure function of
//! its inputs, so the same catalog and the same call always give the same bytes.

use crate::json::{parse_str, quoted};
use crate::model::ToolDefinition;
use crate::registry::names::mcp_server_prefix;
use crate::registry::{Registry, ToolSpec};
use serde_json::{json, Map, Value};

/// Name of the search tool.
pub const TOOL_SEARCH: &str = "tool_search";

/// Name of the call tool.
pub const CALL_TOOL: &str = "call_tool";

/// `tool_search`'s definition: constant text, then the catalog `index` (see [`render_index`]).
pub fn tool_search_definition(index: &str, limit: u8) -> ToolDefinition {
    ToolDefinition {
        name: TOOL_SEARCH.to_owned(),
        description: format!(
            "Find tools that are not loaded yet and get their full definitions. Query with words \
             for the task, or select:NAME,NAME for exact names from the list below. Then call a \
             found tool with call_tool. Tools not loaded, by server:\n{index}"
        ),
        input_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words describing the task, or select:NAME,NAME"},
                "limit": {"type": "integer", "description": format!("Most definitions to return (default {limit})")},
            },
            "required": ["query"],
        }),
    }
}

/// `call_tool`'s definition.
pub fn call_tool_definition() -> ToolDefinition {
    ToolDefinition {
        name: CALL_TOOL.to_owned(),
        description: "Call a tool whose definition tool_search returned, with arguments that \
                      follow that definition's parameters."
            .to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name, e.g. mcp__github__list_issues"},
                "arguments": {"type": "object", "description": "The tool's arguments"},
            },
            "required": ["name", "arguments"],
        }),
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
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for spec in tools {
        let server = spec.server().unwrap_or("");
        match groups.iter_mut().find(|(s, _)| *s == server) {
            Some((_, names)) => names.push(bare_name(spec)),
            None => groups.push((server, vec![bare_name(spec)])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(b.0));
    groups
        .iter()
        .map(|(server, names)| {
            let server = if server.is_empty() { "host" } else { server };
            format!("{server}: {}", names.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
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
    let matches: Vec<&ToolSpec> = registry
        .tools()
        .iter()
        .filter(|t| t.server().is_some() && (bare_name(t) == name || t.call_name() == name))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(unknown_name(registry, name)),
        many => Err(format!(
            "error: {name} names several tools ({}); call_tool needs the full name",
            many.iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            name = quoted(name)
        )),
    }
}

/// "unknown tool", with up to five close names: those sharing the most name words.
fn unknown_name(registry: &Registry, name: &str) -> String {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty() && *w != "mcp")
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let wanted = words(name);
    let mut scored: Vec<(usize, &str)> = registry
        .tools()
        .iter()
        .map(|t| {
            let have = words(&t.name);
            let shared = wanted.iter().filter(|w| have.contains(w)).count();
            (shared, t.name.as_str())
        })
        .filter(|(shared, _)| *shared > 0)
        .collect();
    // Most shared words first; ties keep registry order (the sort is stable).
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    let close: Vec<&str> = scored.into_iter().take(5).map(|(_, n)| n).collect();
    let hint = if close.is_empty() {
        "use tool_search to find tools".to_owned()
    } else {
        format!("close names: {}", close.join(", "))
    };
    format!("error: unknown tool {name}; {hint}", name = quoted(name))
}

/// The result of a search that found `definitions` (each exactly as it would be in `tools`).
pub fn found_text(definitions: &[&str], native: bool) -> String {
    let how = if native {
        "call them by name, or with call_tool"
    } else {
        "call them with call_tool"
    };
    let mut text = format!("{} tool definitions found; {how}:", definitions.len());
    for definition in definitions {
        text.push('\n');
        text.push_str(definition);
    }
    text
}

/// The fixed answer when nothing matches: the servers that have tools to search, never
/// arbitrary tools.
pub fn no_match_text(query: &str, servers: &[String]) -> String {
    let servers = if servers.is_empty() {
        "none".to_owned()
    } else {
        servers.join(", ")
    };
    format!(
        "no tool matches {query}. Servers with tools to search: {servers}. Try other words, or \
         select:NAME with a name from tool_search's description.",
        query = quoted(query)
    )
}

/// The answer to a call of a deferred tool whose definition the model has not been given yet.
pub fn not_loaded_text(name: &str, definition: &str) -> String {
    format!(
        "not run: {name} was called before its definition was loaded. Here it is; check the \
         arguments against it and call again:\n{definition}"
    )
}
