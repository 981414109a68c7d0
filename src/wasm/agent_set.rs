//! The npm package's `agents` option, read in the on-demand `ext` module (feature `wasm-ext`):
//! the definitions checked, precedence resolved and the `Agent` tool's catalog rendered here,
//! so the runtime module takes a finished record ([`crate::subagent::definition_from_record`])
//! and carries none of the parsing. The JS layer loads `ext` when an agent has `agents`.

use crate::json::to_text;
use crate::subagent::{agent_set_from_json, definition_to_record, DEFAULT_AGENT_CATALOG_CHARS};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// Reads the `agents` option (`agents_json`, a JSON array of agent objects) as the runtime
/// would: `{description, schema, agents}` (the `Agent` tool's description and input schema,
/// every agent's record, the built-in one included), or `{"error"}` naming the first bad agent.
#[wasm_bindgen(js_name = agentSetRecord)]
pub fn agent_set_record(agents_json: &str) -> String {
    let list = crate::json::parse_str(agents_json).unwrap_or(Value::Null);
    match agent_set_from_json(&list) {
        Ok(set) => {
            let (description, schema) = set
                .tool_text(DEFAULT_AGENT_CATALOG_CHARS)
                .unwrap_or_default();
            let agents: Vec<Value> = set.sorted().into_iter().map(definition_to_record).collect();
            to_text(&json!({"description": description, "schema": schema, "agents": agents}))
        }
        Err(e) => to_text(&json!({ "error": e })),
    }
}
