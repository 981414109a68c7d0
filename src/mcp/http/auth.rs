//! OAuth support in the Streamable HTTP machine: a bearer token on every request, and `401` /
//! `403` answers handed up to the host (when [`HttpConfig::oauth`](super::HttpConfig) is on)
//! instead of closing. Refused `POST`s are held as messages; refused event streams (a `GET`
//! resuming a broken stream, or the standalone `GET` stream) are held as exchanges, with the
//! `Last-Event-ID`, awaited ids and attempt count they carry, and re-opened with the new token.

use super::exchange::{Exchange, Role};
use super::machine::{State, StreamableHttp};
use super::types::{describe_status, find_header, HttpEvent, HttpRequestId};
use crate::jsonrpc::Id;
use crate::time::Instant;
use std::collections::VecDeque;

/// How many authorization rounds in a row may end in another refusal before the machine gives
/// up (a server that keeps asking for a scope it never grants would loop forever); also how
/// many rounds one request may be refused in, whatever else succeeds meanwhile.
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// The machine's OAuth state.
#[derive(Debug, Default)]
pub(crate) struct AuthState {
    /// Sent as `Authorization: Bearer` on every request (`DPoP` when [`dpop`](Self::dpop)).
    pub access_token: Option<String>,
    /// The token is DPoP-bound: its scheme is `DPoP`, and the host adds each request's proof.
    pub dpop: bool,
    /// An `AuthorizationRequired` is out and not yet answered.
    pending: bool,
    /// Messages refused for lack of authorization, re-sent once a token arrives.
    held: VecDeque<Vec<u8>>,
    /// Event streams refused for lack of authorization, or whose reconnection came due while
    /// a round was under way (role `Resume` or `Listen`, with what they carry over); re-opened
    /// once a token arrives. The requests a held resumption awaits stay pending meanwhile.
    pub streams: Vec<Exchange>,
    /// Tokens given since the last request that succeeded with one.
    rounds: u32,
    /// How many rounds each request still unanswered was refused in: a step-up that never
    /// satisfies one request ends for it even while other requests succeed between rounds
    /// (which resets [`rounds`](Self::rounds)). Entries go when the request is answered or
    /// given up on, so there are never more than requests in flight.
    /// Refusals by request (a few in flight; a list keeps hash table code out of wasm).
    refusals: Vec<(Id, u32)>,
}

impl AuthState {
    /// Forgets the refusals counted for `request` (answered, or given up on).
    fn forget_refusals(&mut self, request: &Id) {
        self.refusals.retain(|(id, _)| id != request);
    }
}

#[cfg(test)]
impl StreamableHttp {
    /// How many requests have refusals counted (answered ones must be forgotten).
    pub(crate) fn refusals_remembered(&self) -> usize {
        self.auth.refusals.len()
    }
}

impl StreamableHttp {
    /// Whether the tokens given from now on are DPoP-bound ([`OAuthToken::dpop`]): they are
    /// then sent as `Authorization: DPoP <token>`, and the host adds a fresh proof to each
    /// request that carries one (RFC 9449 §7.1).
    ///
    /// [`OAuthToken::dpop`]: crate::mcp::oauth::OAuthToken::dpop
    pub fn set_token_dpop(&mut self, bound: bool) {
        self.auth.dpop = bound;
    }

    /// Uses `token` as the bearer token from now on, re-sends every message refused since the
    /// last [`HttpEvent::AuthorizationRequired`], and re-opens every event stream refused since
    /// (a resumption with its `Last-Event-ID`, or the standalone `GET` stream). Fails when the
    /// machine is closed.
    pub fn set_access_token(
        &mut self,
        now: Instant,
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
        let streams = std::mem::take(&mut self.auth.streams);
        for exchange in streams {
            if self.state == State::Open {
                self.open_stream(exchange);
            }
        }
        self.arm_listen_wait(now);
        Ok(())
    }

    /// The host could not authorize: the machine closes with `reason` (the session above then
    /// fails every request still pending, including those a held resumption awaited).
    pub fn authorization_failed(&mut self, reason: impl Into<String>) {
        self.shut_down(format!("authorization failed: {}", reason.into()));
    }

    /// Whether an authorization round is under way (messages and streams are held meanwhile).
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

    /// Called with every response head. With OAuth on and rounds left, a `401`/`403` to a
    /// `POST` holds the message, a `401`/`403` to a resumption `GET` or a `401` to the
    /// standalone `GET` holds the stream, and the host is asked to authorize (once per round).
    /// Out of rounds, a `POST` closes the machine, a resumption fails the requests it awaits,
    /// and the standalone stream stops with a warning. Returns whether it handled the head (the
    /// exchange is then gone). A success with a token on an exchange that awaits answers
    /// resets the round count.
    pub(crate) fn authorization_refused(
        &mut self,
        id: HttpRequestId,
        status: u16,
        headers: &[(String, String)],
    ) -> bool {
        let Some(exchange) = self.exchanges.get(&id) else {
            return false;
        };
        let role = exchange.role;
        if (200..300).contains(&status) {
            let answers = matches!(role, Role::Post { .. } | Role::Resume);
            if answers && !exchange.awaiting.is_empty() && self.auth.access_token.is_some() {
                self.auth.rounds = 0;
            }
            for answered in &exchange.awaiting {
                self.auth.forget_refusals(answered);
            }
            return false;
        }
        let refused = match role {
            Role::Post { .. } | Role::Resume => matches!(status, 401 | 403),
            // A 403 on the optional stream may well mean "no GET stream for you" rather than
            // "more scope, please": it keeps stopping the stream with a warning.
            Role::Listen => status == 401,
            Role::Delete => false,
        };
        if !self.config.oauth || !refused {
            return false;
        }
        let exhausted = exchange.awaiting.iter().any(|request| {
            let refusals = self.auth.refusals.iter().find(|(id, _)| id == request);
            refusals.map_or(0, |(_, n)| *n) >= MAX_AUTHORIZATIONS
        });
        if exhausted || self.auth.rounds >= MAX_AUTHORIZATIONS && !self.auth.pending {
            self.give_up_authorizing(id, status, headers);
            return true;
        }
        for request in &exchange.awaiting {
            match self.auth.refusals.iter_mut().find(|(id, _)| id == request) {
                Some((_, n)) => *n += 1,
                None => self.auth.refusals.push((request.clone(), 1)),
            }
        }
        let Some(exchange) = self.exchanges.remove(&id) else {
            return false;
        };
        self.aborts.push_back(id);
        match role {
            Role::Post { .. } => {
                if self.gate == Some(id) {
                    // The `initialize` is re-sent after authorization and gates again then.
                    self.gate = None;
                }
                self.auth.held.extend(exchange.request_body);
            }
            // `listening` stays set: the held stream is still the one standalone stream.
            _ => self.auth.streams.push(exchange),
        }
        if !self.auth.pending {
            self.auth.pending = true;
            self.events.push_back(HttpEvent::AuthorizationRequired {
                status,
                www_authenticate: find_header(headers, "www-authenticate").map(str::to_owned),
            });
        }
        true
    }

    /// Exchange `id` was refused again after [`MAX_AUTHORIZATIONS`] rounds in a row.
    fn give_up_authorizing(
        &mut self,
        id: HttpRequestId,
        status: u16,
        headers: &[(String, String)],
    ) {
        let Some(exchange) = self.exchanges.remove(&id) else {
            return;
        };
        self.aborts.push_back(id);
        let method = if exchange.role == Role::Resume || exchange.role == Role::Listen {
            "GET"
        } else {
            "POST"
        };
        let challenge = find_header(headers, "www-authenticate").unwrap_or("no challenge");
        let message = format!(
            "{} from {method} {} ({challenge}) after {MAX_AUTHORIZATIONS} authorizations in a row: giving up",
            describe_status(status),
            self.config.url
        );
        for request in &exchange.awaiting {
            self.auth.forget_refusals(request);
        }
        match exchange.role {
            // A step-up that no authorization satisfies concerns this request: the others
            // may well be allowed.
            Role::Post { .. } if status == 403 => {
                self.fail_awaiting(&exchange.awaiting, &message, Some(status));
            }
            // Every later message would be refused the same way.
            Role::Post { .. } => self.shut_down(message),
            Role::Resume => self.fail_awaiting(&exchange.awaiting, &message, Some(status)),
            _ => {
                self.listening = false;
                self.warn(format!("no server-to-client stream: {message}"));
            }
        }
    }
}
