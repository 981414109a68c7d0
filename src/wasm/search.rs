//! The tool_search lexical index for the JS layer: the on-demand module `search` (feature
//! `wasm-search`), loaded on an agent's first `tool_search`, so agents that never defer tools
//! never download it. The runtime module has no index of its own; the JS layer installs a
//! searcher that ranks here, with [`rank_tools`], the function the native core ranks with.

use crate::json::{parse_str, to_text};
use crate::tool_search::{rank_tools, ToolDoc, ToolIndex};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

fn parse_json(text: &str, what: &str) -> Result<Value, JsError> {
    parse_str(text).map_err(|e| JsError::new(&format!("{what} is not JSON: {e}")))
}

/// Reads the catalog the runtime hands its searcher: `[{name, server?, tool?, description?,
/// inputSchema?}]`, in catalog order; errors name the offending entry.
fn docs_from(catalog_json: &str) -> Result<Vec<ToolDoc>, JsError> {
    let Value::Array(entries) = parse_json(catalog_json, "the catalog")? else {
        return Err(JsError::new("the catalog must be an array"));
    };
    let mut docs = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let text = |key: &str| entry.get(key).and_then(Value::as_str);
        let name = text("name")
            .ok_or_else(|| JsError::new(&format!("catalog[{i}] has no string \"name\"")))?;
        docs.push(ToolDoc::from_definition(
            name,
            text("server").unwrap_or(""),
            text("tool").unwrap_or(name),
            text("description").unwrap_or(""),
            entry.get("inputSchema").unwrap_or(&Value::Null),
        ));
    }
    Ok(docs)
}

/// Reads a JSON array of names (a host's ranking).
fn names_from(json: &str) -> Result<Vec<String>, JsError> {
    match parse_json(json, "the host ranking")? {
        Value::Array(items) if items.iter().all(Value::is_string) => Ok(items
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()),
        _ => Err(JsError::new("the host ranking must be an array of names")),
    }
}

/// The ranking `tool_search` answers with, as a JSON array of names, best first, at most
/// `limit`: the index's, fused with `host_json`'s (a JSON array of names) when given.
#[wasm_bindgen(js_name = rankTools)]
pub fn rank_tools_json(
    query: &str,
    catalog_json: &str,
    limit: u32,
    host_json: Option<String>,
) -> Result<String, JsError> {
    let docs = docs_from(catalog_json)?;
    let host = host_json.as_deref().map(names_from).transpose()?;
    let names = rank_tools(docs, query, limit as usize, host.as_deref());
    Ok(to_text(&Value::from(names)))
}

/// The index's own hits, as a JSON array of `{name, score}`, best first, at most `limit`.
#[wasm_bindgen(js_name = searchTools)]
pub fn search_tools_json(query: &str, catalog_json: &str, limit: u32) -> Result<String, JsError> {
    let index = ToolIndex::new(docs_from(catalog_json)?);
    let hits: Vec<Value> = index
        .search(query, limit as usize)
        .into_iter()
        .map(|hit| json!({"name": hit.name, "score": hit.score}))
        .collect();
    Ok(to_text(&Value::Array(hits)))
}
