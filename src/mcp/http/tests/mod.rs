//! Tests of the Streamable HTTP machine against scripted HTTP responses, with simulated time.

mod auth;
mod auth_streams;
mod basics;
mod chaos;
mod errors;
mod listen_gate;
mod modern;
mod oversize;
mod pair;
mod renewal;
mod streams;

use super::{HttpConfig, HttpEvent, HttpMethod, HttpRequest, HttpRequestId, StreamableHttp};
use crate::time::Instant;
use serde_json::{json, Value};

pub(super) const URL: &str = "http://127.0.0.1:9/mcp";

/// A scripted host: the test plays the server by answering the machine's requests by hand.
pub(super) struct Host {
    pub http: StreamableHttp,
    pub now: Instant,
}

pub(super) fn hdr(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

impl Host {
    pub fn new() -> Self {
        Self::with(HttpConfig::new(URL))
    }

    pub fn with(config: HttpConfig) -> Self {
        Host {
            http: StreamableHttp::new(config),
            now: Instant::from_millis(1_000),
        }
    }

    pub fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        self.http.send(self.now, &line).unwrap();
    }

    /// The next request, which the test insists exists.
    pub fn request(&mut self) -> HttpRequest {
        self.http
            .poll_request()
            .expect("the machine should have issued a request")
    }

    /// Takes the standalone `GET` stream's request and answers it with an open event stream,
    /// which releases the messages held behind it; its id.
    pub fn listen(&mut self) -> HttpRequestId {
        let get = self.request();
        assert_eq!(
            get.method,
            HttpMethod::Get,
            "the standalone stream opens first"
        );
        self.sse_head(get.id);
        get.id
    }

    pub fn no_request(&mut self) {
        assert_eq!(self.http.poll_request(), None);
    }

    pub fn head(&mut self, id: HttpRequestId, status: u16, headers: &[(&str, &str)]) {
        self.http
            .handle_response_head(self.now, id, status, &hdr(headers));
    }

    pub fn chunk(&mut self, id: HttpRequestId, bytes: &str) {
        self.http.handle_body_chunk(self.now, id, bytes.as_bytes());
    }

    pub fn end(&mut self, id: HttpRequestId) {
        self.http.handle_body_end(self.now, id);
    }

    /// A whole JSON answer.
    pub fn json(&mut self, id: HttpRequestId, headers: &[(&str, &str)], body: &str) {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        self.head(id, 200, &all);
        self.chunk(id, body);
        self.end(id);
    }

    pub fn accepted(&mut self, id: HttpRequestId) {
        self.head(id, 202, &[]);
        self.end(id);
    }

    pub fn sse_head(&mut self, id: HttpRequestId) {
        self.head(id, 200, &[("Content-Type", "text/event-stream")]);
    }

    /// Every message handed up so far, parsed.
    pub fn messages(&mut self) -> Vec<Value> {
        std::iter::from_fn(|| self.http.poll_message())
            .map(|line| {
                assert_eq!(line.last(), Some(&b'\n'), "each message ends its line");
                assert_eq!(
                    line.iter().filter(|&&b| b == b'\n').count(),
                    1,
                    "one message, one line"
                );
                serde_json::from_slice(&line).unwrap()
            })
            .collect()
    }

    pub fn events(&mut self) -> Vec<HttpEvent> {
        std::iter::from_fn(|| self.http.poll_event()).collect()
    }

    pub fn aborts(&mut self) -> Vec<HttpRequestId> {
        std::iter::from_fn(|| self.http.poll_abort()).collect()
    }

    pub fn advance(&mut self, ms: u64) {
        self.now = Instant::from_millis(self.now.as_millis() + ms);
        self.http.handle_timeout(self.now);
    }

    /// Runs the handshake against a server that assigns `session` and answers in JSON; leaves
    /// the `GET` stream request (if any) unanswered in the queue.
    pub fn handshake(&mut self, session: &str) {
        self.send(initialize(1));
        let init = self.request();
        self.json(
            init.id,
            &[("Mcp-Session-Id", session)],
            &init_result(1, "2025-11-25").to_string(),
        );
        assert_eq!(self.messages().len(), 1);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let initialized = self.request();
        self.accepted(initialized.id);
    }
}

pub(super) fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}})
}

pub(super) fn init_result(id: u64, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": version, "capabilities": {"tools": {}},
        "serverInfo": {"name": "scripted", "version": "1"}}})
}

pub(super) fn call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hi"}}})
}

/// Sends `call(id)` and answers its `POST` with a stream that ends after a priming event
/// `ev-1` (retry 500 ms), the polling pattern: a resumption is scheduled.
pub(super) fn break_stream(host: &mut Host, id: u64) {
    host.send(call(id));
    let post = host.request();
    host.sse_head(post.id);
    host.chunk(post.id, "id: ev-1\nretry: 500\ndata: \n\n");
    host.end(post.id);
}

pub(super) fn result(id: u64, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}

pub(super) fn is_get(request: &HttpRequest) -> bool {
    request.method == HttpMethod::Get
}
