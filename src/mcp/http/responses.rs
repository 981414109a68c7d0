//! Inputs of the Streamable HTTP machine: response heads, body chunks, ends, errors, timers.

use super::exchange::{Body, Exchange, Role, Scheduled};
use super::machine::{State, StreamableHttp};
use super::messages::{body_excerpt, error_line, is_blank, split};
use super::types::{describe_status, find_header, HttpRequestId};
use crate::json::quoted;
use crate::jsonrpc::Id;
use crate::rpc::sniff_response_id;
use crate::sse::{DroppedEvent, SseDecoder, SseEvent};
use crate::time::Instant;
use serde_json::Value;
use std::time::Duration;

/// How much of an error body is kept for the message.
const ERROR_BODY_BYTES: usize = 2048;

impl StreamableHttp {
    /// The status line and headers of request `id` arrived.
    pub fn handle_response_head(
        &mut self,
        now: Instant,
        id: HttpRequestId,
        status: u16,
        headers: &[(String, String)],
    ) {
        self.take_head(id, status, headers);
        self.arm_listen_wait(now);
    }

    fn take_head(&mut self, id: HttpRequestId, status: u16, headers: &[(String, String)]) {
        if self.is_closed() {
            return;
        }
        let Some(exchange) = self.exchanges.get_mut(&id) else {
            return;
        };
        if !matches!(exchange.body, Body::Head) {
            return;
        }
        self.reached = true;
        let role = exchange.role;
        if role == Role::Listen {
            // Answered, whatever the status: the server knows of the stream now (or refused
            // it), so the messages held behind it can go.
            self.release_gate(id);
        }
        let success = (200..300).contains(&status);
        if self.authorization_refused(id, status, headers) {
            return;
        }
        let Some(exchange) = self.exchanges.get_mut(&id) else {
            return;
        };
        let content_type = find_header(headers, "content-type")
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        exchange.body = if role == Role::Delete {
            Body::Discard
        } else if success && content_type.starts_with("text/event-stream") {
            let limit = self.config.max_message_bytes;
            Body::Sse(Box::new(SseDecoder::with_max_event_bytes(limit)))
        } else if success && content_type.starts_with("application/json") && role != Role::Listen {
            Body::Json(Vec::new())
        } else if success && exchange.awaiting.is_empty() && matches!(role, Role::Post { .. }) {
            // A notification or response was accepted (normally `202` with no body).
            Body::Discard
        } else if success {
            let got = match content_type.as_str() {
                "" => "no Content-Type".to_owned(),
                other => format!("Content-Type {}", quoted(other)),
            };
            Body::Error {
                status,
                detail: Some(format!(
                    "expected text/event-stream or application/json, got {got}"
                )),
                text: Vec::new(),
            }
        } else {
            let detail =
                find_header(headers, "www-authenticate").map(|v| format!("WWW-Authenticate: {v}"));
            Body::Error {
                status,
                detail,
                text: Vec::new(),
            }
        };
        match role {
            Role::Delete => self.shut_down("closed by the client".into()),
            Role::Post { initialize: true } if success => {
                self.adopt_session_id(headers);
                // A replayed `initialize` keeps the gate until its answer is read: the messages
                // behind it need the new session's `MCP-Protocol-Version`, which the session
                // above never asks for again.
                if !self.replaying() {
                    self.release_gate(id);
                }
            }
            _ => {}
        }
    }

    /// A chunk of the body of request `id` arrived.
    pub fn handle_body_chunk(&mut self, now: Instant, id: HttpRequestId, bytes: &[u8]) {
        self.take_chunk(id, bytes);
        self.arm_listen_wait(now);
    }

    fn take_chunk(&mut self, id: HttpRequestId, bytes: &[u8]) {
        if self.is_closed() {
            return;
        }
        let Some(mut exchange) = self.exchanges.remove(&id) else {
            return;
        };
        let mut keep = true;
        match &mut exchange.body {
            Body::Head | Body::Discard => {}
            Body::Json(buffer) => {
                if buffer.len() + bytes.len() > self.config.max_message_bytes {
                    let message = format!(
                        "the server's JSON response is larger than {} bytes",
                        self.config.max_message_bytes
                    );
                    self.fail_awaiting(&exchange.awaiting, &message, None);
                    keep = false;
                } else {
                    buffer.extend_from_slice(bytes);
                }
            }
            Body::Error { text, .. } => {
                let room = ERROR_BODY_BYTES.saturating_sub(text.len());
                text.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            Body::Sse(decoder) => {
                let pushed = decoder.push(bytes);
                let decoded = Decoded::drain(decoder, None);
                if let Err(error) = pushed {
                    // Said at once; which request (if any) it costs is known when it ends.
                    self.warn(format!("{} on {}", error, self.config.url));
                }
                self.take_events(&mut exchange, decoded);
                // A resumed stream has done its job once every response it owed arrived.
                keep = !(exchange.role == Role::Resume && exchange.awaiting.is_empty());
            }
        }
        if self.is_closed() {
            return;
        }
        self.exchanges.insert(id, exchange);
        if !keep {
            self.abort(id);
        }
    }

    /// The body of request `id` ended normally.
    pub fn handle_body_end(&mut self, now: Instant, id: HttpRequestId) {
        self.finish(now, id, None);
        self.arm_listen_wait(now);
    }

    /// Request `id` failed: before its head (connection refused, DNS, TLS, ...) or while its
    /// body was streaming (connection reset, ...). `message` should say what happened.
    pub fn handle_request_error(&mut self, now: Instant, id: HttpRequestId, message: &str) {
        self.finish(now, id, Some(message));
        self.arm_listen_wait(now);
    }

    /// Starts the reconnections that are due and ends a `close` whose `DELETE` went
    /// unanswered. Harmless if called early.
    pub fn handle_timeout(&mut self, now: Instant) {
        if let State::Closing { deadline } = self.state {
            if now >= deadline {
                self.shut_down(
                    "closed by the client (the server did not answer DELETE in time)".into(),
                );
            }
            return;
        }
        if self.state != State::Open {
            return;
        }
        if let (Some(gate), Some(at)) = (self.gate, self.listen_wait) {
            if now >= at {
                // The stream is slow to answer (it stays open): the messages go anyway.
                self.release_gate(gate);
            }
        }
        let (due, later): (Vec<Scheduled>, Vec<Scheduled>) = std::mem::take(&mut self.scheduled)
            .into_iter()
            .partition(|s| s.at <= now);
        self.scheduled = later;
        for scheduled in due {
            if self.auth_pending() {
                // Sent with the token being replaced it would only be refused again.
                self.auth.streams.push(scheduled.exchange);
            } else {
                self.open_stream(scheduled.exchange);
            }
        }
    }

    // ----- internals -----

    fn adopt_session_id(&mut self, headers: &[(String, String)]) {
        let Some(session) = find_header(headers, "mcp-session-id") else {
            return; // A stateless server: no session to echo.
        };
        if !session.is_empty() && session.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            self.session_id = Some(session.to_owned());
        } else {
            self.warn(format!(
                "ignored an Mcp-Session-Id with characters outside visible ASCII: {}",
                quoted(session)
            ));
        }
    }

    /// Opens the standalone `GET` stream unless it is open, off or the machine is not open;
    /// the id of its request.
    pub(crate) fn start_listening(&mut self) -> Option<HttpRequestId> {
        if !self.listening && self.config.listen && self.state == State::Open {
            self.listening = true;
            return Some(self.open_stream(Exchange::new(Role::Listen, Vec::new())));
        }
        None
    }

    /// Applies decoded events of `exchange`'s stream: messages go up, the last event id and the
    /// stream's reconnection time (`retry`, in ms) are kept, dropped events fail what they
    /// answered.
    fn take_events(&mut self, exchange: &mut Exchange, decoded: Decoded) {
        let Decoded {
            events,
            dropped,
            last_id,
            retry,
        } = decoded;
        if last_id.is_some() && last_id != exchange.last_event_id {
            // Also counts an id-only block, which the decoder does not dispatch.
            exchange.got_event = true;
            exchange.last_event_id = last_id;
        }
        // Read from the decoder rather than from events: a `retry:` in a block without data
        // is never dispatched, yet it still sets the delay.
        if let Some(ms) = retry {
            exchange.retry = Some(Duration::from_millis(ms));
        }
        for event in events {
            exchange.got_event = true;
            // Priming events carry only an id; other event types are not MCP messages.
            if event.event == "message" && !is_blank(event.data.as_bytes()) {
                let answered = self.receive(event.data.as_bytes());
                exchange.awaiting.retain(|id| !answered.contains(id));
            }
        }
        for event in dropped {
            exchange.got_event = true;
            self.take_dropped(exchange, event);
        }
    }

    /// An event on `exchange`'s stream was discarded for its size. When its edges show it was
    /// the response to a request awaited on this stream or any other, that request fails now,
    /// and the stream reads on. When they do not tell, the requests awaited on this stream fail
    /// should it end without their answers (see `stream_ended`). A response to nothing awaited
    /// and an event of another type cost nothing more than the warning already given.
    fn take_dropped(&mut self, exchange: &mut Exchange, event: DroppedEvent) {
        if event.event != "message" {
            return;
        }
        let detail = format!(
            "a server-sent event from {} was larger than {} bytes",
            self.config.url, event.limit
        );
        let Some(id) = sniff_response_id(&event.edges) else {
            exchange.dropped_event = Some(detail);
            return;
        };
        let awaited = |e: &Exchange| e.awaiting.contains(&id);
        if awaited(exchange)
            || self.exchanges.iter().any(|(_, e)| awaited(e))
            || self.scheduled.iter().any(|s| awaited(&s.exchange))
            || self.auth.streams.iter().any(awaited)
        {
            exchange.answered(&id);
            self.settle(&id);
            let message = format!("the server's answer was dropped: {detail}");
            self.fail_awaiting(&[id], &message, None);
        }
    }

    /// Request `id` got its answer (or failed for good): no stream waits for it any more, and a
    /// scheduled resumption, or one held for authorization, owed nothing else is called off.
    /// (The exchange being read is out of the table; its caller updates it.)
    pub(crate) fn settle(&mut self, id: &Id) {
        for exchange in self.exchanges.values_mut() {
            exchange.answered(id);
        }
        for scheduled in &mut self.scheduled {
            scheduled.exchange.answered(id);
        }
        self.scheduled
            .retain(|s| !(s.exchange.role == Role::Resume && s.exchange.awaiting.is_empty()));
        for held in &mut self.auth.streams {
            held.answered(id);
        }
        self.auth
            .streams
            .retain(|e| !(e.role == Role::Resume && e.awaiting.is_empty()));
    }

    /// Hands the messages in `text` up; returns the ids of the responses among them.
    fn receive(&mut self, text: &[u8]) -> Vec<Id> {
        let mut answered = Vec::new();
        for incoming in split(text) {
            let mut line = incoming.line;
            if let Some(mut id) = incoming.response_to {
                self.settle(&id);
                if let Some((original, readdressed)) = self.readdress(&id, &line) {
                    answered.push(id);
                    (id, line) = (original, readdressed);
                }
                self.learn_tool_headers(&id, incoming.value.as_ref());
                if self.initialize_id.as_ref() == Some(&id) {
                    self.initialize_id = None;
                    let version = incoming
                        .value
                        .as_ref()
                        .and_then(|v| v.pointer("/result/protocolVersion"))
                        .and_then(Value::as_str);
                    self.protocol_version = version.map(str::to_owned);
                }
                answered.push(id);
            }
            self.deliver(line);
        }
        answered
    }

    /// Synthesizes an error response for each request that will not be answered.
    pub(crate) fn fail_awaiting(&mut self, ids: &[Id], message: &str, status: Option<u16>) {
        for id in ids {
            // A re-issued request fails under the id the session knows.
            let id = self.forget_reissue(id);
            self.deliver(error_line(&id, message, status));
        }
    }

    fn finish(&mut self, now: Instant, id: HttpRequestId, error: Option<&str>) {
        if self.is_closed() {
            return;
        }
        let Some(mut exchange) = self.exchanges.remove(&id) else {
            return;
        };
        if exchange.role == Role::Delete {
            self.shut_down("closed by the client".into());
            return;
        }
        match std::mem::replace(&mut exchange.body, Body::Discard) {
            Body::Head => self.unreachable(now, exchange, error.unwrap_or("no response")),
            Body::Json(buffer) => {
                if let Some(error) = error {
                    let message = format!(
                        "the JSON response from {} broke off: {error}",
                        self.config.url
                    );
                    self.fail_awaiting(&exchange.awaiting, &message, None);
                } else {
                    let answered = if is_blank(&buffer) {
                        Vec::new()
                    } else {
                        self.receive(&buffer)
                    };
                    exchange.awaiting.retain(|id| !answered.contains(id));
                    let message = "the server's JSON response did not answer this request";
                    self.fail_awaiting(&exchange.awaiting, message, None);
                }
            }
            Body::Sse(mut decoder) => {
                let last = decoder.finish();
                let decoded = Decoded::drain(&mut decoder, last);
                self.take_events(&mut exchange, decoded);
                if !self.is_closed() {
                    self.stream_ended(now, exchange, error);
                }
            }
            Body::Error {
                status,
                detail,
                text,
            } => self.refused(exchange, status, detail, &text),
            Body::Discard => {}
        }
        self.release_gate(id);
    }

    /// The request failed before any response: the server could not be reached.
    fn unreachable(&mut self, now: Instant, exchange: Exchange, error: &str) {
        let url = self.config.url.clone();
        match exchange.role {
            Role::Post { .. } if !self.reached => {
                self.shut_down(format!("could not reach the MCP server at {url}: {error}"));
            }
            Role::Post { .. } if exchange.awaiting.is_empty() => {
                self.warn(format!("could not deliver a message to {url}: {error}"));
            }
            Role::Post { .. } => {
                let message = format!("POST to {url} failed: {error}");
                self.fail_awaiting(&exchange.awaiting, &message, None);
            }
            Role::Listen | Role::Resume => self.stream_ended(now, exchange, Some(error)),
            Role::Delete => self.shut_down("closed by the client".into()),
        }
    }

    /// An event stream ended (cleanly, or with `error`): reconnect if something is still owed
    /// on it and it can be resumed, or give up and say why.
    fn stream_ended(&mut self, now: Instant, exchange: Exchange, error: Option<&str>) {
        let resumable = match exchange.role {
            Role::Listen => true,
            Role::Post { .. } | Role::Resume => !exchange.awaiting.is_empty(),
            Role::Delete => false,
        };
        if !resumable {
            return;
        }
        let cause = error.map_or_else(String::new, |e| format!(" ({e})"));
        if let (false, Some(dropped)) = (exchange.role == Role::Listen, &exchange.dropped_event) {
            // The stream ended without the answer after an event too large to keep: that event
            // was the answer, and a resumption (after its id) would only wait for a timeout.
            let message = format!("the server's answer was dropped: {dropped}");
            return self.fail_awaiting(&exchange.awaiting, &message, None);
        }
        if exchange.role != Role::Listen && exchange.session < self.forgotten.len() {
            // A stream of a session the server forgot: its event ids mean nothing now.
            let message = format!("{}{cause}", self.forgotten_stream(exchange.session));
            return self.fail_awaiting(&exchange.awaiting, &message, Some(404));
        }
        if exchange.modern && exchange.role != Role::Listen {
            // No resumption in the modern era: the request is sent again under a new id.
            if self.reissue(&exchange) {
                return;
            }
            let message = format!(
                "the server closed the event stream before answering{cause}, also after {} \
                 re-sends",
                exchange.attempt
            );
            return self.fail_awaiting(&exchange.awaiting, &message, None);
        }
        if exchange.role != Role::Listen && exchange.last_event_id.is_none() {
            let message = format!(
                "the server closed the event stream before answering{cause} and sent no event id to resume from"
            );
            return self.fail_awaiting(&exchange.awaiting, &message, None);
        }
        let attempt = if exchange.got_event {
            1
        } else {
            exchange.attempt + 1
        };
        if attempt > self.config.max_reconnects {
            let message = format!(
                "gave up on the event stream from {} after {} reconnections brought nothing{cause}",
                self.config.url, self.config.max_reconnects
            );
            if exchange.role == Role::Listen {
                self.listening = false;
                return self.warn(message);
            }
            return self.fail_awaiting(&exchange.awaiting, &message, None);
        }
        let base = exchange.retry.unwrap_or(self.config.default_retry);
        // A clean close is the server's polling pattern: come back after exactly `retry`.
        // A network error backs off exponentially.
        let delay = match error {
            None => base,
            Some(_) => base
                .saturating_mul(1 << (attempt - 1).min(16))
                .min(self.config.max_retry.max(base)),
        };
        let role = match exchange.role {
            Role::Listen => Role::Listen,
            _ => Role::Resume,
        };
        self.scheduled.push(Scheduled {
            at: now + delay,
            exchange: Exchange {
                role,
                attempt,
                ..exchange
            },
        });
    }

    /// The server answered with an error status (or an unusable success).
    fn refused(&mut self, exchange: Exchange, status: u16, detail: Option<String>, text: &[u8]) {
        let method = match exchange.role {
            Role::Post { .. } => "POST",
            Role::Listen | Role::Resume => "GET",
            Role::Delete => "DELETE",
        };
        let mut message = format!(
            "{} from {method} {}",
            describe_status(status),
            self.config.url
        );
        if let Some(detail) = detail {
            message.push_str(&format!(" ({detail})"));
        }
        if !is_blank(text) {
            message.push_str(&format!(": {}", body_excerpt(text)));
        }
        let post = matches!(exchange.role, Role::Post { .. });
        let credentials = matches!(status, 401 | 403);
        let modern = exchange.modern && post && !credentials;
        if let (true, [id]) = (modern, exchange.awaiting.as_slice()) {
            // A modern server says why in a JSON-RPC error (an unsupported version, a header
            // that does not match the body, ...): the session acts on its code.
            if let Some(line) = super::modern::error_body_line(id, text) {
                self.settle(id);
                return self.deliver(line);
            }
        }
        match status {
            // With OAuth on, `authorization_refused` took these at the head.
            401 | 403 if exchange.role != Role::Listen => self.shut_down(format!(
                "{message}; the server refused our credentials (check the `headers` in this server's config)"
            )),
            404 if post && self.renewable(&exchange) => self.session_not_found(exchange, &message),
            _ if exchange.role == Role::Listen => {
                self.listening = false;
                // 405 is how a server says it offers no GET stream: nothing to report.
                if status != 405 {
                    self.warn(format!("no server-to-client stream: {message}"));
                }
            }
            _ if exchange.awaiting.is_empty() => {
                self.warn(format!("the server rejected a message: {message}"));
            }
            _ => self.fail_awaiting(&exchange.awaiting, &message, Some(status)),
        }
    }
}

/// What an SSE decoder produced since it was last drained.
struct Decoded {
    events: Vec<SseEvent>,
    dropped: Vec<DroppedEvent>,
    last_id: Option<String>,
    retry: Option<u64>,
}

impl Decoded {
    /// Takes everything `decoder` has ready; `first` is an event handed out already (by
    /// `finish`), which goes before the queued ones.
    fn drain(decoder: &mut SseDecoder, first: Option<SseEvent>) -> Self {
        let mut events: Vec<SseEvent> = first.into_iter().collect();
        events.extend(std::iter::from_fn(|| decoder.next_event()));
        Decoded {
            events,
            dropped: std::iter::from_fn(|| decoder.next_dropped()).collect(),
            last_id: decoder.last_event_id().map(str::to_owned),
            retry: decoder.reconnection_time(),
        }
    }
}
