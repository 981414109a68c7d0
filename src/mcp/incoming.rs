//! What the server sends: responses matched to requests, notifications, and server requests.

use super::events::{RequestError, RequestId, ServerDetails, SessionEvent};
use super::session::{ClientSession, Purpose, State};
use super::SUPPORTED_PROTOCOL_VERSIONS;
use crate::content::ToolOutput;
use crate::framing::{parse_line, DecodeError, FrameError, LineEdges};
use crate::json::quoted;
use crate::jsonrpc::{
    codes, ErrorObject, Id, Message, MessageError, Notification, Request, Response,
};
use crate::rpc::sniff_response_id;
use crate::time::Instant;
use serde_json::{json, Value};

/// One line from the server, read as far as it can be: the message, or why not with a quote
/// of the line and, for JSON that could not be parsed at all, the id its edges show it answers.
pub(super) struct ReadLine {
    message: Result<Message, (MessageError, String, Option<Id>)>,
    /// Invalid UTF-8 in the line was replaced by U+FFFD.
    replaced: bool,
    /// The start of the line, when it needs quoting.
    excerpt: Option<String>,
}

impl ReadLine {
    /// Parses `text` (already decoded, lossily when `replaced`).
    pub(super) fn read(text: &str, replaced: bool) -> ReadLine {
        let quote = || crate::framing::excerpt(text.as_bytes());
        let message = parse_line(text).map_err(|error| {
            let DecodeError::Message { error, excerpt } = error else {
                return (MessageError::InvalidJson(error.to_string()), quote(), None);
            };
            // Unparseable JSON (a number out of range, nesting past the limit, a syntax
            // error deep inside) has no id to read but its edges may show it, as the
            // oversize path reads them.
            let id = match &error {
                MessageError::InvalidJson(_) | MessageError::TooDeep => {
                    sniff_response_id(&LineEdges::starting_with(text.as_bytes()))
                }
                _ => None,
            };
            (error, excerpt, id)
        });
        ReadLine {
            message,
            excerpt: replaced.then(quote),
            replaced,
        }
    }
}

impl ClientSession {
    /// Acts on one line read from the server.
    pub(super) fn handle_line(&mut self, now: Instant, line: ReadLine) {
        if line.replaced && !self.is_closed() {
            let excerpt = line.excerpt.unwrap_or_default();
            self.push_droppable(SessionEvent::ProtocolError {
                message: format!(
                    "a line from the server was not valid UTF-8; its invalid bytes were read \
                     as U+FFFD: {excerpt}"
                ),
            });
        }
        match line.message {
            Ok(message) => self.handle_message(now, message),
            Err((error, excerpt, sniffed)) => self.handle_malformed(&error, &excerpt, sniffed),
        }
    }

    pub(super) fn handle_malformed(
        &mut self,
        error: &MessageError,
        excerpt: &str,
        sniffed: Option<Id>,
    ) {
        if self.is_closed() {
            return;
        }
        self.push_droppable(SessionEvent::ProtocolError {
            message: format!("{error}: {excerpt}"),
        });
        // A broken response to one of our requests would otherwise sit until its timeout.
        let id = match error {
            MessageError::Invalid { id: Some(id), .. } => Some(id),
            _ => sniffed.as_ref(),
        };
        if let Some(wire_id) = id.and_then(Id::as_u64) {
            self.fail_unreadable(
                wire_id,
                format!("the server's response could not be read: {error}: {excerpt}"),
            );
        }
    }

    /// A message over the frame limit was dropped. It is reported like any bad frame; when its
    /// edges show it answered one of our requests, that request fails now with the reason,
    /// rather than waiting for its timeout.
    pub(super) fn handle_too_long(&mut self, error: FrameError) {
        let message = error.to_string();
        let FrameError::TooLong { edges, .. } = error else {
            return self.handle_frame_error(message);
        };
        self.handle_frame_error(message.clone());
        if let Some(wire_id) = sniff_response_id(&edges).and_then(|id| id.as_u64()) {
            self.fail_unreadable(
                wire_id,
                format!("the server's response was dropped: {message}"),
            );
        }
    }

    /// Fails request `wire_id`, if still pending, because its response could not be read. An
    /// unreadable `initialize` answer ends the session, as no request can follow it.
    fn fail_unreadable(&mut self, wire_id: u64, reason: String) {
        let Some(pending) = self.pending.remove(wire_id) else {
            return;
        };
        if let Purpose::Initialize = pending.data {
            self.shut_down(format!(
                "server's initialize response was unreadable: {reason}"
            ));
        } else {
            self.fail(wire_id, pending.data, RequestError::InvalidResult(reason));
        }
    }

    pub(super) fn handle_response(&mut self, now: Instant, response: Response) {
        let Some(id) = response.id else {
            let reason = match response.outcome {
                Err(e) => format!("server reported an error about an unreadable request: {e}"),
                Ok(_) => "response without an id".to_owned(),
            };
            self.push_droppable(SessionEvent::UnexpectedResponse { id: None, reason });
            return;
        };
        let wire_id = id.as_u64();
        if let Some(late) = wire_id {
            #[cfg(feature = "mcp-tasks")]
            if self.task_listen_ended(now, late) {
                return;
            }
            if self.late_probe_answered(now, late, &response.outcome)
                || self.listen_ended(late, &response.outcome)
            {
                return;
            }
        }
        let Some(pending) = wire_id.and_then(|wire_id| self.pending.remove(wire_id)) else {
            let reason = match wire_id {
                Some(n) if self.pending.was_issued(n) => {
                    "late or duplicate response: the request already finished, timed out or was cancelled"
                }
                _ => "response to a request this client never sent",
            };
            self.push_droppable(SessionEvent::UnexpectedResponse {
                id: Some(id),
                reason: reason.into(),
            });
            return;
        };
        let wire_id = wire_id.unwrap_or_default();
        match (response.outcome, pending.data) {
            (Err(error), Purpose::Discover) => {
                self.sent.remove(&wire_id);
                self.discover_failed(now, error)
            }
            (Err(error), Purpose::Initialize) => {
                self.shut_down(format!("server rejected initialize: {error}"));
            }
            (Err(error), purpose) => {
                self.sent.remove(&wire_id);
                self.fail(wire_id, purpose, RequestError::Rpc(error));
            }
            (Ok(result), Purpose::Discover) => {
                self.sent.remove(&wire_id);
                self.discover_answered(now, result)
            }
            (Ok(result), purpose) if self.envelope.is_some() => {
                let timeout = pending.deadlines.timeout;
                self.modern_result(now, wire_id, pending.method, timeout, purpose, result);
            }
            (Ok(result), purpose) => self.handle_result(now, purpose, result),
        }
    }

    pub(super) fn handle_result(&mut self, now: Instant, purpose: Purpose, result: Value) {
        match purpose {
            Purpose::Initialize => self.finish_handshake(result),
            Purpose::Discover => self.discover_answered(now, result),
            Purpose::CallTool { op } => {
                let result =
                    ToolOutput::from_mcp_result(&result).map_err(RequestError::InvalidResult);
                self.events.push_back(SessionEvent::ToolResult {
                    request: op,
                    result,
                });
            }
            Purpose::Generic { op } => {
                self.events.push_back(SessionEvent::Response {
                    request: op,
                    result: Ok(result),
                });
            }
            Purpose::List {
                kind,
                op,
                items,
                pages,
            } => self.next_page(now, kind, op, items, pages, result),
            #[cfg(feature = "mcp-tasks")]
            Purpose::Task { op } => self.task_state(now, op, result),
        }
    }

    /// Adds one page to a paginated list: asks for the next (up to the page cap) or reports
    /// the whole list.
    fn next_page(
        &mut self,
        now: Instant,
        kind: super::ListKind,
        op: RequestId,
        mut items: Vec<Value>,
        pages: usize,
        result: Value,
    ) {
        let (method, key) = kind.method_and_key();
        let fail = |error| SessionEvent::Failed { request: op, error };
        let Some(page) = result.get(key).and_then(Value::as_array) else {
            let error =
                RequestError::InvalidResult(format!("{method} result without a \"{key}\" array"));
            return self.events.push_back(fail(error));
        };
        items.extend(page.iter().cloned());
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(_) if pages >= self.config.max_tool_pages => {
                let error = RequestError::InvalidResult(format!(
                    "{method} still had more pages after {pages}; giving up (cursor loop?)"
                ));
                self.events.push_back(fail(error));
            }
            Some(cursor) => {
                let params = json!({"cursor": cursor});
                let deadlines = self.deadlines(now, None);
                let purpose = Purpose::List {
                    kind,
                    op,
                    items,
                    pages: pages + 1,
                };
                self.send_request(now, method, Some(params), deadlines, purpose);
            }
            None if kind == super::ListKind::Tools => {
                let tools = self.without_invalid_header_tools(items);
                self.keep_hinted_list(kind, &tools, &result, now);
                self.events
                    .push_back(SessionEvent::ToolsListed { request: op, tools })
            }
            None => {
                self.keep_hinted_list(kind, &items, &result, now);
                self.events
                    .push_back(SessionEvent::Listed { request: op, items })
            }
        }
    }

    pub(super) fn finish_handshake(&mut self, result: Value) {
        let Some(version) = result.get("protocolVersion").and_then(Value::as_str) else {
            self.shut_down("initialize result without a \"protocolVersion\" string".into());
            return;
        };
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version) {
            self.shut_down(format!(
                "server chose protocol version {version}, which agentwire does not support (supported: {})",
                SUPPORTED_PROTOCOL_VERSIONS.join(", "), version = quoted(version)));
            return;
        }
        let details = server_details(&result, version, super::Era::Legacy);
        self.send_notification("notifications/initialized", None);
        self.become_ready(details);
    }

    /// The handshake (or the probe) is done: the session is ready, and the host is told.
    pub(super) fn become_ready(&mut self, details: ServerDetails) {
        self.state = State::Ready;
        self.server = Some(details.clone());
        self.events.push_back(SessionEvent::Ready(details));
    }

    /// Keeps a modern list for the `ttlMs` its last page asked for.
    fn keep_hinted_list(
        &mut self,
        kind: super::ListKind,
        items: &[Value],
        last: &Value,
        now: Instant,
    ) {
        if self.envelope.is_some() {
            self.hints.keep_list(kind, items, last, now);
        }
    }

    /// In the modern era, tools whose `x-mcp-header` declarations are invalid are left out
    /// (the spec says clients MUST reject them), each reported once as a protocol error.
    fn without_invalid_header_tools(&mut self, tools: Vec<Value>) -> Vec<Value> {
        if self.envelope.is_none() {
            return tools;
        }
        let mut kept = Vec::with_capacity(tools.len());
        for tool in tools {
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            match super::param_headers::bindings(schema) {
                Ok(_) => kept.push(tool),
                Err(reason) => {
                    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
                    self.push_droppable(SessionEvent::ProtocolError {
                        message: format!("tool {} left out: {reason}", quoted(name)),
                    });
                }
            }
        }
        kept
    }

    pub(super) fn handle_server_request(&mut self, request: Request) {
        let Request { id, method, params } = request;
        let declared = match method.as_str() {
            "ping" => {
                self.send_response(id, Ok(json!({})));
                return;
            }
            "roots/list" if !self.config.fixed_roots.is_empty() => {
                let roots = super::roots::roots_result(&self.config.fixed_roots);
                self.send_response(id, Ok(roots));
                return;
            }
            "roots/list" => self.config.roots,
            "sampling/createMessage" => self.config.sampling,
            "elicitation/create" => self.config.elicitation,
            _ => false,
        };
        if !declared {
            self.send_response(id, Err(ErrorObject::method_not_found(&method)));
            return;
        }
        if self.open_server_requests.len() >= super::MAX_QUEUED_EVENTS {
            // The host is not answering: refuse rather than remember without end.
            let error = ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!(
                    "the client already has {} unanswered requests from this server",
                    super::MAX_QUEUED_EVENTS
                ),
            );
            self.dropped += 1;
            self.send_response(id, Err(error));
            return;
        }
        if self.open_server_requests.contains(&id) {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                format!("request id {id} is already in use"),
            );
            self.send_response(id, Err(error));
            return;
        }
        self.open_server_requests.push(id.clone());
        self.events
            .push_back(SessionEvent::ServerRequest { id, method, params });
    }

    /// Forgets an open server request; `false` when `id` is not one.
    pub(super) fn forget_server_request(&mut self, id: &Id) -> bool {
        let at = self.open_server_requests.iter().position(|open| open == id);
        at.map(|at| self.open_server_requests.swap_remove(at))
            .is_some()
    }

    pub(super) fn handle_notification(&mut self, now: Instant, notification: Notification) {
        let Notification { method, params } = notification;
        #[cfg(feature = "mcp-tasks")]
        if self.task_notification(now, &method, params.as_ref()) {
            return;
        }
        let field = |key: &str| params.as_ref().and_then(|p| p.get(key));
        let event = match method.as_str() {
            "notifications/tools/list_changed" => {
                self.hints.forget_list(super::ListKind::Tools);
                SessionEvent::ToolsListChanged
            }
            "notifications/resources/list_changed" => {
                self.hints.forget_list(super::ListKind::Resources);
                self.hints.forget_list(super::ListKind::ResourceTemplates);
                SessionEvent::ListChanged(super::ListKind::Resources)
            }
            "notifications/prompts/list_changed" => {
                self.hints.forget_list(super::ListKind::Prompts);
                SessionEvent::ListChanged(super::ListKind::Prompts)
            }
            // One without a string URI says nothing to act on: it is dropped.
            "notifications/resources/updated" => match field("uri").and_then(Value::as_str) {
                Some(uri) => {
                    self.hints.forget_read(uri);
                    SessionEvent::ResourceUpdated {
                        uri: uri.to_owned(),
                    }
                }
                None => return,
            },
            "notifications/progress" => {
                let token = field("progressToken").and_then(Value::as_u64);
                let Some(progress) = field("progress").and_then(Value::as_f64) else {
                    return self.handle_frame_error(
                        "notifications/progress without a numeric \"progress\"".into(),
                    );
                };
                let Some(wire_id) = token.filter(|id| self.pending.extend(*id, now)) else {
                    // Progress for something already finished is normal near the end of a call.
                    return;
                };
                let op = self
                    .pending
                    .get(wire_id)
                    .map_or(RequestId(wire_id), |p| p.data.op(wire_id));
                SessionEvent::Progress {
                    request: op,
                    progress,
                    total: field("total").and_then(Value::as_f64),
                    message: field("message").and_then(Value::as_str).map(str::to_owned),
                }
            }
            "notifications/message" => SessionEvent::Log {
                level: field("level")
                    .and_then(Value::as_str)
                    .unwrap_or("info")
                    .to_owned(),
                logger: field("logger").and_then(Value::as_str).map(str::to_owned),
                data: field("data").cloned().unwrap_or(Value::Null),
            },
            "notifications/cancelled" => {
                let id = field("requestId").cloned().and_then(|v| match v {
                    Value::Number(n) => Some(Id::Number(n)),
                    Value::String(s) => Some(Id::String(s)),
                    _ => None,
                });
                let Some(id) = id else { return };
                // The spec says not to answer a cancelled request; forget it.
                if !self.forget_server_request(&id) {
                    return;
                }
                let reason = field("reason").and_then(Value::as_str).map(str::to_owned);
                SessionEvent::ServerCancelled { id, reason }
            }
            _ => SessionEvent::Notification { method, params },
        };
        self.push_droppable(event);
    }
}

/// What an `initialize` or `server/discover` result says about the server. `serverInfo` may
/// also sit in the modern result's `_meta`; `capabilities` that are not an object count as
/// none.
pub(super) fn server_details(result: &Value, version: &str, era: super::Era) -> ServerDetails {
    let meta_info = || result.get("_meta")?.get(super::meta::META_SERVER_INFO);
    ServerDetails {
        protocol_version: version.to_owned(),
        era,
        server_info: result
            .get("serverInfo")
            .or_else(meta_info)
            .cloned()
            .unwrap_or(Value::Null),
        capabilities: result
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default())),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}
