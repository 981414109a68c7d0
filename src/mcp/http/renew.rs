//! A new session after a `404`: the server forgot ours (it expired, or the server restarted),
//! and the spec says the client MUST start a new one. The client's `initialize` is replayed
//! without a session id, then `notifications/initialized`, then the message that got the `404`.
//!
//! Event ids belong to the session that issued them, so nothing of the old session's streams
//! can be resumed in the new one: requests awaited on a resumption (in flight, scheduled, or
//! held for authorization) fail at once, naming the forgotten session, and so do requests on a
//! `POST`'s stream of the old session should it end before answering. Such a stream that is
//! still open keeps delivering: its answers are answers to ids we sent, whichever session the
//! server keeps them in.

use super::exchange::{Exchange, Role};
use super::machine::StreamableHttp;
use super::types::{HttpEvent, HttpRequestId};
use crate::jsonrpc::Id;

/// How many times a machine starts a new session after `404`s before it gives up.
pub const MAX_REINITIALIZATIONS: u32 = 3;

impl StreamableHttp {
    /// Whether a `404` to this `POST` means a session was forgotten: the current one (known,
    /// or being started after a previous `404`), or an older one the request was sent in.
    pub(crate) fn renewable(&self, exchange: &Exchange) -> bool {
        self.session_id.is_some() || self.replaying() || exchange.session < self.forgotten.len()
    }

    /// A `POST` got `404` (`message` describes it): start a new session and re-send its
    /// message there, or give up and close.
    pub(crate) fn session_not_found(&mut self, exchange: Exchange, message: &str) {
        if exchange.session < self.forgotten.len() {
            // Sent before a new session was started: it is the old session the server no longer
            // knows, which is handled already. The message goes again, in the current session
            // (behind the replayed `initialize` while that awaits its answer).
            if let Some(body) = exchange.request_body {
                self.post(body);
            }
            return;
        }
        let session_id = self.session_id.clone().unwrap_or_default();
        if !self.replaying() {
            self.events.push_back(HttpEvent::SessionExpired {
                session_id: session_id.clone(),
            });
        }
        // A new session whose own `initialize` gets a 404 cannot be started at all.
        let replay_failed = self.replaying() && exchange.role == (Role::Post { initialize: true });
        if replay_failed || !self.reinitialize(exchange.request_body) {
            self.shut_down(format!(
                "the server no longer knows session {session_id} ({message}), and starting a new session did not help: giving up"
            ));
        }
    }

    /// Why a request awaited on a stream of forgotten session number `session` fails.
    pub(crate) fn forgotten_stream(&self, session: usize) -> String {
        let id = self.forgotten.get(session).map_or("", String::as_str);
        format!(
            "the server forgot session {id} (HTTP 404) while this answer was streaming; it cannot be resumed in the new session"
        )
    }

    /// Starts a new session after a `404` for the old one, then re-sends `body` in it.
    /// Returns false when it cannot (no `initialize` seen, or too many new sessions already).
    fn reinitialize(&mut self, body: Option<Vec<u8>>) -> bool {
        if self.replay_id.is_some() {
            // A new session is already being started: this message simply joins the queue.
            self.held.extend(body);
            return true;
        }
        let Some(initialize) = self.initialize_body.clone() else {
            return false;
        };
        if self.forgotten.len() >= MAX_REINITIALIZATIONS as usize {
            return false;
        }
        let Ok(mut request) = serde_json::from_slice::<serde_json::Value>(&initialize) else {
            return false;
        };
        let forgotten = self.session_id.take().unwrap_or_default();
        self.forgotten.push(forgotten);
        self.drop_old_streams();
        let replay = Id::String(format!("agentwire-reinitialize-{}", self.forgotten.len()));
        request["id"] = replay.to_value();
        self.protocol_version = None;
        self.replay_id = Some(replay);
        self.post(serde_json::to_vec(&request).unwrap_or_default());
        self.post(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec());
        if let Some(body) = body {
            self.post(body);
        }
        true
    }

    /// Drops the event streams of the session just forgotten (the standalone stream and every
    /// resumption, in flight, scheduled or held for authorization) and fails at once, once
    /// each, the requests the resumptions awaited: their answers will never come.
    fn drop_old_streams(&mut self) {
        let mut lost: Vec<Id> = Vec::new();
        let streams: Vec<HttpRequestId> = self
            .exchanges
            .iter()
            .filter(|(_, e)| matches!(e.role, Role::Listen | Role::Resume))
            .map(|(id, _)| *id)
            .collect();
        for id in streams {
            if let Some(exchange) = self.exchanges.get(&id) {
                lost.extend(exchange.awaiting.iter().cloned());
            }
            self.abort(id);
        }
        for scheduled in std::mem::take(&mut self.scheduled) {
            lost.extend(scheduled.exchange.awaiting);
        }
        for held in std::mem::take(&mut self.auth.streams) {
            lost.extend(held.awaiting);
        }
        self.listening = false;
        let message = self.forgotten_stream(self.forgotten.len().saturating_sub(1));
        let mut failed: Vec<Id> = Vec::new();
        for id in lost {
            if !failed.contains(&id) {
                // Settled first, so no stream of the old session still open can fail it again.
                self.settle(&id);
                self.fail_awaiting(std::slice::from_ref(&id), &message, Some(404));
                failed.push(id);
            }
        }
    }
}
