//! Streamable HTTP in the modern era (2026-07-28): no session id and no `GET` stream; every
//! `POST` names its method in `Mcp-Method` (and its tool, prompt or resource in `Mcp-Name`),
//! carries the `MCP-Protocol-Version` of its own `_meta`, and mirrors the tool parameters a tool
//! declares with `x-mcp-header` into `Mcp-Param-{Name}` headers (SEP-2243).
//!
//! The machine tells the eras apart by the messages themselves: a request whose `_meta` names a
//! protocol version is modern. The declarations are learned from the `tools/list` results that
//! pass through, so the session above needs to know nothing about headers.

use super::exchange::{Exchange, Role};
use super::machine::StreamableHttp;
use super::types::HttpMethod;
use crate::jsonrpc::{Id, Message, Request};
use crate::mcp::meta::META_PROTOCOL_VERSION;
use crate::mcp::param_headers::{bindings, encode_text, header_value, Binding};
use serde_json::Value;

/// Most times one modern request whose response stream broke is sent again (with a new id:
/// the modern era has no stream resumption).
pub(crate) const MAX_REISSUES: u32 = 2;

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
    /// Each tool's declared parameter headers (valid, non-empty declarations only: few
    /// tools have any, so a list searched in order does).
    tools: Vec<(String, Vec<Binding>)>,
    /// Requests sent again after a broken stream: (the id on the wire, the session's id).
    reissued: Vec<(Id, Id)>,
    /// Re-issues so far (numbers their ids).
    reissues: u64,
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
            // The Tasks extension routes a task's requests by its id.
            #[cfg(feature = "mcp-tasks")]
            "tasks/get" | "tasks/update" | "tasks/cancel" => field("taskId"),
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
                let declared = self.modern.tools.iter().find(|(name, _)| name == tool);
                for binding in declared.into_iter().flat_map(|(_, b)| b) {
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
            // A tool listed again replaces what it declared before.
            if let Some(at) = self
                .modern
                .tools
                .iter()
                .position(|(known, _)| known == name)
            {
                self.modern.tools.swap_remove(at);
            }
            let declared = tool.get("inputSchema").map(bindings);
            if let Some(Ok(found)) = declared {
                if !found.is_empty() && self.modern.tools.len() < MAX_TOOLS_REMEMBERED {
                    self.modern.tools.push((name.to_owned(), found));
                }
            }
        }
    }
}

impl StreamableHttp {
    /// Sends a modern request again, under a new id, when its response stream broke before
    /// the answer; `false` when it is not one or has been sent [`MAX_REISSUES`] times.
    pub(crate) fn reissue(&mut self, exchange: &Exchange) -> bool {
        let (true, Role::Post { .. } | Role::Resume, [wire_id], Some(body)) = (
            exchange.modern,
            exchange.role,
            exchange.awaiting.as_slice(),
            exchange.request_body.as_ref(),
        ) else {
            return false;
        };
        if exchange.attempt >= MAX_REISSUES {
            return false;
        }
        let Ok(mut value) = serde_json::from_slice::<Value>(body) else {
            return false;
        };
        let original = match self.modern.reissued.iter().position(|(w, _)| w == wire_id) {
            Some(at) => self.modern.reissued.swap_remove(at).1,
            None => wire_id.clone(),
        };
        self.modern.reissues += 1;
        let fresh = Id::String(format!("{}~{}", id_text(&original), self.modern.reissues));
        value["id"] = fresh.to_value();
        let Ok(body) = serde_json::to_vec(&value) else {
            return false;
        };
        let mut headers = self.headers(HttpMethod::Post, None);
        if let Ok(Message::Request(request)) = Message::parse(&body) {
            self.add_modern_headers(&request.method, Some(&request), &mut headers);
        }
        self.modern.reissued.push((fresh.clone(), original));
        let mut again = Exchange::new(Role::Post { initialize: false }, vec![fresh]);
        again.request_body = Some(body.clone());
        again.modern = true;
        again.attempt = exchange.attempt + 1;
        again.session = exchange.session;
        self.issue(HttpMethod::Post, headers, Some(body), again);
        true
    }

    /// The session's id for `wire_id`, forgetting the re-issue and any tool list awaited
    /// under it (its answer will not come).
    pub(crate) fn forget_reissue(&mut self, wire_id: &Id) -> Id {
        self.modern.tool_lists.retain(|l| l != wire_id);
        match self
            .modern
            .reissued
            .iter()
            .position(|(wire, _)| wire == wire_id)
        {
            Some(at) => self.modern.reissued.swap_remove(at).1,
            None => wire_id.clone(),
        }
    }

    /// An answer to a re-issued request, re-addressed to the session's id; `None` for others.
    pub(crate) fn readdress(&mut self, id: &Id, line: &[u8]) -> Option<(Id, Vec<u8>)> {
        let at = self
            .modern
            .reissued
            .iter()
            .position(|(wire, _)| wire == id)?;
        let (_, original) = self.modern.reissued.swap_remove(at);
        let mut value: Value = serde_json::from_slice(line).ok()?;
        value["id"] = original.to_value();
        let mut line = serde_json::to_vec(&value).ok()?;
        line.push(b'\n');
        Some((original, line))
    }
}

fn id_text(id: &Id) -> String {
    match id {
        Id::Number(n) => n.to_string(),
        Id::String(s) => s.clone(),
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
