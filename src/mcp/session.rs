//! The MCP client session as a sans-IO state machine.

use super::events::{RequestError, RequestId, ServerDetails, SessionEvent};
use super::{LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
use crate::content::ToolOutput;
use crate::framing::{DecodeError, LineDecoder};
use crate::jsonrpc::{
    codes, ErrorObject, Id, Message, MessageError, Notification, Request, Response,
};
use crate::rpc::{Deadlines, PendingTable};
use crate::time::Instant;
use serde_json::{json, Map, Value};
use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::time::Duration;

/// How a session introduces itself and how patient it is.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `clientInfo.name`.
    pub client_name: String,
    /// `clientInfo.version`.
    pub client_version: String,
    /// The protocol version to ask for.
    pub protocol_version: String,
    /// Declare the `roots` capability (host answers `roots/list`).
    pub roots: bool,
    /// Declare the `sampling` capability (host answers `sampling/createMessage`).
    pub sampling: bool,
    /// Declare the `elicitation` capability (host answers `elicitation/create`).
    pub elicitation: bool,
    /// How long the server may take to answer `initialize`.
    pub initialize_timeout: Duration,
    /// Default silence timeout of every other request; progress restarts it.
    pub request_timeout: Duration,
    /// Default cap on a request's total time however much progress arrives; `None` for no cap.
    pub max_total_timeout: Option<Duration>,
    /// Most `tools/list` pages followed before giving up (protects against cursor loops).
    pub max_tool_pages: usize,
    /// Longest line accepted from the server, in bytes (see [`crate::framing`]).
    pub max_frame_len: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            client_name: "agentwire".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            protocol_version: LATEST_PROTOCOL_VERSION.into(),
            roots: false,
            sampling: false,
            elicitation: false,
            initialize_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            max_total_timeout: Some(Duration::from_secs(600)),
            max_tool_pages: 100,
            max_frame_len: crate::framing::DEFAULT_MAX_FRAME_LEN,
        }
    }
}

/// Per-request overrides of the session's timeouts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// Silence timeout for this request.
    pub timeout: Option<Duration>,
    /// Total-time cap for this request.
    pub max_total: Option<Duration>,
}

/// A command the session cannot accept in its current state. State is left unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// The handshake has not finished yet.
    NotReady,
    /// The session is closed; carries the reason it closed.
    Closed(String),
    /// `respond` named an id that is not an open request from the server.
    UnknownServerRequest(Id),
    /// `cancel` named a request that is not in flight.
    NotInFlight(RequestId),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::NotReady => write!(f, "the MCP handshake has not finished"),
            SessionError::Closed(reason) => write!(f, "the MCP session is closed: {reason}"),
            SessionError::UnknownServerRequest(id) => {
                write!(f, "no open server request with id {id}")
            }
            SessionError::NotInFlight(id) => write!(f, "request {id} is not in flight"),
        }
    }
}

impl std::error::Error for SessionError {}

/// What a pending wire request is for.
#[derive(Debug)]
enum Purpose {
    Initialize,
    ListTools {
        op: RequestId,
        tools: Vec<Value>,
        pages: usize,
    },
    CallTool {
        op: RequestId,
    },
    Generic {
        op: RequestId,
    },
}

impl Purpose {
    fn op(&self, wire_id: u64) -> RequestId {
        match self {
            Purpose::Initialize => RequestId(wire_id),
            Purpose::ListTools { op, .. } | Purpose::CallTool { op } | Purpose::Generic { op } => {
                *op
            }
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum State {
    Initializing,
    Ready,
    Closed(String),
}

/// An MCP client session: JSON-RPC over lines, the MCP handshake, tools, notifications and
/// server requests, with no I/O of its own.
///
/// Contract, in the style of quinn-proto: methods are getters (`&self`), inputs
/// (`handle_*`), commands (`list_tools`, `call_tool`, `request`, `notify`, `cancel`, `respond`,
/// `close`) and outputs (`poll_transmit`, `poll_event`, `poll_timeout`). After every input or
/// command, the host drains `poll_transmit` (lines to write, each ending in `\n`) and
/// `poll_event`, then arms a timer for `poll_timeout` and calls `handle_timeout` when it fires
/// (calling it early is harmless). Commands return their [`RequestId`] before any I/O happens.
/// A misbehaving server never makes a method panic: it produces events, and at worst one
/// [`SessionEvent::Closed`].
#[derive(Debug)]
pub struct ClientSession {
    config: SessionConfig,
    state: State,
    pending: PendingTable<Purpose>,
    server: Option<ServerDetails>,
    open_server_requests: HashSet<Id>,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<SessionEvent>,
    decoder: LineDecoder,
}

fn line(message: &Message) -> Vec<u8> {
    crate::framing::encode_line(message)
}

impl ClientSession {
    /// Starts a session: the `initialize` request is queued at once.
    pub fn new(config: SessionConfig, now: Instant) -> Self {
        let mut session = ClientSession {
            state: State::Initializing,
            pending: PendingTable::new(),
            server: None,
            open_server_requests: HashSet::new(),
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            decoder: LineDecoder::new(config.max_frame_len),
            config,
        };
        let params = session.initialize_params();
        let deadlines = Deadlines::starting_at(now, session.config.initialize_timeout, None);
        session.send_request(
            now,
            "initialize",
            Some(params),
            deadlines,
            Purpose::Initialize,
        );
        session
    }

    fn initialize_params(&self) -> Value {
        let mut capabilities = Map::new();
        if self.config.roots {
            capabilities.insert("roots".into(), json!({"listChanged": false}));
        }
        if self.config.sampling {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.config.elicitation {
            capabilities.insert("elicitation".into(), json!({"form": {}}));
        }
        json!({
            "protocolVersion": self.config.protocol_version,
            "capabilities": capabilities,
            "clientInfo": {"name": self.config.client_name, "version": self.config.client_version},
        })
    }

    // ----- getters -----

    /// Whether the handshake finished and the session is open.
    pub fn is_ready(&self) -> bool {
        self.state == State::Ready
    }

    /// Whether the session is closed.
    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed(_))
    }

    /// What the server said about itself, once the handshake finished.
    pub fn server(&self) -> Option<&ServerDetails> {
        self.server.as_ref()
    }

    /// Number of wire requests in flight.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// The session's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    // ----- commands -----

    /// Lists the server's tools, following `nextCursor` across pages; ends in
    /// [`SessionEvent::ToolsListed`] or [`SessionEvent::Failed`].
    pub fn list_tools(&mut self, now: Instant) -> Result<RequestId, SessionError> {
        self.check_ready()?;
        let op = RequestId(self.peek_next_id());
        let purpose = Purpose::ListTools {
            op,
            tools: Vec::new(),
            pages: 1,
        };
        Ok(self.send_request(now, "tools/list", None, self.deadlines(now, None), purpose))
    }

    /// Calls a tool; ends in [`SessionEvent::ToolResult`]. The request carries a progress token,
    /// so progress notifications extend its deadline up to the total-time cap.
    pub fn call_tool(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<RequestId, SessionError> {
        self.check_ready()?;
        let id = self.peek_next_id();
        let params = json!({"name": name, "arguments": arguments, "_meta": {"progressToken": id}});
        let purpose = Purpose::CallTool { op: RequestId(id) };
        Ok(self.send_request(
            now,
            "tools/call",
            Some(params),
            self.deadlines(now, Some(options)),
            purpose,
        ))
    }

    /// Sends any request; ends in [`SessionEvent::Response`].
    pub fn request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        options: CallOptions,
    ) -> Result<RequestId, SessionError> {
        self.check_ready()?;
        let purpose = Purpose::Generic {
            op: RequestId(self.peek_next_id()),
        };
        Ok(self.send_request(
            now,
            method,
            params,
            self.deadlines(now, Some(options)),
            purpose,
        ))
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), SessionError> {
        self.check_ready()?;
        self.send_notification(method, params);
        Ok(())
    }

    /// Gives up on a request: it fails with [`RequestError::Cancelled`] and the server is told
    /// with `notifications/cancelled`.
    pub fn cancel(&mut self, request: RequestId, reason: &str) -> Result<(), SessionError> {
        if let State::Closed(why) = &self.state {
            return Err(SessionError::Closed(why.clone()));
        }
        let wire_id = self
            .wire_id_of(request)
            .ok_or(SessionError::NotInFlight(request))?;
        if let Some(pending) = self.pending.remove(wire_id) {
            self.send_cancelled(wire_id, reason);
            self.fail(
                wire_id,
                pending.data,
                RequestError::Cancelled(reason.to_owned()),
            );
        }
        Ok(())
    }

    /// Answers a request from the server that was reported as [`SessionEvent::ServerRequest`].
    pub fn respond(
        &mut self,
        id: &Id,
        result: Result<Value, ErrorObject>,
    ) -> Result<(), SessionError> {
        if let State::Closed(why) = &self.state {
            return Err(SessionError::Closed(why.clone()));
        }
        if !self.open_server_requests.remove(id) {
            return Err(SessionError::UnknownServerRequest(id.clone()));
        }
        self.send_response(id.clone(), result);
        Ok(())
    }

    /// Closes the session: every request in flight fails with the reason, at once.
    pub fn close(&mut self, reason: &str) {
        self.shut_down(reason.to_owned());
    }

    // ----- inputs -----

    /// Takes bytes from a stream transport (stdio): any chunking, lines split anywhere.
    pub fn handle_bytes(&mut self, now: Instant, bytes: &[u8]) {
        self.decoder.push(bytes);
        while let Some(decoded) = self.decoder.next_message() {
            match decoded {
                Ok(message) => self.handle_message(now, message),
                Err(DecodeError::Message { error, excerpt }) => {
                    self.handle_malformed(&error, &excerpt)
                }
                Err(error) => self.handle_frame_error(error.to_string()),
            }
        }
    }

    /// The stream ended (EOF on stdout); `reason` says why, such as the exit status.
    pub fn handle_eof(&mut self, reason: &str) {
        if let Some(error) = self.decoder.finish() {
            self.handle_frame_error(error.to_string());
        }
        self.shut_down(reason.to_owned());
    }

    /// Takes one whole frame (a line without its newline) from a message transport.
    pub fn handle_frame(&mut self, now: Instant, frame: &[u8]) {
        match Message::parse(frame) {
            Ok(message) => self.handle_message(now, message),
            Err(error) => self.handle_malformed(&error, &crate::framing::excerpt(frame)),
        }
    }

    /// Takes one parsed message from the server.
    pub fn handle_message(&mut self, now: Instant, message: Message) {
        if self.is_closed() {
            return;
        }
        match message {
            Message::Response(response) => self.handle_response(now, response),
            Message::Request(request) => self.handle_server_request(request),
            Message::Notification(notification) => self.handle_notification(now, notification),
        }
    }

    /// Reports a frame the transport could not deliver intact (too long, not UTF-8, ...).
    pub fn handle_frame_error(&mut self, message: String) {
        if !self.is_closed() {
            self.events
                .push_back(SessionEvent::ProtocolError { message });
        }
    }

    /// The transport closed (EOF, process exit, ...); `reason` should say why.
    pub fn handle_transport_closed(&mut self, reason: &str) {
        self.shut_down(reason.to_owned());
    }

    /// Fails every request whose deadline is at or before `now`. Harmless if called early.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some((wire_id, pending)) = self.pending.pop_expired(now) {
            let waited = now.saturating_since(pending.sent_at);
            if let Purpose::Initialize = pending.data {
                let reason = format!(
                    "server did not answer initialize within {} ms",
                    pending.deadlines.timeout.as_millis()
                );
                self.shut_down(reason);
                return;
            }
            self.send_cancelled(
                wire_id,
                &format!("timed out after {} ms", waited.as_millis()),
            );
            let error = RequestError::Timeout {
                method: pending.method,
                waited,
            };
            self.fail(wire_id, pending.data, error);
        }
    }

    // ----- outputs -----

    /// The next line to write to the server (ends with `\n`).
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    /// The next event for the host.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.events.pop_front()
    }

    /// When `handle_timeout` should next be called, if any request is in flight.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.pending.next_deadline()
    }

    // ----- internals -----

    fn check_ready(&self) -> Result<(), SessionError> {
        match &self.state {
            State::Ready => Ok(()),
            State::Initializing => Err(SessionError::NotReady),
            State::Closed(reason) => Err(SessionError::Closed(reason.clone())),
        }
    }

    fn deadlines(&self, now: Instant, options: Option<CallOptions>) -> Deadlines {
        let options = options.unwrap_or_default();
        let timeout = options.timeout.unwrap_or(self.config.request_timeout);
        let max_total = options.max_total.or(self.config.max_total_timeout);
        Deadlines::starting_at(now, timeout, max_total)
    }

    fn peek_next_id(&self) -> u64 {
        // Ids are allocated by the table; this is the one the next `insert` will hand out.
        self.pending.next_id()
    }

    fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        deadlines: Deadlines,
        purpose: Purpose,
    ) -> RequestId {
        let wire_id = self.pending.insert(method, now, deadlines, purpose);
        let request = Request {
            id: Id::from(wire_id),
            method: method.to_owned(),
            params,
        };
        self.transmit.push_back(line(&Message::Request(request)));
        RequestId(wire_id)
    }

    fn send_notification(&mut self, method: &str, params: Option<Value>) {
        let notification = Notification {
            method: method.to_owned(),
            params,
        };
        self.transmit
            .push_back(line(&Message::Notification(notification)));
    }

    fn send_response(&mut self, id: Id, outcome: Result<Value, ErrorObject>) {
        let response = Response {
            id: Some(id),
            outcome,
        };
        self.transmit.push_back(line(&Message::Response(response)));
    }

    fn send_cancelled(&mut self, wire_id: u64, reason: &str) {
        let params = json!({"requestId": wire_id, "reason": reason});
        self.send_notification("notifications/cancelled", Some(params));
    }

    fn wire_id_of(&self, request: RequestId) -> Option<u64> {
        if self.pending.get(request.0).is_some() {
            return Some(request.0);
        }
        // A multi-page tools/list has moved on to a later wire id.
        (request.0..self.peek_next_id()).find(|id| {
            self.pending
                .get(*id)
                .is_some_and(|p| p.data.op(*id) == request)
        })
    }

    fn fail(&mut self, wire_id: u64, purpose: Purpose, error: RequestError) {
        let request = purpose.op(wire_id);
        self.events.push_back(match purpose {
            Purpose::CallTool { .. } => SessionEvent::ToolResult {
                request,
                result: Err(error),
            },
            Purpose::Generic { .. } => SessionEvent::Response {
                request,
                result: Err(error),
            },
            Purpose::Initialize | Purpose::ListTools { .. } => {
                SessionEvent::Failed { request, error }
            }
        });
    }

    fn shut_down(&mut self, reason: String) {
        if self.is_closed() {
            return;
        }
        self.state = State::Closed(reason.clone());
        for (wire_id, pending) in self.pending.drain() {
            self.fail(wire_id, pending.data, RequestError::Closed(reason.clone()));
        }
        self.open_server_requests.clear();
        self.events.push_back(SessionEvent::Closed { reason });
    }

    fn handle_malformed(&mut self, error: &MessageError, excerpt: &str) {
        if self.is_closed() {
            return;
        }
        self.events.push_back(SessionEvent::ProtocolError {
            message: format!("{error}: {excerpt}"),
        });
        // A broken response to one of our requests would otherwise sit until its timeout.
        if let MessageError::Invalid { id: Some(id), .. } = error {
            if let Some(pending) = id.as_u64().and_then(|wire_id| self.pending.remove(wire_id)) {
                let wire_id = id.as_u64().unwrap_or_default();
                let reason = format!("{error}: {excerpt}");
                self.fail(wire_id, pending.data, RequestError::InvalidResult(reason));
            }
        }
    }

    fn handle_response(&mut self, now: Instant, response: Response) {
        let Some(id) = response.id else {
            let reason = match response.outcome {
                Err(e) => format!("server reported an error about an unreadable request: {e}"),
                Ok(_) => "response without an id".to_owned(),
            };
            self.events
                .push_back(SessionEvent::UnexpectedResponse { id: None, reason });
            return;
        };
        let wire_id = id.as_u64();
        let Some(pending) = wire_id.and_then(|wire_id| self.pending.remove(wire_id)) else {
            let reason = match wire_id {
                Some(n) if self.pending.was_issued(n) => {
                    "late or duplicate response: the request already finished, timed out or was cancelled"
                }
                _ => "response to a request this client never sent",
            };
            self.events.push_back(SessionEvent::UnexpectedResponse {
                id: Some(id),
                reason: reason.into(),
            });
            return;
        };
        let wire_id = wire_id.unwrap_or_default();
        match response.outcome {
            Err(error) => {
                if let Purpose::Initialize = pending.data {
                    self.shut_down(format!("server rejected initialize: {error}"));
                } else {
                    self.fail(wire_id, pending.data, RequestError::Rpc(error));
                }
            }
            Ok(result) => self.handle_result(now, pending.data, result),
        }
    }

    fn handle_result(&mut self, now: Instant, purpose: Purpose, result: Value) {
        match purpose {
            Purpose::Initialize => self.finish_handshake(result),
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
            Purpose::ListTools {
                op,
                mut tools,
                pages,
            } => {
                let Some(page) = result.get("tools").and_then(Value::as_array) else {
                    let error = RequestError::InvalidResult(
                        "tools/list result without a \"tools\" array".into(),
                    );
                    self.events
                        .push_back(SessionEvent::Failed { request: op, error });
                    return;
                };
                tools.extend(page.iter().cloned());
                match result.get("nextCursor").and_then(Value::as_str) {
                    Some(_) if pages >= self.config.max_tool_pages => {
                        let error = RequestError::InvalidResult(format!(
                            "tools/list still had more pages after {pages}; giving up (cursor loop?)"
                        ));
                        self.events
                            .push_back(SessionEvent::Failed { request: op, error });
                    }
                    Some(cursor) => {
                        let params = json!({"cursor": cursor});
                        let purpose = Purpose::ListTools {
                            op,
                            tools,
                            pages: pages + 1,
                        };
                        let deadlines = self.deadlines(now, None);
                        self.send_request(now, "tools/list", Some(params), deadlines, purpose);
                    }
                    None => self
                        .events
                        .push_back(SessionEvent::ToolsListed { request: op, tools }),
                }
            }
        }
    }

    fn finish_handshake(&mut self, result: Value) {
        let Some(version) = result.get("protocolVersion").and_then(Value::as_str) else {
            self.shut_down("initialize result without a \"protocolVersion\" string".into());
            return;
        };
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version) {
            self.shut_down(format!(
                "server chose protocol version {version:?}, which agentwire does not support (supported: {})",
                SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            ));
            return;
        }
        let details = ServerDetails {
            protocol_version: version.to_owned(),
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
        };
        self.state = State::Ready;
        self.server = Some(details.clone());
        self.send_notification("notifications/initialized", None);
        self.events.push_back(SessionEvent::Ready(details));
    }

    fn handle_server_request(&mut self, request: Request) {
        let Request { id, method, params } = request;
        let declared = match method.as_str() {
            "ping" => {
                self.send_response(id, Ok(json!({})));
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
        if !self.open_server_requests.insert(id.clone()) {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                format!("request id {id} is already in use"),
            );
            self.send_response(id, Err(error));
            return;
        }
        self.events
            .push_back(SessionEvent::ServerRequest { id, method, params });
    }

    fn handle_notification(&mut self, now: Instant, notification: Notification) {
        let Notification { method, params } = notification;
        let field = |key: &str| params.as_ref().and_then(|p| p.get(key));
        let event = match method.as_str() {
            "notifications/tools/list_changed" => SessionEvent::ToolsListChanged,
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
                if !self.open_server_requests.remove(&id) {
                    return;
                }
                let reason = field("reason").and_then(Value::as_str).map(str::to_owned);
                SessionEvent::ServerCancelled { id, reason }
            }
            _ => SessionEvent::Notification { method, params },
        };
        self.events.push_back(event);
    }
}
