//! The Streamable HTTP client machine: its state, commands and outputs. Inputs (response
//! heads, body chunks, ends, errors, timers) live in `responses.rs`.

use super::exchange::{Exchange, Role, Scheduled};
use super::types::{HttpConfig, HttpError, HttpEvent, HttpMethod, HttpRequest, HttpRequestId};
use crate::jsonrpc::{Id, Message};
use crate::time::Instant;
use crate::vec_map::VecMap;
use core::time::Duration;
use std::collections::VecDeque;

/// How long the messages after `notifications/initialized` wait for the standalone `GET`
/// stream's answer (see [`StreamableHttp`]'s `listen_wait`): one round trip on a live server.
pub const LISTEN_WAIT: Duration = Duration::from_secs(2);

/// Headers the protocol sets itself; a user header of the same name is dropped.
const PROTOCOL_HEADERS: [&str; 5] = [
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum State {
    Open,
    /// `DELETE` sent; closed when it is answered or at the deadline.
    Closing {
        deadline: Instant,
    },
    Closed(String),
}

/// The client side of the MCP Streamable HTTP transport (spec 2025-11-25) as a sans-IO machine:
/// JSON-RPC lines in, HTTP requests out as plain data; HTTP responses in, JSON-RPC lines out.
///
/// It sits below a [`ClientSession`](crate::mcp::ClientSession): every line the session
/// transmits goes to [`send`](Self::send) and becomes one `POST`; every message the server sends,
/// in a JSON body or an SSE event, comes out of [`poll_message`](Self::poll_message) as one line
/// for [`ClientSession::handle_bytes`](crate::mcp::ClientSession::handle_bytes). Along the way it
/// keeps the `Mcp-Session-Id` from the `initialize` answer and echoes it, adds
/// `MCP-Protocol-Version` once the version is negotiated (read from the `initialize` result as
/// it passes), opens the optional `GET` stream (and holds what follows until it is answered, at
/// most [`LISTEN_WAIT`]), resumes broken streams with `Last-Event-ID` after
/// the server's `retry` delay, and sends `DELETE` on [`close`](Self::close).
///
/// Contract, in the style of quinn-proto: getters (`&self`); commands ([`send`](Self::send),
/// [`close`](Self::close)); inputs (`handle_*`, each naming the [`HttpRequestId`] it is about);
/// outputs (`poll_request`, `poll_abort`, `poll_message`, `poll_event`, `poll_timeout`). After
/// every command or input, the host drains all outputs: it performs each request (headers in
/// order, body as given) and reports its head, then body chunks as they arrive, then the end or
/// an error; it drops the requests named by `poll_abort`; it arms a timer for `poll_timeout` and
/// calls [`handle_timeout`](Self::handle_timeout) when it fires (early calls are harmless).
/// Inputs about unknown or aborted requests are ignored, so races with aborts are harmless.
///
/// Failures the server causes never panic. A request whose answer can no longer arrive (error
/// status, broken stream that cannot be resumed, unreachable server) gets a synthesized JSON-RPC
/// error response naming the cause, so the session fails it at once instead of at its timeout.
/// `401`/`403` close the machine (credentials will not fix themselves), unless
/// [`HttpConfig::oauth`] is on: then refused `POST`s and event streams (a resumption, or the
/// standalone `GET` stream on `401`) wait for [`set_access_token`](Self::set_access_token) after
/// an [`HttpEvent::AuthorizationRequired`]. A `404` for a known session is what the spec says it
/// is: the session is gone, and the client MUST start a new one. The machine reports
/// [`HttpEvent::SessionExpired`], replays the `initialize` it saw (without a session id; the
/// server's answer is swallowed, the session above already has one), sends
/// `notifications/initialized`, and then re-sends the message that got the `404`; requests
/// awaited on resumptions of the old session's streams fail at once, as their event ids mean
/// nothing in the new one. It does this at most
/// [`MAX_REINITIALIZATIONS`](super::MAX_REINITIALIZATIONS) times, then closes.
#[derive(Debug)]
pub struct StreamableHttp {
    pub(crate) config: HttpConfig,
    pub(crate) state: State,
    next_id: u64,
    pub(crate) session_id: Option<String>,
    pub(crate) protocol_version: Option<String>,
    /// The id of our `initialize` request, to recognise its answer.
    pub(crate) initialize_id: Option<Id>,
    /// The `initialize` POST still waiting for its head (a replayed one: for its answer):
    /// later messages are held until the session id (and protocol version) is known.
    pub(crate) gate: Option<HttpRequestId>,
    pub(crate) held: VecDeque<Vec<u8>>,
    /// When the gate is the standalone `GET` stream: the time it opens anyway (armed by the
    /// input that opened the stream). A legacy server sends its own requests (sampling,
    /// elicitation, roots) on that stream alone and may drop them while it is not open yet, so
    /// a tool call that overtook the `GET` would wait for an elicitation that never comes.
    pub(crate) listen_wait: Option<Instant>,
    /// Whether a `Listen` stream is open or scheduled (there is at most one).
    pub(crate) listening: bool,
    /// Whether the server answered anything yet: before that, an unreachable server is fatal.
    pub(crate) reached: bool,
    pub(crate) exchanges: VecMap<HttpRequestId, Exchange>,
    pub(crate) scheduled: Vec<Scheduled>,
    requests: VecDeque<HttpRequest>,
    pub(crate) aborts: VecDeque<HttpRequestId>,
    pub(crate) messages: VecDeque<Vec<u8>>,
    pub(crate) events: VecDeque<HttpEvent>,
    /// The client's `initialize` request, replayed to start a new session after a `404`.
    pub(crate) initialize_body: Option<Vec<u8>>,
    /// The id of a replayed `initialize` whose answer must not reach the session.
    pub(crate) replay_id: Option<Id>,
    /// The ids of the sessions the server forgot (answered `404` for), oldest first; one new
    /// session was started after each. Its length numbers the current session (see
    /// `Exchange::session`).
    pub(crate) forgotten: Vec<String>,
    /// OAuth state: the bearer token, messages held while authorizing, attempts.
    pub(crate) auth: super::auth::AuthState,
    /// What modern (2026-07-28) requests need: parameter headers learned from tool lists.
    pub(crate) modern: super::modern::ModernState,
}

impl StreamableHttp {
    /// A machine for one endpoint. Nothing is sent until the first [`send`](Self::send).
    pub fn new(config: HttpConfig) -> Self {
        StreamableHttp {
            config,
            state: State::Open,
            next_id: 1,
            session_id: None,
            protocol_version: None,
            initialize_id: None,
            gate: None,
            held: VecDeque::new(),
            listen_wait: None,
            listening: false,
            reached: false,
            exchanges: VecMap::new(),
            scheduled: Vec::new(),
            requests: VecDeque::new(),
            aborts: VecDeque::new(),
            messages: VecDeque::new(),
            events: VecDeque::new(),
            initialize_body: None,
            replay_id: None,
            forgotten: Vec::new(),
            auth: super::auth::AuthState::default(),
            modern: Default::default(),
        }
    }

    // ----- getters -----

    /// The configuration.
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// The session id the server assigned, once `initialize` was answered.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The negotiated protocol version, once the `initialize` result passed through.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// Whether the machine has closed (a `Closed` event was or is about to be emitted).
    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed(_))
    }

    /// Why the machine closed, once it has.
    pub fn closed_reason(&self) -> Option<&str> {
        match &self.state {
            State::Closed(reason) => Some(reason),
            _ => None,
        }
    }

    /// Whether a new session is being started after a `404`.
    pub(crate) fn replaying(&self) -> bool {
        self.replay_id.is_some()
    }

    /// HTTP requests in flight (reported but not yet ended).
    pub fn in_flight(&self) -> usize {
        self.exchanges.len()
    }

    // ----- commands -----

    /// Sends JSON-RPC messages: `bytes` holds one or more whole lines (the trailing newline is
    /// optional); each non-blank line becomes one `POST`.
    pub fn send(&mut self, now: Instant, bytes: &[u8]) -> Result<(), HttpError> {
        match &self.state {
            State::Open => {}
            State::Closing { .. } => return Err(HttpError::Closed("closing".into())),
            State::Closed(reason) => return Err(HttpError::Closed(reason.clone())),
        }
        for line in bytes.split(|&b| b == b'\n') {
            if !super::messages::is_blank(line) {
                self.post(line.to_vec());
            }
        }
        self.arm_listen_wait(now);
        Ok(())
    }

    /// Ends the session: every request in flight is aborted, and a `DELETE` is sent when the
    /// server gave a session id. The machine closes when the `DELETE` is answered, fails, or
    /// `close_timeout` passes. Calling it again does nothing.
    pub fn close(&mut self, now: Instant) {
        if self.state != State::Open {
            return;
        }
        self.abort_all();
        match self.session_id {
            Some(_) => {
                // `headers` adds the session id, which is all the server needs to end it.
                let headers = self.headers(HttpMethod::Delete, None);
                self.issue(
                    HttpMethod::Delete,
                    headers,
                    None,
                    Exchange::new(Role::Delete, Vec::new()),
                );
                self.state = State::Closing {
                    deadline: now + self.config.close_timeout,
                };
            }
            None => self.shut_down("closed by the client".into()),
        }
    }

    // ----- outputs -----

    /// The next HTTP request to perform.
    pub fn poll_request(&mut self) -> Option<HttpRequest> {
        self.requests.pop_front()
    }

    /// The next request to drop (its stream is no longer wanted); further input about it is
    /// ignored.
    pub fn poll_abort(&mut self) -> Option<HttpRequestId> {
        self.aborts.pop_front()
    }

    /// The next JSON-RPC message from the server, as one line ending in `\n`.
    pub fn poll_message(&mut self) -> Option<Vec<u8>> {
        self.messages.pop_front()
    }

    /// The next event for the host.
    pub fn poll_event(&mut self) -> Option<HttpEvent> {
        self.events.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let reconnect = self
            .scheduled
            .iter()
            .map(|s| s.at)
            .chain(self.listen_wait)
            .min();
        let closing = match self.state {
            State::Closing { deadline } => Some(deadline),
            _ => None,
        };
        match (reconnect, closing) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    // ----- internals -----

    /// Queues the `POST` of one message, or holds it while `initialize` awaits its answer.
    pub(crate) fn post(&mut self, body: Vec<u8>) {
        if self.auth_pending() {
            // Sent without a token it would only be refused again.
            self.hold_for_authorization(body);
            return;
        }
        if self.gate.is_some() {
            self.held.push_back(body);
            return;
        }
        let parsed = Message::parse(&body);
        let (awaiting, initialize, opens_listen) = match &parsed {
            Ok(Message::Request(request)) => {
                let initialize = request.method == "initialize";
                if initialize {
                    // A legacy session after all (the probe found a legacy server).
                    self.modern.seen = false;
                    self.initialize_id = Some(request.id.clone());
                    if self.replay_id.is_none() {
                        self.initialize_body = Some(body.clone());
                    }
                }
                (vec![request.id.clone()], initialize, false)
            }
            Ok(Message::Notification(n)) => {
                let opens = n.method == "notifications/initialized";
                (Vec::new(), false, opens)
            }
            // Responses and anything unparseable owe us nothing back.
            _ => (Vec::new(), false, false),
        };
        let mut headers = self.headers(HttpMethod::Post, None);
        match &parsed {
            Ok(Message::Request(request)) => {
                self.add_modern_headers(&request.method, Some(request), &mut headers);
            }
            Ok(Message::Notification(n)) => self.add_modern_headers(&n.method, None, &mut headers),
            _ => {}
        }
        let mut exchange = Exchange::new(Role::Post { initialize }, awaiting);
        exchange.modern = self.modern.seen;
        exchange.request_body = Some(body.clone());
        exchange.session = self.forgotten.len();
        let id = self.issue(HttpMethod::Post, headers, Some(body), exchange);
        if initialize {
            self.gate = Some(id);
        }
        if opens_listen {
            // Right away rather than after the 202, and what follows waits for the stream's
            // head: the stream is then in place before the first requests, so a server that
            // sends its requests on it (or on "any open stream") never finds it missing.
            if let Some(listen) = self.start_listening() {
                if self.gate.is_none() {
                    self.gate = Some(listen);
                }
            }
        }
    }

    /// Starts the clock of a gate on the standalone stream opened by the input at `now`.
    pub(crate) fn arm_listen_wait(&mut self, now: Instant) {
        let on_listen = self
            .gate
            .and_then(|id| self.exchanges.get(&id))
            .is_some_and(|exchange| exchange.role == Role::Listen);
        if on_listen && self.listen_wait.is_none() {
            self.listen_wait = Some(now + LISTEN_WAIT);
        }
    }

    /// Releases the messages held behind the `initialize` gate, in order.
    pub(crate) fn release_gate(&mut self, id: HttpRequestId) {
        if self.gate != Some(id) {
            return;
        }
        self.gate = None;
        self.listen_wait = None;
        while self.gate.is_none() && self.state == State::Open {
            let Some(body) = self.held.pop_front() else {
                break;
            };
            self.post(body);
        }
    }

    /// The headers of a request: user headers, then the protocol's own.
    pub(crate) fn headers(
        &self,
        method: HttpMethod,
        last_event_id: Option<&str>,
    ) -> Vec<(String, String)> {
        let mut headers: Vec<(String, String)> = self
            .config
            .headers
            .iter()
            .filter(|(name, _)| {
                !PROTOCOL_HEADERS
                    .iter()
                    .any(|own| name.eq_ignore_ascii_case(own))
            })
            .cloned()
            .collect();
        let mut add = |name: &str, value: &str| headers.push((name.into(), value.into()));
        match method {
            HttpMethod::Post => {
                add("Content-Type", "application/json");
                add("Accept", "application/json, text/event-stream");
            }
            HttpMethod::Get => add("Accept", "text/event-stream"),
            HttpMethod::Delete => {}
        }
        if let Some(session) = &self.session_id {
            add("Mcp-Session-Id", session);
        }
        if let Some(version) = &self.protocol_version {
            add("MCP-Protocol-Version", version);
        }
        if let Some(event_id) = last_event_id {
            add("Last-Event-ID", event_id);
        }
        if let Some(token) = &self.auth.access_token {
            // The token replaces any `Authorization` the user configured.
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            let scheme = match self.auth.dpop {
                true => crate::mcp::oauth::dpop::DPOP_SCHEME,
                false => "Bearer",
            };
            headers.push(("Authorization".into(), format!("{scheme} {token}")));
        }
        headers
    }

    /// Queues a request and records its exchange.
    pub(crate) fn issue(
        &mut self,
        method: HttpMethod,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
        exchange: Exchange,
    ) -> HttpRequestId {
        let id = HttpRequestId(self.next_id);
        self.next_id += 1;
        self.requests.push_back(HttpRequest {
            id,
            method,
            url: self.config.url.clone(),
            headers,
            body,
        });
        self.exchanges.insert(id, exchange);
        id
    }

    /// Starts a `GET` for a stream (standalone or resumed), carrying over its event id.
    pub(crate) fn open_stream(&mut self, exchange: Exchange) -> HttpRequestId {
        let headers = self.headers(HttpMethod::Get, exchange.last_event_id.as_deref());
        let fresh = Exchange {
            body: super::exchange::Body::Head,
            got_event: false,
            ..exchange
        };
        self.issue(HttpMethod::Get, headers, None, fresh)
    }

    /// Drops an exchange and tells the host to stop performing it.
    pub(crate) fn abort(&mut self, id: HttpRequestId) {
        if self.exchanges.remove(&id).is_some() {
            self.aborts.push_back(id);
        }
        if self.gate == Some(id) {
            // A dropped stream answers nothing: what waited behind it waits for the next gate
            // (a new session's `initialize`) or goes with the machine.
            self.gate = None;
            self.listen_wait = None;
        }
    }

    fn abort_all(&mut self) {
        let ids: Vec<HttpRequestId> = self.exchanges.keys().copied().collect();
        for id in ids {
            self.abort(id);
        }
        // Requests not yet taken by the host are simply never performed.
        self.requests.clear();
        self.scheduled.clear();
        self.held.clear();
        self.auth.streams.clear();
        self.listening = false;
    }

    /// Closes the machine for good with `reason`; emits the single `Closed` event.
    pub(crate) fn shut_down(&mut self, reason: String) {
        if self.is_closed() {
            return;
        }
        self.abort_all();
        self.state = State::Closed(reason.clone());
        self.events.push_back(HttpEvent::Closed { reason });
    }

    /// Hands `line` to the session, except the answer to a replayed `initialize`.
    pub(crate) fn deliver(&mut self, line: Vec<u8>) {
        if let Some(replay) = &self.replay_id {
            if let Ok(Message::Response(response)) = Message::parse(&line) {
                if response.id.as_ref() == Some(replay) {
                    self.replay_id = None;
                    // The new session's protocol version is known now (read from this answer
                    // as it passed): the messages waiting for it can carry it.
                    if let Some(gate) = self.gate {
                        self.release_gate(gate);
                    }
                    return;
                }
            }
        }
        self.messages.push_back(line);
    }

    /// Reports a non-fatal problem.
    pub(crate) fn warn(&mut self, message: String) {
        self.events.push_back(HttpEvent::Warning { message });
    }
}
