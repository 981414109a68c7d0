//! OAuth support in the Streamable HTTP machine: a bearer token on every request, and `401` /
//! `403` answers handed up to the host (when [`HttpConfig::oauth`](super::HttpConfig) is on)
//! instead of closing.

use super::exchange::Role;
use super::machine::{State, StreamableHttp};
use super::types::{describe_status, find_header, HttpEvent, HttpRequestId};
use crate::time::Instant;
use std::collections::VecDeque;

/// How many authorization rounds in a row may end in another refusal before the machine gives
/// up (a server that keeps asking for a scope it never grants would loop forever).
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// The machine's OAuth state.
#[derive(Debug, Default)]
pub(crate) struct AuthState {
    /// Sent as `Authorization: Bearer` on every request.
    pub access_token: Option<String>,
    /// An `AuthorizationRequired` is out and not yet answered.
    pending: bool,
    /// Messages refused for lack of authorization, re-sent once a token arrives.
    held: VecDeque<Vec<u8>>,
    /// Tokens given since the last request that succeeded with one.
    rounds: u32,
}

impl StreamableHttp {
    /// Uses `token` as the bearer token from now on, and re-sends every message refused since
    /// the last [`HttpEvent::AuthorizationRequired`]. Fails when the machine is closed.
    pub fn set_access_token(
        &mut self,
        _now: Instant,
        token: impl Into<String>,
    ) -> Result<(), super::HttpError> {
        if let State::Closed(reason) = &self.state {
            return Err(super::HttpError::Closed(reason.clone()));
        }
        self.auth.access_token = Some(token.into());
        if std::mem::take(&mut self.auth.pending) {
            self.auth.rounds += 1;
        }
        let held = std::mem::take(&mut self.auth.held);
        for body in held {
            if self.state == State::Open {
                self.post(body);
            }
        }
        Ok(())
    }

    /// The host could not authorize: the machine closes with `reason`.
    pub fn authorization_failed(&mut self, reason: impl Into<String>) {
        self.shut_down(format!("authorization failed: {}", reason.into()));
    }

    /// Whether an authorization round is under way (messages are held meanwhile).
    pub(crate) fn auth_pending(&self) -> bool {
        self.auth.pending
    }

    /// Holds `body` until the next [`set_access_token`](Self::set_access_token).
    pub(crate) fn hold_for_authorization(&mut self, body: Vec<u8>) {
        self.auth.held.push_back(body);
    }

    /// Whether a bearer token is set.
    pub fn has_access_token(&self) -> bool {
        self.auth.access_token.is_some()
    }

    /// Called with every response head: a `401`/`403` to a `POST`, with OAuth on and rounds
    /// left, holds the message and asks the host to authorize. Returns whether it did (the
    /// exchange is then gone). A success with a token resets the round count.
    pub(crate) fn authorization_refused(
        &mut self,
        id: HttpRequestId,
        status: u16,
        headers: &[(String, String)],
    ) -> bool {
        let Some(exchange) = self.exchanges.get(&id) else {
            return false;
        };
        let post = matches!(exchange.role, Role::Post { .. });
        if (200..300).contains(&status) {
            if post && !exchange.awaiting.is_empty() && self.auth.access_token.is_some() {
                self.auth.rounds = 0;
            }
            return false;
        }
        if !self.config.oauth || !post || !matches!(status, 401 | 403) {
            return false;
        }
        if self.auth.rounds >= MAX_AUTHORIZATIONS && !self.auth.pending {
            let challenge = find_header(headers, "www-authenticate").unwrap_or("no challenge");
            self.shut_down(format!(
                "{} from POST {} ({challenge}) after {MAX_AUTHORIZATIONS} authorizations in a row: giving up",
                describe_status(status),
                self.config.url
            ));
            return true;
        }
        let Some(exchange) = self.exchanges.remove(&id) else {
            return false;
        };
        self.aborts.push_back(id);
        if self.gate == Some(id) {
            // The `initialize` is re-sent after authorization and gates again then.
            self.gate = None;
        }
        self.auth.held.extend(exchange.request_body);
        if !self.auth.pending {
            self.auth.pending = true;
            self.events.push_back(HttpEvent::AuthorizationRequired {
                status,
                www_authenticate: find_header(headers, "www-authenticate").map(str::to_owned),
            });
        }
        true
    }
}
