//! A quinn-style `Pair`: one client session and a scripted server, simulated time, no I/O.
#![allow(dead_code)]

pub mod async_io;
pub mod host;
pub mod scripted_server;
pub mod stepper;

use agentwire::mcp::{ClientSession, SessionConfig, SessionEvent};
use agentwire::Instant;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// The client session, what it sent to the server, and what it reported.
pub struct Pair {
    pub client: ClientSession,
    pub now: Instant,
    pub sent: VecDeque<Value>,
    pub events: VecDeque<SessionEvent>,
}

impl Pair {
    pub fn new(config: SessionConfig) -> Self {
        let now = Instant::from_millis(1_000);
        let mut pair = Pair {
            client: ClientSession::new(config, now),
            now,
            sent: VecDeque::new(),
            events: VecDeque::new(),
        };
        pair.drain();
        pair
    }

    /// A pair whose handshake already finished, with the event log and outbox emptied.
    pub fn ready() -> Self {
        Self::ready_with(SessionConfig::default())
    }

    pub fn ready_with(config: SessionConfig) -> Self {
        let mut pair = Self::new(config);
        let init = pair.recv();
        pair.reply(
            &init,
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": "scripted", "version": "1.0"}
            }),
        );
        assert_eq!(pair.recv()["method"], "notifications/initialized");
        assert!(matches!(
            pair.events.pop_front(),
            Some(SessionEvent::Ready(_))
        ));
        pair
    }

    /// Moves everything the client produced into `sent` and `events`.
    pub fn drain(&mut self) {
        while let Some(line) = self.client.poll_transmit() {
            assert_eq!(
                line.last(),
                Some(&b'\n'),
                "every transmit is one whole line"
            );
            assert_eq!(
                line.iter().filter(|b| **b == b'\n').count(),
                1,
                "exactly one newline"
            );
            self.sent
                .push_back(serde_json::from_slice(&line).expect("client sends valid JSON"));
        }
        while let Some(event) = self.client.poll_event() {
            self.events.push_back(event);
        }
    }

    /// The next message the client sent.
    pub fn recv(&mut self) -> Value {
        self.drain();
        self.sent.pop_front().expect("the client sent nothing")
    }

    /// Delivers a raw line from the server.
    pub fn send_raw(&mut self, line: &str) {
        self.client.handle_frame(self.now, line.as_bytes());
        self.drain();
    }

    /// Delivers a JSON message from the server.
    pub fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string());
    }

    /// Answers `request` with `result`.
    pub fn reply(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}));
    }

    /// Answers `request` with a JSON-RPC error.
    pub fn reply_error(&mut self, request: &Value, code: i64, message: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}}));
    }

    /// Advances simulated time and lets the client handle its timers.
    pub fn advance(&mut self, ms: u64) {
        self.now = Instant::from_millis(self.now.as_millis() + ms);
        self.client.handle_timeout(self.now);
        self.drain();
    }

    pub fn event(&mut self) -> SessionEvent {
        self.events.pop_front().expect("no event")
    }
}

/// A text tool result.
pub fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}
