//! Streamable HTTP in the modern era (2026-07-28): no session id and no `GET` stream; every
//! `POST` names its method in `Mcp-Method` (and its tool, prompt or resource in `Mcp-Name`),
//! carries the `MCP-Protocol-Version` of its own `_meta`, and mirrors the tool parameters a tool
//! declares with `x-mcp-header` into `Mcp-Param-{Name}` headers (SEP-2243).
//!
//! The machine tells the eras apart by the messages themselves: a request whose `_meta` names a
//! protocol version is modern. The declarations are learned from the `tools/list` results that
//! pass through, so the session above needs to know nothing about headers.

use super::machine::StreamableHttp;
use crate::jsonrpc::{Id, Request};
use crate::mcp::meta::META_PROTOCOL_VERSION;
use crate::mcp::param_headers::{bindings, encode_text, header_value, Binding};
use crate::vec_map::VecMap;
use serde_json::Value;

/// Most tools whose header declarations are remembered (a server listing more gets no
/// `Mcp-Param-*` headers for the rest, rather than unbounded memory).
const MAX_TOOLS_REMEMBERED: usize = 10_000;

/// What the machine remembers for modern requests.
#[derive(Debug, Default)]
pub(crate) struct ModernState {
    /// Whether a modern request was seen: notifications then carry `Mcp-Method` too.
    pub seen: bool,
    /// Ids of `tools/list` requests in flight, whose results declare parameter headers.
    tool_lists: Vec<Id>,
    /// Each tool's declared parameter headers (valid declarations only).
    tools: VecMap<String, Vec<Binding>>,
}

/// The protocol version a modern request's `_meta` names.
pub(crate) fn modern_version(request: &Request) -> Option<&str> {
    request
        .params
        .as_ref()?
        .get("_meta")?
        .get(META_PROTOCOL_VERSION)?
        .as_str()
}

impl StreamableHttp {
    /// Adds the modern headers of a `POST` carrying `request` (a request or, with no id, a
    /// notification named `method`).
    pub(crate) fn add_modern_headers(
        &mut self,
        method: &str,
        request: Option<&Request>,
        headers: &mut Vec<(String, String)>,
    ) {
        let version = request.and_then(modern_version);
        if version.is_some() {
            self.modern.seen = true;
        }
        if !self.modern.seen {
            return;
        }
        let own = ["mcp-method", "mcp-name", "mcp-protocol-version"];
        headers.retain(|(name, _)| {
            let name = name.to_ascii_lowercase();
            !own.contains(&name.as_str()) && !name.starts_with("mcp-param-")
        });
        if let Some(version) = version {
            headers.push(("MCP-Protocol-Version".into(), version.to_owned()));
        }
        headers.push(("Mcp-Method".into(), method.to_owned()));
        let Some(request) = request else { return };
        let params = request.params.as_ref();
        let field = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str);
        let name = match method {
            "tools/call" | "prompts/get" => field("name"),
            "resources/read" => field("uri"),
            _ => None,
        };
        if let Some(name) = name {
            headers.push(("Mcp-Name".into(), encode_text(name)));
        }
        match method {
            "tools/list" => self.modern.tool_lists.push(request.id.clone()),
            "tools/call" => {
                let (Some(tool), Some(arguments)) =
                    (field("name"), params.and_then(|p| p.get("arguments")))
                else {
                    return;
                };
                for binding in self.modern.tools.get(tool).into_iter().flatten() {
                    if let Some(value) = header_value(arguments, binding) {
                        headers.push((format!("Mcp-Param-{}", binding.header), value));
                    }
                }
            }
            _ => {}
        }
    }

    /// Learns the parameter headers of the tools in a `tools/list` result passing through.
    pub(crate) fn learn_tool_headers(&mut self, id: &Id, message: Option<&Value>) {
        let Some(at) = self.modern.tool_lists.iter().position(|l| l == id) else {
            return;
        };
        self.modern.tool_lists.swap_remove(at);
        let tools = message
            .and_then(|m| m.pointer("/result/tools"))
            .and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let declared = tool.get("inputSchema").map(bindings);
            match declared {
                Some(Ok(found)) if !found.is_empty() => {
                    if self.modern.tools.len() < MAX_TOOLS_REMEMBERED {
                        self.modern.tools.insert(name.to_owned(), found);
                    }
                }
                _ => {
                    self.modern.tools.remove(name);
                }
            }
        }
    }
}

/// The JSON-RPC error a modern server put in the body of an error status (a `400` carrying
/// `-32022` or `-32020`, ...), re-addressed to `id`; `None` when the body is not one.
pub(crate) fn error_body_line(id: &Id, text: &[u8]) -> Option<Vec<u8>> {
    let value: Value = serde_json::from_slice(text).ok()?;
    let error = value
        .get("error")
        .filter(|e| e.get("code").is_some_and(Value::is_i64))?;
    let line = serde_json::json!({"jsonrpc": "2.0", "id": id.to_value(), "error": error});
    let mut bytes = serde_json::to_vec(&line).ok()?;
    bytes.push(b'\n');
    Some(bytes)
}
