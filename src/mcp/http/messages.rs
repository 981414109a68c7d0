//! Turning HTTP bodies and SSE event data into JSON-RPC lines, and back.
//!
//! The session above the transport reads NDJSON, so every message handed up must be exactly one
//! line. A server may pretty-print its JSON or (in older protocol versions) send a batch array;
//! both are normalised here.

use crate::jsonrpc::Id;
use serde_json::{json, Value};

/// What the machine needs to know about one message the server sent.
#[derive(Debug)]
pub(crate) struct Incoming {
    /// The line to hand to the session, ending in `\n`.
    pub line: Vec<u8>,
    /// The id, when the message is a response (has an id and no method).
    pub response_to: Option<Id>,
    /// The parsed message, kept so the machine can sniff the `initialize` result.
    pub value: Option<Value>,
}

/// Splits a JSON text (a body or one event's data) into messages.
///
/// Text that is not JSON is handed on as one line (newlines replaced by spaces) so the session
/// reports it as malformed with an excerpt, exactly as it would for a stdio server.
pub(crate) fn split(text: &[u8]) -> Vec<Incoming> {
    match serde_json::from_slice::<Value>(text) {
        Ok(Value::Array(items)) => items.into_iter().map(from_value).collect(),
        Ok(value) => vec![from_value(value)],
        Err(_) => {
            let mut line: Vec<u8> = text
                .iter()
                .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
                .collect();
            line.push(b'\n');
            vec![Incoming {
                line,
                response_to: None,
                value: None,
            }]
        }
    }
}

fn from_value(value: Value) -> Incoming {
    let response_to = response_id(&value);
    let mut line = serde_json::to_vec(&value).unwrap_or_default();
    line.push(b'\n');
    Incoming {
        line,
        response_to,
        value: Some(value),
    }
}

/// The id of a response message; `None` for requests, notifications and id-less errors.
fn response_id(value: &Value) -> Option<Id> {
    let object = value.as_object()?;
    if object.contains_key("method") {
        return None;
    }
    match object.get("id")? {
        Value::Number(n) => Some(Id::Number(n.clone())),
        Value::String(s) => Some(Id::String(s.clone())),
        _ => None,
    }
}

/// A JSON-RPC error response for request `id`, standing in for the answer the server never
/// gave, so the caller learns at once why instead of waiting for its timeout.
pub(crate) fn error_line(id: &Id, message: &str, status: Option<u16>) -> Vec<u8> {
    let mut error = json!({"code": crate::jsonrpc::codes::CONNECTION_CLOSED, "message": message});
    if let Some(status) = status {
        error["data"] = json!({"httpStatus": status});
    }
    let value = json!({"jsonrpc": "2.0", "id": id.to_value(), "error": error});
    let mut line = serde_json::to_vec(&value).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Whether `text` holds nothing but whitespace.
pub(crate) fn is_blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

/// A short printable excerpt of a body for error messages (whitespace collapsed).
pub(crate) fn body_excerpt(body: &[u8]) -> String {
    let text = crate::framing::excerpt(body);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
