//! One HTTP request in flight (an "exchange") and what is owed on it.

use crate::jsonrpc::Id;
use crate::sse::SseDecoder;
use crate::time::Instant;
use std::time::Duration;

/// Why the machine made a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// `POST` of one message.
    Post {
        /// The message is the `initialize` request: its answer carries the session id.
        initialize: bool,
    },
    /// The standalone `GET` stream for server-initiated messages.
    Listen,
    /// A `GET` resuming a stream that broke before every response on it arrived.
    Resume,
    /// `DELETE` ending the session.
    Delete,
}

/// How the body of the response is being read.
#[derive(Debug)]
pub(crate) enum Body {
    /// No response head yet.
    Head,
    /// A JSON body, collected until its end.
    Json(Vec<u8>),
    /// A server-sent event stream, decoded as it arrives.
    Sse(Box<SseDecoder>),
    /// An error status: the start of the body is kept for the error message.
    Error {
        /// The status code.
        status: u16,
        /// `WWW-Authenticate` or similar detail worth quoting.
        detail: Option<String>,
        /// The first bytes of the body.
        text: Vec<u8>,
    },
    /// Nothing of interest (a `202`, a `DELETE` answer, a body after the answer).
    Discard,
}

/// One request in flight, plus what carries over to a reconnection.
#[derive(Debug)]
pub(crate) struct Exchange {
    pub role: Role,
    /// Ids of requests whose responses are expected on this exchange (or its resumption).
    pub awaiting: Vec<Id>,
    pub body: Body,
    /// The last SSE event id seen on this stream or the stream it resumes.
    pub last_event_id: Option<String>,
    /// The server's reconnection delay, from the last SSE `retry` field on this stream.
    pub retry: Option<Duration>,
    /// Reconnections in a row that brought no event (0 for a first attempt).
    pub attempt: u32,
    /// Whether any SSE event arrived on this exchange.
    pub got_event: bool,
    /// Why an event on this stream (or the stream it resumes) was dropped for its size, when
    /// its edges did not tell which message it was: the answer awaited here is then most likely
    /// lost, and resuming cannot bring it back.
    pub dropped_event: Option<String>,
    /// The message a `POST` carried, kept so it can be sent again in a new session after a
    /// `404` for the old one.
    pub request_body: Option<Vec<u8>>,
    /// The session the request was made in, counted in sessions the server forgot before it
    /// (an index into `StreamableHttp::forgotten` once that session is forgotten too). A
    /// resumption keeps the number of the `POST` whose answer it continues: event ids mean
    /// nothing in another session.
    pub session: usize,
    /// The request was modern (2026-07-28): an error status may carry its JSON-RPC error.
    pub modern: bool,
}

impl Exchange {
    /// A fresh exchange with nothing carried over.
    pub fn new(role: Role, awaiting: Vec<Id>) -> Self {
        Exchange {
            role,
            awaiting,
            body: Body::Head,
            last_event_id: None,
            retry: None,
            attempt: 0,
            got_event: false,
            dropped_event: None,
            request_body: None,
            session: 0,
            modern: false,
        }
    }

    /// Forgets `id` if this exchange was waiting for it.
    pub fn answered(&mut self, id: &Id) {
        self.awaiting.retain(|a| a != id);
    }
}

/// A reconnection waiting for its time.
#[derive(Debug)]
pub(crate) struct Scheduled {
    /// When to send the `GET`.
    pub at: Instant,
    /// The exchange to start (role `Listen` or `Resume`), with what it carries over.
    pub exchange: Exchange,
}
