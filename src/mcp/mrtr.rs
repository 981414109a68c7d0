//! Multi-round-trip requests (2026-07-28): a modern server that needs input answers a request
//! with `resultType: "input_required"` and `inputRequests`; the client answers each one and
//! sends the original request again (with a new id) carrying `inputResponses` and the server's
//! opaque `requestState`, unchanged.
//!
//! Each input request goes to the host exactly as the legacy era's server requests do, as a
//! [`SessionEvent::ServerRequest`] answered with [`ClientSession::respond`]: the same gate,
//! approval prompt, sampling opt-in and roots. Roots the session knows itself
//! ([`SessionConfig::fixed_roots`]) are answered without the host. A request is bounded: at
//! most [`MAX_INPUT_ROUNDS`] rounds, [`MAX_INPUT_REQUESTS`] input requests a round, a
//! `requestState` of at most [`MAX_REQUEST_STATE_BYTES`], and its total-time cap (or
//! [`MAX_INPUT_WAIT`] without one) across all rounds; hitting a bound fails it with an error
//! naming the server and the bound.
//!
//! [`SessionConfig::fixed_roots`]: super::SessionConfig::fixed_roots

use super::events::{RequestError, RequestId, SessionEvent};
use super::meta::{result_kind, ResultKind};
use super::session::{ClientSession, Purpose};
use crate::jsonrpc::{ErrorObject, Id};
use crate::rpc::Deadlines;
use crate::time::Instant;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// Most `input_required` rounds one request may take.
pub const MAX_INPUT_ROUNDS: u32 = 8;
/// Most input requests in one round.
pub const MAX_INPUT_REQUESTS: usize = 16;
/// Largest `requestState` echoed back, in bytes of its JSON text.
pub const MAX_REQUEST_STATE_BYTES: usize = 1 << 20;
/// How long a request may take across its rounds when it has no total-time cap of its own.
pub const MAX_INPUT_WAIT: Duration = Duration::from_secs(600);

/// Why a request that keeps asking for input is given up.
const ROUNDS_EXHAUSTED: &str = "input_required again after 8 rounds; giving up";

/// What a modern request in flight needs in order to be sent again.
#[derive(Debug)]
pub(super) struct Sent {
    /// The params as the caller gave them (no envelope, no answers).
    pub params: Option<Value>,
    /// Rounds of input already answered for this request.
    pub rounds: u32,
    /// When the request's first round was sent.
    pub started: Instant,
    /// When the request gives up, however many rounds it takes.
    pub give_up_at: Instant,
}

/// A request waiting for the host's answers to its input requests.
#[derive(Debug)]
pub(super) struct Waiting {
    pub op: RequestId,
    purpose: Purpose,
    method: String,
    sent: Sent,
    timeout: Duration,
    request_state: Option<Value>,
    asks: Vec<Ask>,
}

#[derive(Debug)]
struct Ask {
    key: String,
    id: Id,
    method: String,
    answer: Option<Value>,
}

impl Waiting {
    /// When it fails unless answered.
    pub(super) fn give_up_at(&self) -> Instant {
        self.sent.give_up_at
    }
}

impl ClientSession {
    /// The bookkeeping a modern request keeps for a re-send; `None` in the legacy era.
    pub(super) fn sent_record(
        &self,
        params: &Option<Value>,
        now: Instant,
        deadlines: &Deadlines,
    ) -> Option<Sent> {
        self.envelope.as_ref()?;
        Some(Sent {
            params: params.clone(),
            rounds: 0,
            started: now,
            give_up_at: deadlines.hard_deadline.unwrap_or(now + MAX_INPUT_WAIT),
        })
    }

    /// A modern request's result: complete, input required, or not readable.
    pub(super) fn modern_result(
        &mut self,
        now: Instant,
        wire_id: u64,
        method: String,
        timeout: Duration,
        purpose: Purpose,
        result: Value,
    ) {
        let sent = self.sent.remove(&wire_id);
        match (result_kind(&result), sent) {
            (Ok(ResultKind::Complete), sent) => {
                if method == "resources/read" {
                    let params = sent.as_ref().and_then(|s| s.params.as_ref());
                    if let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) {
                        self.hints.keep_read(uri, &result, now);
                    }
                }
                self.handle_result(now, purpose, result)
            }
            (Ok(ResultKind::InputRequired), Some(sent)) => {
                self.input_required(now, method, timeout, purpose, sent, result)
            }
            #[cfg(feature = "mcp-tasks")]
            (Ok(ResultKind::Task), sent)
                if self.config.tasks && matches!(purpose, Purpose::CallTool { .. }) =>
            {
                self.task_created(now, purpose.op(wire_id), sent, result)
            }
            #[cfg(feature = "mcp-tasks")]
            (Ok(ResultKind::Task), _) => {
                let what = "a task, which this client did not ask for";
                let error = self.peer_error(&method, what);
                self.fail(wire_id, purpose, error);
            }
            (Ok(ResultKind::InputRequired), None) => {
                let error =
                    self.peer_error(&method, "input_required for a request it cannot be re-sent");
                self.fail(wire_id, purpose, error);
            }
            (Err(reason), _) => {
                let error = self.peer_error(&method, &reason);
                self.fail(wire_id, purpose, error);
            }
        }
    }

    /// An invalid-result error naming the server.
    pub(super) fn peer_error(&self, method: &str, what: &str) -> RequestError {
        let server = self.server.as_ref().map_or("unknown", |s| s.name());
        let server = crate::json::quoted(server);
        RequestError::InvalidResult(format!("server {server} answered {method} with {what}"))
    }

    pub(super) fn input_required(
        &mut self,
        now: Instant,
        method: String,
        timeout: Duration,
        purpose: Purpose,
        mut sent: Sent,
        result: Value,
    ) {
        let op = purpose.op(0);
        let refuse = |session: &mut Self, purpose, what: String| {
            let error = session.peer_error(&method, &what);
            session.fail(op.0, purpose, error);
        };
        sent.rounds += 1;
        if sent.rounds > MAX_INPUT_ROUNDS {
            // A fixed text (the bound is a constant; `bounds_are_named_in_the_texts` checks it).
            let what = ROUNDS_EXHAUSTED.to_owned();
            return refuse(self, purpose, what);
        }
        let request_state = result.get("requestState").cloned();
        if let Some(state) = &request_state {
            let Some(text) = state.as_str() else {
                return refuse(self, purpose, "a requestState that is not a string".into());
            };
            if text.len() > MAX_REQUEST_STATE_BYTES {
                let what = format!(
                    "a requestState of {} bytes (the limit is {MAX_REQUEST_STATE_BYTES})",
                    text.len()
                );
                return refuse(self, purpose, what);
            }
        }
        let requests = match result.get("inputRequests").and_then(Value::as_object) {
            Some(map) if !map.is_empty() && map.len() <= MAX_INPUT_REQUESTS => map,
            Some(map) if map.len() > MAX_INPUT_REQUESTS => {
                let what = format!(
                    "{} input requests in one round (the limit is {MAX_INPUT_REQUESTS})",
                    map.len()
                );
                return refuse(self, purpose, what);
            }
            _ => {
                let what = "input_required without inputRequests".to_owned();
                return refuse(self, purpose, what);
            }
        };
        let mut asks = Vec::with_capacity(requests.len());
        let mut questions = Vec::new();
        for (key, request) in requests {
            let ask_method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let params = request.get("params").cloned();
            let answer = match ask_method {
                "roots/list" if !self.config.fixed_roots.is_empty() => {
                    Some(super::roots::roots_result(&self.config.fixed_roots))
                }
                "roots/list" if self.config.roots => None,
                "sampling/createMessage" if self.config.sampling => None,
                "elicitation/create" if self.config.elicitation => None,
                other => {
                    let what = format!(
                        "an input request {} for {}, which this client did not declare",
                        crate::json::quoted(key),
                        crate::json::quoted(other)
                    );
                    return refuse(self, purpose, what);
                }
            };
            self.next_ask += 1;
            let id = Id::String(format!("input-{}-{}", op.0, self.next_ask));
            if answer.is_none() {
                questions.push(SessionEvent::ServerRequest {
                    id: id.clone(),
                    method: ask_method.to_owned(),
                    params,
                });
            }
            asks.push(Ask {
                key: key.clone(),
                id,
                method: ask_method.to_owned(),
                answer,
            });
        }
        let waiting = Waiting {
            op,
            purpose,
            method,
            sent,
            timeout,
            request_state,
            asks,
        };
        // One push at a time: `extend` would add its own copy of the queue's growth code.
        for question in questions {
            self.events.push_back(question);
        }
        self.waiting.push(waiting);
        self.send_if_answered(now, self.waiting.len() - 1);
    }

    /// Whether `id` is an input request still waiting for the host's answer.
    pub(super) fn is_input_request(&self, id: &Id) -> bool {
        self.find_ask(id).is_some()
    }

    fn find_ask(&self, id: &Id) -> Option<(usize, usize)> {
        self.waiting.iter().enumerate().find_map(|(at, w)| {
            w.asks
                .iter()
                .position(|a| &a.id == id && a.answer.is_none())
                .map(|ask| (at, ask))
        })
    }

    /// Takes the host's answer to an input request (one [`is_input_request`] knows).
    ///
    /// [`is_input_request`]: Self::is_input_request
    pub(super) fn answer_input(
        &mut self,
        now: Instant,
        id: &Id,
        outcome: Result<Value, ErrorObject>,
    ) {
        let Some((at, ask)) = self.find_ask(id) else {
            return;
        };
        match outcome {
            Ok(answer) => {
                self.waiting[at].asks[ask].answer = Some(answer);
                self.send_if_answered(now, at);
            }
            Err(error) => {
                let waiting = self.waiting.remove(at);
                let reason = format!(
                    "{} for {} was not answered: {error}",
                    waiting.asks[ask].method, waiting.method
                );
                self.fail(waiting.op.0, waiting.purpose, RequestError::Refused(reason));
            }
        }
    }

    /// Sends request `at` again once every input request of its round has an answer.
    fn send_if_answered(&mut self, now: Instant, at: usize) {
        if self.waiting[at].asks.iter().any(|a| a.answer.is_none()) {
            return;
        }
        let waiting = self.waiting.remove(at);
        let mut params = match waiting.sent.params.clone() {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let mut responses = Map::new();
        for ask in waiting.asks {
            responses.insert(ask.key, ask.answer.unwrap_or(Value::Null));
        }
        params.insert("inputResponses".into(), Value::Object(responses));
        if let Some(state) = waiting.request_state {
            params.insert("requestState".into(), state);
        }
        if let Purpose::CallTool { .. } = waiting.purpose {
            // Progress of the new round comes under the new id.
            params.insert(
                "_meta".into(),
                json!({"progressToken": self.peek_next_id()}),
            );
        }
        let deadline = (now + waiting.timeout).min(waiting.sent.give_up_at);
        let deadlines = Deadlines {
            timeout: waiting.timeout,
            deadline,
            hard_deadline: Some(waiting.sent.give_up_at),
        };
        let wire_id = self.send_request(
            now,
            &waiting.method,
            Some(Value::Object(params)),
            deadlines,
            waiting.purpose,
        );
        // The next round re-sends the caller's params, not this round's answers.
        if let Some(sent) = self.sent.get_mut(&wire_id.0) {
            sent.params = waiting.sent.params;
            sent.rounds = waiting.sent.rounds;
            sent.started = waiting.sent.started;
            sent.give_up_at = waiting.sent.give_up_at;
        }
    }

    /// Fails every waiting request whose time is up.
    pub(super) fn expire_waiting(&mut self, now: Instant) {
        while let Some(at) = self.waiting.iter().position(|w| w.give_up_at() <= now) {
            let waiting = self.waiting.remove(at);
            let error = RequestError::Timeout {
                method: format!("{} (waiting for input)", waiting.method),
                waited: now.saturating_since(waiting.sent.started),
            };
            self.fail(waiting.op.0, waiting.purpose, error);
        }
    }

    /// Gives up on a waiting request; `false` when `op` is not waiting.
    pub(super) fn cancel_waiting(&mut self, op: RequestId, reason: &str) -> bool {
        let Some(at) = self.waiting.iter().position(|w| w.op == op) else {
            return false;
        };
        let waiting = self.waiting.remove(at);
        self.fail(
            waiting.op.0,
            waiting.purpose,
            RequestError::Cancelled(reason.to_owned()),
        );
        true
    }

    /// Fails every waiting request: the session closed.
    pub(super) fn close_waiting(&mut self, reason: &str) {
        for waiting in std::mem::take(&mut self.waiting) {
            self.fail(
                waiting.op.0,
                waiting.purpose,
                RequestError::Closed(reason.to_owned()),
            );
        }
        self.sent = Default::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_named_in_the_texts() {
        assert!(ROUNDS_EXHAUSTED.contains(&format!(" {MAX_INPUT_ROUNDS} rounds")));
    }
}
