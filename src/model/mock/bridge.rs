//! The mock model behind deferred tool loading: when the tool it wants is deferred, it searches
//! with `select:<name>`, then calls it through `call_tool`, then answers (3 steps instead of 2).

use crate::model::{ChatMessage, ModelRequest, ToolDefinition, CALL_TOOL, TOOL_SEARCH};
use serde_json::{json, Value};

/// The deferred tools listed in `tool_search`'s description (`server: a, b` lines), as
/// definitions with full names and nothing else; empty when no tool is deferred.
pub(super) fn deferred_tools(tools: &[ToolDefinition]) -> Vec<ToolDefinition> {
    let Some(search) = tools.iter().find(|t| t.name == TOOL_SEARCH) else {
        return Vec::new();
    };
    if !tools.iter().any(|t| t.name == CALL_TOOL) {
        return Vec::new();
    }
    let Some((_, index)) = search.description.split_once('\n') else {
        return Vec::new();
    };
    index
        .lines()
        .filter_map(|line| line.split_once(": "))
        .flat_map(|(server, names)| {
            names.split(", ").map(move |bare| ToolDefinition {
                name: format!("mcp__{server}__{bare}"),
                description: String::new(),
                input_schema: Value::Null,
            })
        })
        .collect()
}

/// Whether `name` is sent directly in the request.
pub(super) fn is_direct(request: &ModelRequest, name: &str) -> bool {
    request.tools.iter().any(|t| t.name == name)
}

/// The `tool_search` call that loads `name`.
pub(super) fn search(name: &str) -> (&'static str, Value) {
    (TOOL_SEARCH, json!({"query": format!("select:{name}")}))
}

/// The `call_tool` call of `name` with `arguments`, once a search result in the conversation
/// carries `name`'s definition.
pub(super) fn call(request: &ModelRequest, name: &str, arguments: Value) -> Option<Value> {
    let quoted = format!("\"name\":{}", crate::json::quoted(name));
    let loaded = request.messages.iter().any(|m| {
        matches!(m, ChatMessage::Tool { name: tool, content, is_error: false, .. }
                 if tool == TOOL_SEARCH && content.contains(&quoted))
    });
    loaded.then(|| json!({"name": name, "arguments": arguments}))
}

/// A result's tool and arguments as the answer should describe them: the target of a
/// `call_tool`, else the call itself.
pub(super) fn unwrap_call(name: &str, arguments: Value) -> (String, Value) {
    if name == CALL_TOOL {
        if let Some(target) = arguments.get("name").and_then(Value::as_str) {
            let inner = arguments.get("arguments").cloned().unwrap_or(Value::Null);
            return (target.to_owned(), inner);
        }
    }
    (name.to_owned(), arguments)
}
