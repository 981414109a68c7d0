//! The data the Streamable HTTP machine exchanges with its host: requests out, events out,
//! configuration in.

use std::fmt;
use std::time::Duration;

/// Handle of one HTTP request the machine asked the host to perform; every input about that
/// request (head, body chunks, end, error) names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HttpRequestId(pub u64);

impl fmt::Display for HttpRequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http#{}", self.0)
    }
}

/// The HTTP methods the transport uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HttpMethod {
    /// Opens (or resumes) a server-sent event stream.
    Get,
    /// Sends one JSON-RPC message.
    Post,
    /// Ends the session on the server.
    Delete,
}

impl HttpMethod {
    /// The method as it appears on the wire (`"GET"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Delete => "DELETE",
        }
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An HTTP request for the host to perform, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpRequest {
    /// Handle to report the outcome with.
    pub id: HttpRequestId,
    /// The method.
    pub method: HttpMethod,
    /// The absolute URL.
    pub url: String,
    /// Headers, in order; names as the machine or the user wrote them.
    pub headers: Vec<(String, String)>,
    /// The body (one JSON-RPC message) for `POST`; `None` otherwise.
    pub body: Option<Vec<u8>>,
}

impl HttpRequest {
    /// The value of a header, looked up case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// Something the host should know that is not a JSON-RPC message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpEvent {
    /// A problem that does not end the connection (a notification rejected, no `GET` stream,
    /// an oversized event skipped, ...); worth a log line.
    Warning {
        /// What happened, naming the request and status.
        message: String,
    },
    /// The server answered `404` for our session: it expired or the server restarted. The
    /// machine starts a new session and re-sends the message (state the server kept for the
    /// old session, such as subscriptions, is gone; answers that needed resuming one of its
    /// streams fail at once).
    SessionExpired {
        /// The session id the server no longer knows.
        session_id: String,
    },
    /// The server refused a message or an event stream (a resumption, or the standalone `GET`
    /// stream) for lack of (enough) authorization, and [`HttpConfig::oauth`] is on: it is held.
    /// The host authorizes (see [`crate::mcp::oauth`]) and calls
    /// [`set_access_token`](super::StreamableHttp::set_access_token), which re-sends every
    /// held message and re-opens every held stream, or
    /// [`authorization_failed`](super::StreamableHttp::authorization_failed). Emitted once per
    /// authorization round, however many requests were refused.
    AuthorizationRequired {
        /// `401` (no or bad token) or `403` (a step-up: more scope needed).
        status: u16,
        /// The server's `WWW-Authenticate` value, if any (feed it to
        /// [`OAuthFlow::new`](crate::mcp::oauth::OAuthFlow::new)).
        www_authenticate: Option<String>,
    },
    /// The machine stopped: no more requests or messages. Always the last event, emitted once.
    Closed {
        /// Why: closed by the client, authentication refused, session expired, server
        /// unreachable, ...
        reason: String,
    },
}

/// A command the machine cannot accept; state is left unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpError {
    /// The machine is closed (or closing); carries the reason.
    Closed(String),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Closed(reason) => write!(f, "the HTTP transport is closed: {reason}"),
        }
    }
}

impl std::error::Error for HttpError {}

/// Where the server lives and how patient and persistent the transport is.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The MCP endpoint, such as `https://example.com/mcp`.
    pub url: String,
    /// Extra headers sent with every request (`Authorization`, ...). Headers the protocol
    /// sets itself (`Accept`, `Content-Type`, `Mcp-Session-Id`, `MCP-Protocol-Version`,
    /// `Last-Event-ID`) take precedence over user headers of the same name.
    pub headers: Vec<(String, String)>,
    /// Open the optional `GET` stream for server-initiated messages after the handshake.
    pub listen: bool,
    /// Reconnection delay when the server gave no SSE `retry` field.
    pub default_retry: Duration,
    /// Longest delay between reconnection attempts after network errors (exponential backoff).
    pub max_retry: Duration,
    /// Reconnection attempts in a row that may bring no new event before a stream is given up.
    pub max_reconnects: u32,
    /// Largest JSON body or SSE event accepted, in bytes.
    pub max_message_bytes: usize,
    /// How long `close` waits for the server to answer the `DELETE`.
    pub close_timeout: Duration,
    /// Hand `401`/`403` answers to `POST`s and stream resumptions, and `401` on the standalone
    /// `GET` stream, up as [`HttpEvent::AuthorizationRequired`] (the host runs OAuth and calls
    /// `set_access_token`) instead of closing or stopping the stream. Off by default.
    pub oauth: bool,
}

impl HttpConfig {
    /// Defaults for an endpoint: no extra headers, `GET` stream on, 1 s default retry.
    pub fn new(url: impl Into<String>) -> Self {
        HttpConfig {
            url: url.into(),
            headers: Vec::new(),
            listen: true,
            default_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(30),
            max_reconnects: 5,
            max_message_bytes: crate::framing::DEFAULT_MAX_FRAME_LEN,
            close_timeout: Duration::from_secs(2),
            oauth: false,
        }
    }
}

/// The value of header `name` in `headers`, compared case-insensitively.
pub fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The usual reason phrase of a status code, for error messages.
pub(crate) fn reason_phrase(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// `"HTTP 404 Not Found"`, or `"HTTP 599"` for codes without a known phrase.
pub(crate) fn describe_status(status: u16) -> String {
    match reason_phrase(status) {
        "" => format!("HTTP {status}"),
        phrase => format!("HTTP {status} {phrase}"),
    }
}
