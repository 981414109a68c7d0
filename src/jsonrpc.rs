//! JSON-RPC 2.0 messages: typed requests, notifications and responses with strict validation.
//!
//! Parsing is strict where the spec is strict (`"jsonrpc": "2.0"`, `result` xor `error`, ids that
//! are strings or numbers) because a lenient peer today is a silent interop bug tomorrow. Ids are
//! kept as the exact JSON the peer sent, so they are echoed back byte for byte.

use crate::json::{quoted, to_text};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Standard JSON-RPC 2.0 error codes.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP: the request timed out (used locally for requests this side gave up on).
    pub const REQUEST_TIMEOUT: i64 = -32001;
    /// Used locally when the connection closed before a response arrived.
    pub const CONNECTION_CLOSED: i64 = -32000;
}

/// How deep arrays and objects may nest in a message: serde_json's recursion limit.
pub const MAX_DEPTH: usize = 128;

/// Why serde_json could not read a message, as a [`MessageError`]: [`MessageError::TooDeep`]
/// for its recursion limit, else [`MessageError::InvalidJson`] with its description (such as
/// `number out of range` for `1e999999`).
pub(crate) fn json_error(error: &serde_json::Error) -> MessageError {
    let text = error.to_string();
    if text.starts_with("recursion limit exceeded") {
        MessageError::TooDeep
    } else {
        MessageError::InvalidJson(text)
    }
}

/// A request id: a number or a string, kept exactly as received.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id {
    /// A numeric id.
    Number(Number),
    /// A string id.
    String(String),
}

impl Id {
    /// Converts the id to its JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
        }
    }

    /// The id as an unsigned integer, when it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Id::Number(n) => n.as_u64(),
            Id::String(_) => None,
        }
    }

    fn from_value(value: Value) -> Option<Id> {
        match value {
            Value::Number(n) => Some(Id::Number(n)),
            Value::String(s) => Some(Id::String(s)),
            _ => None,
        }
    }
}

impl From<u64> for Id {
    fn from(n: u64) -> Self {
        Id::Number(n.into())
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s}", s = quoted(s)),
        }
    }
}

/// The error object of a failed response.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorObject {
    /// Error code, see [`codes`].
    pub code: i64,
    /// Short human-readable description.
    pub message: String,
    /// Optional extra information.
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32601 Method not found` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("code".into(), self.code.into());
        map.insert("message".into(), self.message.clone().into());
        if let Some(data) = &self.data {
            map.insert("data".into(), data.clone());
        }
        Value::Object(map)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// A request: a method call that expects exactly one response.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The id the response must echo.
    pub id: Id,
    /// Method name.
    pub method: String,
    /// Parameters, when present (an object or an array).
    pub params: Option<Value>,
}

/// A notification: a method call without an id, never answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    /// Method name.
    pub method: String,
    /// Parameters, when present (an object or an array).
    pub params: Option<Value>,
}

/// A response to a request: a result or an error.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The id of the request; `None` only for errors about a request whose id could not be read.
    pub id: Option<Id>,
    /// The result, or the error.
    pub outcome: Result<Value, ErrorObject>,
}

/// Any JSON-RPC 2.0 message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response.
    Response(Response),
}

/// Why a frame is not a valid JSON-RPC 2.0 message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageError {
    /// The bytes are not JSON; carries serde_json's description.
    InvalidJson(String),
    /// The JSON nests deeper than [`MAX_DEPTH`] arrays and objects (serde_json's recursion
    /// limit, which keeps a hostile message from overflowing the stack).
    TooDeep,
    /// A JSON array: batches are not supported (MCP removed them in 2025-06-18).
    Batch,
    /// Valid JSON, but not a JSON-RPC message. `id` is the request id when one could be read,
    /// so a server can still answer with `-32600`.
    Invalid {
        /// What is wrong.
        reason: String,
        /// The id of the offending message, if it had a usable one.
        id: Option<Id>,
    },
}

impl MessageError {
    /// The JSON-RPC error a server should answer with.
    pub fn to_error_object(&self) -> ErrorObject {
        match self {
            MessageError::InvalidJson(_) | MessageError::TooDeep => {
                ErrorObject::new(codes::PARSE_ERROR, self.to_string())
            }
            _ => ErrorObject::new(codes::INVALID_REQUEST, self.to_string()),
        }
    }
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::InvalidJson(e) => write!(f, "invalid JSON: {e}"),
            MessageError::TooDeep => write!(
                f,
                "JSON nested deeper than {MAX_DEPTH} arrays and objects; not read"
            ),
            MessageError::Batch => {
                write!(
                    f,
                    "JSON-RPC batches (JSON arrays) are not supported; send one message per line"
                )
            }
            MessageError::Invalid { reason, .. } => write!(f, "invalid JSON-RPC message: {reason}"),
        }
    }
}

impl std::error::Error for MessageError {}

fn invalid(reason: impl Into<String>, id: Option<Id>) -> MessageError {
    MessageError::Invalid {
        reason: reason.into(),
        id,
    }
}

impl Message {
    /// Parses and validates one message from the bytes of a single frame.
    pub fn parse(bytes: &[u8]) -> Result<Message, MessageError> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| json_error(&e))?;
        Message::from_value(value)
    }

    /// Validates a JSON value as a message.
    pub fn from_value(value: Value) -> Result<Message, MessageError> {
        let mut map = match value {
            Value::Object(map) => map,
            Value::Array(_) => return Err(MessageError::Batch),
            other => {
                return Err(invalid(
                    format!("expected an object, got {}", type_name(&other)),
                    None,
                ))
            }
        };
        let raw_id = map.remove("id");
        let id = match raw_id {
            None => None,
            Some(v @ (Value::Number(_) | Value::String(_))) => Id::from_value(v),
            Some(Value::Null) => None,
            Some(other) => {
                return Err(invalid(
                    format!(
                        "\"id\" must be a string or a number, got {}",
                        type_name(&other)
                    ),
                    None,
                ))
            }
        };
        match map.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            Some(other) => {
                return Err(invalid(
                    format!("\"jsonrpc\" must be \"2.0\", got {}", to_text(other)),
                    id,
                ))
            }
            None => return Err(invalid("missing \"jsonrpc\": \"2.0\"", id)),
        }
        if let Some(method) = map.remove("method") {
            let Value::String(method) = method else {
                return Err(invalid("\"method\" must be a string", id));
            };
            let params = match map.remove("params") {
                None => None,
                Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
                Some(other) => {
                    return Err(invalid(
                        format!(
                            "\"params\" must be an object or an array, got {}",
                            type_name(&other)
                        ),
                        id,
                    ))
                }
            };
            return Ok(match id {
                Some(id) => Message::Request(Request { id, method, params }),
                None => Message::Notification(Notification { method, params }),
            });
        }
        let result = map.remove("result");
        let error = map.remove("error");
        let outcome = match (result, error) {
            (Some(result), None) => Ok(result),
            (None, Some(error)) => {
                Err(parse_error_object(error).map_err(|r| invalid(r, id.clone()))?)
            }
            (Some(_), Some(_)) => return Err(invalid("has both \"result\" and \"error\"", id)),
            (None, None) => {
                return Err(invalid(
                    "has neither \"method\", \"result\" nor \"error\"",
                    id,
                ))
            }
        };
        if id.is_none() && outcome.is_ok() {
            return Err(invalid("a result must carry the request's \"id\"", None));
        }
        Ok(Message::Response(Response { id, outcome }))
    }

    /// Converts the message to its JSON value.
    pub fn to_value(&self) -> Value {
        let mut map = Map::with_capacity(4);
        map.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request(r) => {
                map.insert("id".into(), r.id.to_value());
                map.insert("method".into(), r.method.clone().into());
                if let Some(p) = &r.params {
                    map.insert("params".into(), p.clone());
                }
            }
            Message::Notification(n) => {
                map.insert("method".into(), n.method.clone().into());
                if let Some(p) = &n.params {
                    map.insert("params".into(), p.clone());
                }
            }
            Message::Response(r) => {
                map.insert("id".into(), r.id.as_ref().map_or(Value::Null, Id::to_value));
                match &r.outcome {
                    Ok(result) => map.insert("result".into(), result.clone()),
                    Err(error) => map.insert("error".into(), error.to_value()),
                };
            }
        }
        Value::Object(map)
    }

    /// Serialises the message as compact JSON (no newline; see [`crate::framing::encode_line`]).
    ///
    /// The same bytes as serialising [`to_value`](Self::to_value), written straight from the
    /// message: no copy of the params or result is made on every send.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(br#"{"jsonrpc":"2.0""#);
        match self {
            Message::Request(r) => {
                put_value(&mut out, "id", &r.id.to_value());
                put_str(&mut out, "method", &r.method);
                if let Some(p) = &r.params {
                    put_value(&mut out, "params", p);
                }
            }
            Message::Notification(n) => {
                put_str(&mut out, "method", &n.method);
                if let Some(p) = &n.params {
                    put_value(&mut out, "params", p);
                }
            }
            Message::Response(r) => {
                let id = r.id.as_ref().map_or(Value::Null, Id::to_value);
                put_value(&mut out, "id", &id);
                match &r.outcome {
                    Ok(result) => put_value(&mut out, "result", result),
                    Err(error) => put_value(&mut out, "error", &error.to_value()),
                }
            }
        }
        out.push(b'}');
        out
    }

    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }
}

fn parse_error_object(value: Value) -> Result<ErrorObject, String> {
    let Value::Object(mut map) = value else {
        return Err("\"error\" must be an object".into());
    };
    let code = map
        .get("code")
        .and_then(Value::as_i64)
        .ok_or("\"error.code\" must be an integer")?;
    let message = match map.remove("message") {
        Some(Value::String(s)) => s,
        _ => return Err("\"error.message\" must be a string".into()),
    };
    Ok(ErrorObject {
        code,
        message,
        data: map.remove("data"),
    })
}

/// How a JSON value's type reads in an error message: `"a string"`, `"an object"`, `"null"`, ...
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Appends `,"key":value` (compact JSON) to a message being written; `key` is a plain name.
fn put_value(out: &mut Vec<u8>, key: &str, value: &Value) {
    put_key(out, key);
    // Writing a `Value` into a Vec cannot fail: all its keys are strings.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Appends `,"key":"text"`, the text escaped as JSON.
fn put_str(out: &mut Vec<u8>, key: &str, text: &str) {
    put_key(out, key);
    let _ = serde_json::to_writer(&mut *out, text);
}

fn put_key(out: &mut Vec<u8>, key: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Message, MessageError> {
        Message::parse(v.to_string().as_bytes())
    }

    #[test]
    fn classifies_the_four_shapes() {
        let req = parse(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).unwrap();
        assert!(
            matches!(req, Message::Request(ref r) if r.id == Id::from(1) && r.params.is_none())
        );
        let note = parse(json!({"jsonrpc":"2.0","method":"n","params":{"a":1}})).unwrap();
        assert!(matches!(note, Message::Notification(ref n) if n.params == Some(json!({"a":1}))));
        let ok = parse(json!({"jsonrpc":"2.0","id":"x","result":{}})).unwrap();
        assert!(matches!(ok, Message::Response(ref r) if r.outcome == Ok(json!({}))));
        let err =
            parse(json!({"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}})).unwrap();
        let Message::Response(r) = err else {
            panic!("not a response")
        };
        assert_eq!(r.outcome.unwrap_err().code, codes::METHOD_NOT_FOUND);
    }

    #[test]
    fn bytes_are_the_serialised_value_for_every_shape() {
        let messages = [
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e\"\n","arguments":{"z":1,"a":[true,null]}}}),
            json!({"jsonrpc":"2.0","id":"x y","method":"ping"}),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}),
            json!({"jsonrpc":"2.0","method":"n"}),
            json!({"jsonrpc":"2.0","id":1.5,"result":{"content":[{"type":"text","text":"\u{1F600}\u{7}"}]}}),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":{"at":1}}}),
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}),
        ];
        for value in messages {
            let message = parse(value.clone()).unwrap();
            let bytes = message.to_bytes();
            assert_eq!(
                bytes,
                serde_json::to_vec(&message.to_value()).unwrap(),
                "{value}"
            );
            assert_eq!(
                Message::parse(&bytes).unwrap(),
                message,
                "{value} must read back"
            );
        }
    }

    #[test]
    fn ids_round_trip_exactly() {
        for id in [
            json!(0),
            json!(-7),
            json!(18446744073709551615u64),
            json!(1.5),
            json!("abc"),
            json!(""),
        ] {
            let msg = parse(json!({"jsonrpc":"2.0","id":id,"method":"m"})).unwrap();
            assert_eq!(msg.to_value()["id"], id, "id {id} must be echoed exactly");
        }
    }

    #[test]
    fn rejects_what_the_spec_rejects() {
        let cases = [
            (json!([{"jsonrpc":"2.0","method":"m"}]), "batches"),
            (json!({"id":1,"method":"m"}), "missing \"jsonrpc\""),
            (
                json!({"jsonrpc":"1.0","id":1,"method":"m"}),
                "must be \"2.0\"",
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}),
                "both",
            ),
            (json!({"jsonrpc":"2.0","id":1}), "neither"),
            (
                json!({"jsonrpc":"2.0","id":{"a":1},"method":"m"}),
                "\"id\" must be",
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"method":7}),
                "\"method\" must be",
            ),
            (
                json!({"jsonrpc":"2.0","method":"m","params":3}),
                "\"params\" must be",
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"error":{"message":"m"}}),
                "error.code",
            ),
            (json!({"jsonrpc":"2.0","result":1}), "must carry"),
            (json!("hello"), "expected an object"),
        ];
        for (value, needle) in cases {
            let err = parse(value.clone()).unwrap_err().to_string();
            assert!(
                err.contains(needle),
                "{value}: {err:?} should mention {needle:?}"
            );
        }
        assert!(matches!(
            Message::parse(b"{nope"),
            Err(MessageError::InvalidJson(_))
        ));
    }

    #[test]
    fn invalid_request_keeps_its_id_for_the_error_response() {
        let err = parse(json!({"jsonrpc":"1.0","id":"k","method":"m"})).unwrap_err();
        assert!(
            matches!(err, MessageError::Invalid { id: Some(Id::String(ref s)), .. } if s == "k")
        );
        assert_eq!(err.to_error_object().code, codes::INVALID_REQUEST);
    }

    #[test]
    fn error_response_with_null_id_is_accepted() {
        let msg = parse(json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}))
            .unwrap();
        assert!(matches!(
            msg,
            Message::Response(Response {
                id: None,
                outcome: Err(_)
            })
        ));
        assert_eq!(msg.to_value()["id"], Value::Null);
    }
}
