//! What an MCP client session reports to its host.

use crate::content::ToolOutput;
use crate::jsonrpc::{ErrorObject, Id};
use crate::time::whole_millis;
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// Handle of a command issued to the session; events about it carry the same handle.
///
/// For single requests it is the JSON-RPC id on the wire; for `tools/list` it is the id of the
/// first page's request, and every later page maps back to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Why a request produced no result.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RequestError {
    /// No response (or progress) arrived in time.
    Timeout {
        /// The method that timed out.
        method: String,
        /// How long this side waited since the request was sent.
        waited: Duration,
    },
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The connection closed first; carries the reason.
    Closed(String),
    /// The host cancelled the request.
    Cancelled(String),
    /// The server's result did not have the expected shape.
    InvalidResult(String),
    /// The request was not sent: the session refused it (not offered, not ready, ...).
    Refused(String),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Timeout { method, waited } => {
                write!(f, "{method} timed out after {} ms", whole_millis(*waited))
            }
            RequestError::Rpc(e) => match super::meta::error_code_name(e.code) {
                Some(name) => write!(f, "server error: {e}: {name}"),
                None => write!(f, "server error: {e}"),
            },
            RequestError::Closed(reason) => write!(f, "connection closed: {reason}"),
            RequestError::Cancelled(reason) => write!(f, "cancelled: {reason}"),
            RequestError::InvalidResult(reason) => write!(f, "invalid result: {reason}"),
            RequestError::Refused(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for RequestError {}

/// Server information learned from the `initialize` (or `server/discover`) result.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerDetails {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The era the session speaks with this server.
    pub era: super::Era,
    /// `serverInfo` (name, version, ...), verbatim.
    pub server_info: Value,
    /// `capabilities`, verbatim.
    pub capabilities: Value,
    /// `instructions`, if the server gave any.
    pub instructions: Option<String>,
}

impl ServerDetails {
    /// The server's self-reported name, or `"unknown"`.
    pub fn name(&self) -> &str {
        self.server_info
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
    }
}

/// An event for the host; drain them with [`ClientSession::poll_event`].
///
/// [`ClientSession::poll_event`]: super::ClientSession::poll_event
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SessionEvent {
    /// The handshake finished; the session accepts commands.
    Ready(ServerDetails),
    /// All pages of a `tools/list` arrived: the raw tool objects, in server order.
    ToolsListed {
        /// The handle returned by `list_tools`.
        request: RequestId,
        /// Tools, verbatim (`name`, `description`, `inputSchema`, `annotations`, ...).
        tools: Vec<Value>,
    },
    /// All pages of a resource, template or prompt list arrived, verbatim in server order.
    Listed {
        /// The handle returned by `list`.
        request: RequestId,
        /// Entries, verbatim.
        items: Vec<Value>,
    },
    /// A `tools/call` finished. An execution error is `Ok` with `is_error` set.
    ToolResult {
        /// The handle returned by `call_tool`.
        request: RequestId,
        /// The normalised result, or why there is none.
        result: Result<ToolOutput, RequestError>,
    },
    /// A generic request (see `request`) finished.
    Response {
        /// The handle returned by `request`.
        request: RequestId,
        /// The raw result, or why there is none.
        result: Result<Value, RequestError>,
    },
    /// Any other command failed (`tools/list` included).
    Failed {
        /// The handle of the failed command.
        request: RequestId,
        /// Why.
        error: RequestError,
    },
    /// `notifications/tools/list_changed`: the host should list tools again.
    ToolsListChanged,
    /// `notifications/resources/list_changed` or `notifications/prompts/list_changed`: cached
    /// lists of that kind are stale.
    ListChanged(super::ListKind),
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated {
        /// Its URI.
        uri: String,
    },
    /// `notifications/progress` for a request of ours (its deadline was extended).
    Progress {
        /// The request the progress is about.
        request: RequestId,
        /// Progress so far.
        progress: f64,
        /// Total, if known.
        total: Option<f64>,
        /// Human-readable message, if any.
        message: Option<String>,
    },
    /// `notifications/message`: a log line from the server.
    Log {
        /// Severity (`debug` ... `emergency`).
        level: String,
        /// Logger name, if any.
        logger: Option<String>,
        /// The payload.
        data: Value,
    },
    /// The server cancelled one of its own requests to us; do not answer it.
    ServerCancelled {
        /// The id of the server's request.
        id: Id,
        /// Reason, if given.
        reason: Option<String>,
    },
    /// Any other notification, verbatim.
    Notification {
        /// Method name.
        method: String,
        /// Parameters.
        params: Option<Value>,
    },
    /// A request from the server the host must answer with `respond`: `roots/list`,
    /// `sampling/createMessage` or `elicitation/create` (only when the capability was declared).
    ServerRequest {
        /// Id to pass to `respond`.
        id: Id,
        /// Method name.
        method: String,
        /// Parameters.
        params: Option<Value>,
    },
    /// A response that matches nothing in flight (late, unknown or duplicate); it was dropped.
    UnexpectedResponse {
        /// The id it carried, if any.
        id: Option<Id>,
        /// Why it was dropped.
        reason: String,
    },
    /// A malformed line or message from the server; the session goes on.
    ProtocolError {
        /// What was wrong, with a short excerpt.
        message: String,
    },
    /// Events were dropped because a bounded queue was full (a server flooding notifications
    /// faster than the host reads them); `count` is how many since the last such report.
    EventsDropped {
        /// How many.
        count: u64,
    },
    /// The session closed; always the last event, emitted exactly once.
    Closed {
        /// Why.
        reason: String,
    },
}
