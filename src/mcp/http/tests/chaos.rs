//! A hostile or broken server under the whole stack (a real `ClientSession` over the machine).
//! Each run's server has a temper: it mostly gives the right next answer (a head, then the
//! JSON or SSE answer to the ids the request carried, then the end), so sessions get far, and
//! otherwise does something random: any status, odd headers, garbage or cut chunks, an early
//! end, a connection error, an authorization challenge, or nothing; time jumps ahead too. The
//! machine must never panic, never pile up requests, and end once closed, within its close
//! timeout.

use super::{hdr, init_result, URL};
use crate::mcp::http::{
    HttpConfig, HttpEvent, HttpMethod, HttpRequest, HttpRequestId, StreamableHttp,
};
use crate::mcp::{CallOptions, ClientSession, SessionConfig};
use crate::test_rng::Rng;
use crate::time::Instant;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

const RUNS: u64 = 400;
const STEPS: usize = 150;
/// More requests in flight than this would mean the machine retries without bound.
const MAX_IN_FLIGHT: usize = 64;

/// How far the server got in answering one request.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    Fresh,
    Json,
    Sse,
}

/// One run's world: the session, the machine, the server's open requests and the clock.
struct World {
    rng: Rng,
    /// Out of 100 actions, how many are random rather than the right next answer.
    hostility: usize,
    session: ClientSession,
    http: StreamableHttp,
    open: Vec<HttpRequest>,
    stages: HashMap<HttpRequestId, Stage>,
    now: Instant,
}

impl World {
    fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        let mut config = HttpConfig::new(URL);
        config.oauth = rng.below(2) == 0;
        config.listen = rng.below(2) == 0;
        config.max_message_bytes = *rng.pick(&[300, 4_096, 1 << 20]);
        config.close_timeout = Duration::from_secs(5);
        let session = SessionConfig {
            initialize_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            ..SessionConfig::default()
        };
        let now = Instant::from_millis(1_000);
        World {
            hostility: *rng.pick(&[5, 20, 50]),
            rng,
            session: ClientSession::new(session, now),
            http: StreamableHttp::new(config),
            open: Vec::new(),
            stages: HashMap::new(),
            now,
        }
    }

    /// Moves everything both ways: lines, requests, aborts, events.
    fn pump(&mut self) {
        for _ in 0..100 {
            let mut moved = false;
            while let Some(line) = self.session.poll_transmit() {
                // A closed machine refuses; the session learns it from the close below.
                let _ = self.http.send(self.now, &line);
                moved = true;
            }
            while let Some(line) = self.http.poll_message() {
                self.session.handle_bytes(self.now, &line);
                moved = true;
            }
            while let Some(request) = self.http.poll_request() {
                self.open.push(request);
                moved = true;
            }
            while let Some(id) = self.http.poll_abort() {
                self.open.retain(|r| r.id != id);
            }
            while let Some(event) = self.http.poll_event() {
                match event {
                    HttpEvent::AuthorizationRequired { .. } => match self.rng.below(3) {
                        0 => {
                            let _ = self.http.set_access_token(self.now, "tok");
                        }
                        1 => self.http.authorization_failed("the user said no"),
                        // Left pending: the machine holds the refused messages meanwhile.
                        _ => {}
                    },
                    HttpEvent::Closed { reason } => {
                        assert!(!reason.is_empty(), "a closed machine says why");
                        self.session.handle_transport_closed(&reason);
                    }
                    _ => {}
                }
                moved = true;
            }
            while self.session.poll_event().is_some() {}
            if !moved {
                return;
            }
        }
        panic!("the machine and the session kept talking to each other forever");
    }

    /// One random thing happens.
    fn step(&mut self) {
        match self.rng.below(10) {
            0 => {
                let _ = self.session.call_tool(
                    self.now,
                    "echo",
                    json!({"text": "x"}),
                    CallOptions::default(),
                );
            }
            1 => {
                let _ = self.session.list_tools(self.now);
            }
            2 => {
                let ms = *self.rng.pick(&[1, 100, 1_000, 4_000, 30_000]);
                self.advance(ms);
            }
            _ if !self.open.is_empty() => {
                let at = self.rng.below(self.open.len());
                self.answer(at);
            }
            _ => {}
        }
        self.pump();
        assert!(
            self.open.len() <= MAX_IN_FLIGHT,
            "{} requests in flight",
            self.open.len()
        );
    }

    fn advance(&mut self, ms: u64) {
        self.now = Instant::from_millis(self.now.as_millis() + ms);
        self.http.handle_timeout(self.now);
        self.session.handle_timeout(self.now);
    }

    /// Answers open request number `at`: usually its right next step, sometimes anything.
    fn answer(&mut self, at: usize) {
        if self.rng.below(100) < self.hostility {
            self.hostile(at);
        } else {
            self.proper(at);
        }
    }

    /// The right next step: a head that fits the request, then its answer, then the end.
    fn proper(&mut self, at: usize) {
        let request = self.open[at].clone();
        let id = request.id;
        let stage = *self.stages.get(&id).unwrap_or(&Stage::Fresh);
        let carries_id = request
            .body
            .as_deref()
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .is_some_and(|v| v.get("id").is_some() && v.get("method").is_some());
        match (stage, request.method.as_str()) {
            (Stage::Fresh, "POST") if carries_id => {
                let sse = self.rng.below(2) == 0;
                let kind = if sse {
                    "text/event-stream"
                } else {
                    "application/json"
                };
                let headers = hdr(&[("Content-Type", kind), ("Mcp-Session-Id", "S1")]);
                self.http.handle_response_head(self.now, id, 200, &headers);
                let stage = if sse { Stage::Sse } else { Stage::Json };
                self.stages.insert(id, stage);
            }
            (Stage::Fresh, "POST") => {
                self.http.handle_response_head(self.now, id, 202, &[]);
                self.end(id);
            }
            (Stage::Fresh, "GET") => {
                let status = *self.rng.pick(&[200, 405]);
                let headers = hdr(&[("Content-Type", "text/event-stream")]);
                self.http
                    .handle_response_head(self.now, id, status, &headers);
                if status == 200 {
                    self.stages.insert(id, Stage::Sse);
                } else {
                    self.end(id);
                }
            }
            (Stage::Fresh, _) => {
                self.http.handle_response_head(self.now, id, 204, &[]);
                self.end(id);
            }
            (Stage::Json, _) => {
                let answer = answer_to(&request);
                self.http
                    .handle_body_chunk(self.now, id, answer.to_string().as_bytes());
                self.end(id);
            }
            (Stage::Sse, _) => {
                let frame = format!(
                    "id: {}\ndata: {}\n\n",
                    self.rng.below(1_000),
                    answer_to(&request)
                );
                self.http.handle_body_chunk(self.now, id, frame.as_bytes());
                if request.method == HttpMethod::Post {
                    self.end(id);
                }
            }
        }
    }

    fn end(&mut self, id: HttpRequestId) {
        self.http.handle_body_end(self.now, id);
        self.finished(id);
    }

    /// Anything at all: a head, a chunk, its end, an error.
    fn hostile(&mut self, at: usize) {
        let request = self.open[at].clone();
        let id = request.id;
        match self.rng.below(6) {
            0 | 1 => {
                let status = *self
                    .rng
                    .pick(&[200, 200, 200, 202, 204, 400, 401, 403, 404, 405, 500]);
                let content_type = *self.rng.pick(&[
                    "application/json",
                    "text/event-stream",
                    "text/event-stream; charset=utf-8",
                    "text/html",
                    "",
                ]);
                let mut headers = vec![("Content-Type", content_type)];
                match self.rng.below(4) {
                    0 => headers.push(("Mcp-Session-Id", "S1")),
                    1 => headers.push(("Mcp-Session-Id", "\u{7f}bad")),
                    2 => headers.push((
                        "WWW-Authenticate",
                        r#"Bearer error="insufficient_scope", scope="more", resource_metadata=""#,
                    )),
                    _ => {}
                }
                self.http
                    .handle_response_head(self.now, id, status, &hdr(&headers));
            }
            2 | 3 => {
                let chunk = self.chunk(&request);
                self.http.handle_body_chunk(self.now, id, &chunk);
            }
            4 => self.end(id),
            _ => {
                self.http
                    .handle_request_error(self.now, id, "connection reset by peer");
                self.finished(id);
            }
        }
    }

    fn finished(&mut self, id: HttpRequestId) {
        self.open.retain(|r| r.id != id);
        self.stages.remove(&id);
    }

    /// A random body chunk: an answer to the request's id (JSON or SSE), or trouble.
    fn chunk(&mut self, request: &HttpRequest) -> Vec<u8> {
        let answer = answer_to(request);
        let choices = [
            answer.to_string(),
            format!("id: {}\ndata: {answer}\n\n", self.rng.below(100)),
            format!("retry: {}\n\n", self.rng.below(100_000)),
            "data: {\"jsonrpc\": \"2.0\", \"method\": \"notifications/progress\"}\n\n".into(),
            format!("data: {}\n\n", "x".repeat(5_000)),
            "data: {\"jsonrpc\"".into(),
            ": keep-alive\n".into(),
            "\r\n\r\n".into(),
            "{\"jsonrpc\": \"2.0\", \"id\": \"never-sent\", \"result\": {}}".into(),
            "not json".into(),
        ];
        let mut bytes = self.rng.pick(&choices).clone().into_bytes();
        if self.rng.below(5) == 0 {
            bytes.truncate(self.rng.below(bytes.len() + 1));
            bytes.push(0xff);
        }
        bytes
    }

    /// Closes both ends, fails whatever the server left open, and waits out the close timeout.
    fn close(&mut self) {
        self.session.close("the run is over");
        self.http.close(self.now);
        self.pump();
        for _ in 0..20 {
            if self.http.is_closed() {
                return;
            }
            for request in std::mem::take(&mut self.open) {
                self.http
                    .handle_request_error(self.now, request.id, "server gone");
            }
            self.advance(1_000);
            self.pump();
        }
        panic!("the machine did not close within its close timeout");
    }
}

/// The server's answer to the request's message: an `initialize` result, or a result fit for
/// `tools/list` and `tools/call` alike.
fn answer_to(request: &HttpRequest) -> Value {
    let sent: Value = request
        .body
        .as_deref()
        .and_then(|b| serde_json::from_slice(b).ok())
        .unwrap_or(Value::Null);
    let id = sent.get("id").cloned().unwrap_or(json!(1));
    match sent.get("method").and_then(Value::as_str) {
        Some("initialize") => {
            let mut reply = init_result(0, "2025-11-25");
            reply["id"] = id;
            reply
        }
        _ => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [], "content": []}}),
    }
}

#[test]
fn a_random_server_never_breaks_the_machine_and_close_always_ends_it() {
    for run in 0..RUNS {
        let mut world = World::new(0x0dd_ba11 + run * 7_919);
        world.pump();
        for _ in 0..STEPS {
            world.step();
        }
        world.close();
        assert!(world.http.closed_reason().is_some(), "run {run}");
    }
}
