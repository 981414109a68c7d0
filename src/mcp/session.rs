//! The MCP client session as a sans-IO state machine.

use super::era::{Era, ProtocolChoice};
use super::events::{RequestError, RequestId, ServerDetails, SessionEvent};
use super::incoming::ReadLine;
use super::meta::Envelope;
use super::mrtr::{Sent, Waiting};
use super::roots::Root;
use super::LATEST_PROTOCOL_VERSION;
use crate::framing::{FrameError, LineDecoder};
use crate::jsonrpc::{ErrorObject, Id, Message, Notification, Request, Response};
use crate::rpc::{Deadlines, PendingTable};
use crate::time::{whole_millis, Instant};
use crate::vec_map::VecMap;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

/// Most events the session holds undrained before it drops notifications, protocol errors and
/// unexpected responses (counted in [`ClientSession::dropped_events`]). Responses, failures
/// and `Closed` are never dropped. The driving contract drains events after every input, so
/// this only bites a host that feeds a huge input at once, or does not drain.
pub const MAX_QUEUED_EVENTS: usize = 4096;

/// How a session introduces itself and how patient it is.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `clientInfo.name`.
    pub client_name: String,
    /// `clientInfo.version`.
    pub client_version: String,
    /// The protocol version to ask for in `initialize` (the legacy era).
    pub protocol_version: String,
    /// Which era to speak: `initialize` only (the default, byte for byte as before), the
    /// stateless 2026-07-28 revision only, or a `server/discover` probe that picks (see
    /// `src/mcp/discover.rs`).
    pub protocol: ProtocolChoice,
    /// How long [`ProtocolChoice::Auto`] waits for the `server/discover` probe before taking
    /// the server for a legacy one.
    pub discover_timeout: Duration,
    /// Declare the `roots` capability (host answers `roots/list`).
    pub roots: bool,
    /// Roots the session answers `roots/list` with by itself (declaring the capability):
    /// no round trip through the host, so a server may ask in the middle of a tool call.
    pub fixed_roots: Vec<Root>,
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
    /// Most pages of `tools/list` (and of resource and prompt lists) followed before giving up
    /// (protects against cursor loops).
    pub max_tool_pages: usize,
    /// Longest line accepted from the server, in bytes (see [`crate::framing`]).
    pub max_frame_len: usize,
    /// Declare the Tasks extension to modern servers and follow the tasks they answer
    /// `tools/call` with (`src/mcp/tasks.rs`; off by default; needs the `mcp-tasks` feature).
    pub tasks: bool,
    /// Declare the Skills extension to modern servers, so that `skills/list` may be asked of
    /// those that declare it too (`src/mcp/skills.rs`; off by default; needs the `mcp-skills`
    /// feature).
    pub skills: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            client_name: "agentwire".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            protocol_version: LATEST_PROTOCOL_VERSION.into(),
            protocol: ProtocolChoice::Legacy,
            discover_timeout: Duration::from_secs(5),
            roots: false,
            fixed_roots: Vec::new(),
            sampling: false,
            elicitation: false,
            initialize_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            max_total_timeout: Some(Duration::from_secs(600)),
            max_tool_pages: 100,
            max_frame_len: crate::framing::DEFAULT_MAX_FRAME_LEN,
            tasks: false,
            skills: false,
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
    /// The server did not declare the capability this method needs; carries the method.
    NotOffered(String),
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
            SessionError::NotOffered(method) => {
                write!(
                    f,
                    "the server does not offer {method} (not in its capabilities)"
                )
            }
        }
    }
}

impl std::error::Error for SessionError {}

/// What a pending wire request is for.
#[derive(Debug)]
pub(super) enum Purpose {
    Initialize,
    Discover,
    List {
        kind: super::ListKind,
        op: RequestId,
        items: Vec<Value>,
        pages: usize,
    },
    CallTool {
        op: RequestId,
    },
    Generic {
        op: RequestId,
    },
    /// A `tasks/get`, `tasks/update` or `tasks/cancel` for the task of `tools/call` `op`.
    #[cfg(feature = "mcp-tasks")]
    Task {
        op: RequestId,
    },
}

impl Purpose {
    pub(super) fn op(&self, wire_id: u64) -> RequestId {
        match self {
            Purpose::Initialize | Purpose::Discover => RequestId(wire_id),
            Purpose::List { op, .. } | Purpose::CallTool { op } | Purpose::Generic { op } => *op,
            #[cfg(feature = "mcp-tasks")]
            Purpose::Task { op } => *op,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum State {
    /// The `server/discover` probe is out; `retried` once an unsupported version was retried.
    Discovering {
        retried: bool,
    },
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
///
/// One machine speaks both eras of MCP; [`SessionConfig::protocol`] picks. The legacy era
/// (2025-11-25 and before) opens with `initialize`, byte for byte as it always did. The modern
/// era (2026-07-28) opens with `server/discover` (see `src/mcp/discover.rs` for the probe and its
/// fallback), puts the `_meta` envelope on every request, reads every result's `resultType`,
/// and answers `input_required` results (see `src/mcp/mrtr.rs`): their input requests come out
/// as [`SessionEvent::ServerRequest`]s exactly like the legacy era's server requests, and once
/// the host has answered them all with `respond`, the session sends the original request again
/// by itself: the host drains `poll_transmit` after `respond` as after any command. The
/// command's [`RequestId`] stays the same across rounds. `logging/setLevel` and `ping` are
/// answered locally in that era, and fresh list results are served from the server's cache
/// hints (see `src/mcp/cache.rs`). The host never needs to know which era it got, but may ask
/// ([`ClientSession::era`]).
#[derive(Debug)]
pub struct ClientSession {
    pub(super) config: SessionConfig,
    pub(super) state: State,
    pub(super) pending: PendingTable<Purpose>,
    pub(super) server: Option<ServerDetails>,
    /// Linear lookups: a handful in flight normally, [`MAX_QUEUED_EVENTS`] at most, and no
    /// hash table code in the wasm module for it.
    pub(super) open_server_requests: Vec<Id>,
    pub(super) transmit: VecDeque<Vec<u8>>,
    pub(super) events: VecDeque<SessionEvent>,
    pub(super) decoder: LineDecoder,
    /// Since when request timeouts are paused (see [`ClientSession::pause_timeouts`]).
    pub(super) paused_since: Option<Instant>,
    /// Droppable events dropped because [`MAX_QUEUED_EVENTS`] were waiting.
    pub(super) dropped: u64,
    /// The modern era's `_meta` envelope; `None` in the legacy era.
    pub(super) envelope: Option<Envelope>,
    /// The log level modern requests ask for (`logging/setLevel` is gone in that era).
    pub(super) log_level: Option<String>,
    /// Modern requests in flight, by wire id: what a re-send after `input_required` needs.
    pub(super) sent: VecMap<u64, Sent>,
    /// Modern requests waiting for the host's answers to their input requests.
    pub(super) waiting: Vec<Waiting>,
    /// Input requests handed to the host so far (numbers their ids).
    pub(super) next_ask: u64,
    /// The latest time an input or command brought (for answers given without one).
    pub(super) last_input: Instant,
    /// When the session started: the probe and `initialize` share the start-up time.
    pub(super) opened_at: Instant,
    /// Time spent in finished pauses: the user's, so not taken from the start-up time.
    pub(super) paused_total: Duration,
    /// The wire id of a `server/discover` probe that timed out, whose answer may still come.
    pub(super) late_probe: Option<u64>,
    /// Fresh modern answers kept for their `ttlMs`.
    pub(super) hints: super::cache::HintCache,
    /// The wire id of the open `subscriptions/listen` request (modern era).
    pub(super) listen: Option<u64>,
    /// Tasks followed for `tools/call`s (the Tasks extension).
    #[cfg(feature = "mcp-tasks")]
    pub(super) tasks: Vec<super::tasks::Task>,
}

fn line(message: &Message) -> Vec<u8> {
    crate::framing::encode_line(message)
}

impl ClientSession {
    /// Starts a session: `initialize` (or, for the modern era, `server/discover`) is queued at
    /// once.
    pub fn new(config: SessionConfig, now: Instant) -> Self {
        let mut session = ClientSession {
            state: State::Initializing,
            pending: PendingTable::new(),
            server: None,
            open_server_requests: Vec::new(),
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            decoder: LineDecoder::new(config.max_frame_len),
            paused_since: None,
            dropped: 0,
            envelope: None,
            log_level: None,
            sent: VecMap::new(),
            waiting: Vec::new(),
            next_ask: 0,
            last_input: now,
            opened_at: now,
            paused_total: Duration::ZERO,
            late_probe: None,
            hints: Default::default(),
            listen: None,
            #[cfg(feature = "mcp-tasks")]
            tasks: Vec::new(),
            config,
        };
        session.open(now);
        session
    }

    pub(super) fn initialize_params(&self) -> Value {
        json!({
            "protocolVersion": self.config.protocol_version,
            "capabilities": self.capabilities(Era::Legacy),
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

    /// Modern requests kept for a re-send (in flight, or waiting for the host's input): as
    /// many as are unfinished, so finished ones cost no memory.
    pub fn resendable(&self) -> usize {
        self.sent.len() + self.waiting.len()
    }

    /// The era the session speaks, once it is ready.
    pub fn era(&self) -> Option<Era> {
        self.server.as_ref().map(|s| s.era)
    }

    /// The session's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// How many notifications, protocol errors and unexpected responses were dropped because
    /// [`MAX_QUEUED_EVENTS`] events were already waiting to be drained.
    pub fn dropped_events(&self) -> u64 {
        self.dropped
    }

    // ----- commands -----

    /// Lists the server's tools, following `nextCursor` across pages; ends in
    /// [`SessionEvent::ToolsListed`] or [`SessionEvent::Failed`].
    pub fn list_tools(&mut self, now: Instant) -> Result<RequestId, SessionError> {
        self.list(now, super::ListKind::Tools)
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

    /// Sends any request; ends in [`SessionEvent::Response`]. In the modern era,
    /// `logging/setLevel` and `ping` are gone from the wire: the level is kept and sent in
    /// every later request's `_meta`, and both are answered `{}` at once.
    pub fn request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        options: CallOptions,
    ) -> Result<RequestId, SessionError> {
        self.check_ready()?;
        let op = RequestId(self.peek_next_id());
        let answered_here =
            if self.envelope.is_some() && matches!(method, "logging/setLevel" | "ping") {
                if let Some(level) = params.as_ref().and_then(|p| p.get("level")) {
                    self.log_level = level.as_str().map(str::to_owned);
                }
                Some(Value::Object(Default::default()))
            } else {
                self.cached_read(method, params.as_ref())
            };
        if let Some(result) = answered_here {
            // The id is used up so that handles stay unique.
            self.pending.skip_id();
            self.events.push_back(SessionEvent::Response {
                request: op,
                result: Ok(result),
            });
            return Ok(op);
        }
        let purpose = Purpose::Generic { op };
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
        #[cfg(feature = "mcp-tasks")]
        if self.cancel_task(request, reason) {
            return Ok(());
        }
        if self.cancel_waiting(request, reason) {
            return Ok(());
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

    /// Answers a request from the server that was reported as [`SessionEvent::ServerRequest`]
    /// (in the modern era, an input request of an `input_required` result: once all of its
    /// round are answered, the original request is sent again).
    pub fn respond(
        &mut self,
        id: &Id,
        result: Result<Value, ErrorObject>,
    ) -> Result<(), SessionError> {
        self.respond_at(None, id, result)
    }

    /// [`respond`](Self::respond) with the time, which an answer that re-sends a modern
    /// request needs for its deadlines (`respond` uses the time the input was asked for).
    pub fn respond_at(
        &mut self,
        now: Option<Instant>,
        id: &Id,
        result: Result<Value, ErrorObject>,
    ) -> Result<(), SessionError> {
        if let State::Closed(why) = &self.state {
            return Err(SessionError::Closed(why.clone()));
        }
        let now = now.unwrap_or(self.last_input);
        if self.is_input_request(id) {
            self.answer_input(now, id, result);
            return Ok(());
        }
        if !self.forget_server_request(id) {
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
        loop {
            let line = match self.decoder.next_frame_lossy() {
                None => break,
                Some(Ok((text, replaced))) => ReadLine::read(&text, replaced),
                Some(Err(error @ FrameError::TooLong { .. })) => {
                    self.handle_too_long(error);
                    continue;
                }
                Some(Err(error)) => {
                    self.handle_frame_error(error.to_string());
                    continue;
                }
            };
            self.handle_line(now, line);
        }
    }

    /// The stream ended (EOF on stdout); `reason` says why, such as the exit status.
    pub fn handle_eof(&mut self, reason: &str) {
        match self.decoder.finish() {
            Some(error @ FrameError::TooLong { .. }) => self.handle_too_long(error),
            Some(error) => self.handle_frame_error(error.to_string()),
            None => {}
        }
        self.shut_down(reason.to_owned());
    }

    /// Takes one whole frame (a line without its newline) from a message transport. Invalid
    /// UTF-8 is read as U+FFFD, as in [`handle_bytes`](Self::handle_bytes).
    pub fn handle_frame(&mut self, now: Instant, frame: &[u8]) {
        let text = String::from_utf8_lossy(frame);
        let replaced = matches!(text, std::borrow::Cow::Owned(_));
        let line = ReadLine::read(&text, replaced);
        self.handle_line(now, line);
    }

    /// Takes one parsed message from the server.
    pub fn handle_message(&mut self, now: Instant, message: Message) {
        if self.is_closed() {
            return;
        }
        self.last_input = self.last_input.max(now);
        match message {
            Message::Response(response) => self.handle_response(now, response),
            Message::Request(request) => self.handle_server_request(request),
            Message::Notification(notification) => self.handle_notification(now, notification),
        }
    }

    /// Reports a frame the transport could not deliver intact (too long, not UTF-8, ...).
    pub fn handle_frame_error(&mut self, message: String) {
        if !self.is_closed() {
            self.push_droppable(SessionEvent::ProtocolError { message });
        }
    }

    /// The transport closed (EOF, process exit, ...); `reason` should say why.
    pub fn handle_transport_closed(&mut self, reason: &str) {
        self.shut_down(reason.to_owned());
    }

    /// Stops request timeouts from `now` until [`resume_timeouts`](Self::resume_timeouts):
    /// the transport is waiting on the user (an OAuth consent in a browser), not on the server.
    /// A second pause while paused changes nothing.
    pub fn pause_timeouts(&mut self, now: Instant) {
        self.paused_since.get_or_insert(now);
    }

    /// Restarts request timeouts: every request in flight gets the paused time back (from its
    /// sending, if it was sent during the pause). Does nothing when not paused.
    pub fn resume_timeouts(&mut self, now: Instant) {
        if let Some(since) = self.paused_since.take() {
            self.pending.postpone_all(since, now);
            self.paused_total += now.saturating_since(since);
        }
    }

    /// Fails every request whose deadline is at or before `now`. Harmless if called early;
    /// does nothing while timeouts are paused.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.paused_since.is_some() {
            return;
        }
        self.last_input = self.last_input.max(now);
        self.expire_waiting(now);
        #[cfg(feature = "mcp-tasks")]
        self.poll_tasks(now);
        while let Some((wire_id, pending)) = self.pending.pop_expired(now) {
            let waited = now.saturating_since(pending.sent_at);
            if let Purpose::Discover = pending.data {
                self.sent.remove(&wire_id);
                self.discover_timed_out(now, wire_id, waited);
                continue;
            }
            if let Purpose::Initialize = pending.data {
                let reason = format!(
                    "server did not answer initialize within {} ms",
                    whole_millis(self.config.initialize_timeout)
                );
                self.shut_down(reason);
                return;
            }
            self.send_cancelled(
                wire_id,
                &format!("timed out after {} ms", whole_millis(waited)),
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

    /// When `handle_timeout` should next be called, if any request is in flight (and timeouts
    /// are not paused).
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.paused_since.is_some() {
            return None;
        }
        let waiting = self.waiting.iter().map(Waiting::give_up_at).min();
        #[cfg(feature = "mcp-tasks")]
        let waiting = match (waiting, self.next_task_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match (self.pending.next_deadline(), waiting) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    // ----- internals -----

    pub(super) fn check_ready(&self) -> Result<(), SessionError> {
        match &self.state {
            State::Ready => Ok(()),
            State::Initializing | State::Discovering { .. } => Err(SessionError::NotReady),
            State::Closed(reason) => Err(SessionError::Closed(reason.clone())),
        }
    }

    pub(super) fn deadlines(&self, now: Instant, options: Option<CallOptions>) -> Deadlines {
        let options = options.unwrap_or_default();
        let timeout = options.timeout.unwrap_or(self.config.request_timeout);
        let max_total = options.max_total.or(self.config.max_total_timeout);
        Deadlines::starting_at(now, timeout, max_total)
    }

    pub(super) fn peek_next_id(&self) -> u64 {
        // Ids are allocated by the table; this is the one the next `insert` will hand out.
        self.pending.next_id()
    }

    pub(super) fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        deadlines: Deadlines,
        purpose: Purpose,
    ) -> RequestId {
        self.last_input = self.last_input.max(now);
        let sent = self.sent_record(&params, now, &deadlines);
        let params = match &self.envelope {
            Some(envelope) => envelope.wrap(params, self.log_level.as_deref()),
            None => params,
        };
        let wire_id = self.pending.insert(method, now, deadlines, purpose);
        if let Some(sent) = sent {
            self.sent.insert(wire_id, sent);
        }
        let request = Request {
            id: Id::from(wire_id),
            method: method.to_owned(),
            params,
        };
        self.transmit.push_back(line(&Message::Request(request)));
        RequestId(wire_id)
    }

    pub(super) fn send_notification(&mut self, method: &str, params: Option<Value>) {
        let notification = Notification {
            method: method.to_owned(),
            params,
        };
        self.transmit
            .push_back(line(&Message::Notification(notification)));
    }

    pub(super) fn send_response(&mut self, id: Id, outcome: Result<Value, ErrorObject>) {
        let response = Response {
            id: Some(id),
            outcome,
        };
        self.transmit.push_back(line(&Message::Response(response)));
    }

    pub(super) fn send_cancelled(&mut self, wire_id: u64, reason: &str) {
        let params = json!({"requestId": wire_id, "reason": reason});
        self.send_notification("notifications/cancelled", Some(params));
    }

    pub(super) fn wire_id_of(&self, request: RequestId) -> Option<u64> {
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

    pub(super) fn fail(&mut self, wire_id: u64, purpose: Purpose, error: RequestError) {
        // A modern request that ended (timed out, cancelled, closed) is never re-sent.
        self.sent.remove(&wire_id);
        let request = purpose.op(wire_id);
        let event = match purpose {
            Purpose::CallTool { .. } => SessionEvent::ToolResult {
                request,
                result: Err(error),
            },
            Purpose::Generic { .. } => SessionEvent::Response {
                request,
                result: Err(error),
            },
            Purpose::Initialize | Purpose::Discover | Purpose::List { .. } => {
                SessionEvent::Failed { request, error }
            }
            // A step of a task ends the task (or, once it ended, nothing).
            #[cfg(feature = "mcp-tasks")]
            Purpose::Task { op } => return self.task_step_failed(op, error),
        };
        self.events.push_back(event);
    }

    /// Queues an event nothing waits for, unless [`MAX_QUEUED_EVENTS`] already wait: then it
    /// is dropped and counted.
    pub(super) fn push_droppable(&mut self, event: SessionEvent) {
        if self.events.len() >= MAX_QUEUED_EVENTS {
            self.dropped += 1;
        } else {
            self.events.push_back(event);
        }
    }

    pub(super) fn shut_down(&mut self, reason: String) {
        if self.is_closed() {
            return;
        }
        self.state = State::Closed(reason.clone());
        self.close_waiting(&reason);
        #[cfg(feature = "mcp-tasks")]
        self.close_tasks(&reason);
        for (wire_id, pending) in self.pending.drain() {
            self.fail(wire_id, pending.data, RequestError::Closed(reason.clone()));
        }
        self.open_server_requests.clear();
        self.events.push_back(SessionEvent::Closed { reason });
    }
}
