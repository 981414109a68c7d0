//! What can be wrong with a model's answer.

use crate::json::{quoted, to_text};
use std::fmt;

use serde_json::Value;

use crate::model::clip;

/// Why a model answer could not be decoded; every variant names the culprit.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The body (or a stream chunk) is not JSON.
    NotJson {
        /// The parser's complaint.
        error: String,
        /// The start of the offending text.
        snippet: String,
    },
    /// The server answered with an error body such as `{"error": {"message", "type", "code"}}`.
    Api {
        /// Human-readable message from the server.
        message: String,
        /// Error type, e.g. `invalid_request_error`.
        kind: Option<String>,
        /// Error code, e.g. `invalid_api_key` or `429`.
        code: Option<String>,
    },
    /// Valid JSON of the wrong shape; the text says which field.
    Malformed(String),
    /// A stream ended before the answer was complete.
    Incomplete(String),
    /// The model stopped without a usable answer: Anthropic's `stop_reason` `max_tokens` (the
    /// answer was cut at the request's limit) or `refusal`.
    Stopped {
        /// The `stop_reason` as the server sent it.
        reason: String,
    },
    /// A streamed answer passed its size bound (a runaway or hostile stream).
    TooLarge {
        /// The bound, in bytes of the body.
        limit: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotJson { error, snippet } => {
                write!(
                    f,
                    "model response is not JSON ({error}): {snippet}",
                    snippet = quoted(snippet)
                )
            }
            DecodeError::Api {
                message,
                kind,
                code,
            } => {
                write!(f, "model API error: {message}")?;
                match (kind, code) {
                    (Some(k), Some(c)) => write!(f, " (type {k}, code {c})"),
                    (Some(k), None) => write!(f, " (type {k})"),
                    (None, Some(c)) => write!(f, " (code {c})"),
                    (None, None) => Ok(()),
                }
            }
            DecodeError::Malformed(what) => write!(f, "malformed model response: {what}"),
            DecodeError::Incomplete(what) => write!(f, "model stream ended early: {what}"),
            DecodeError::Stopped { reason } => match reason.as_str() {
                "max_tokens" => f.write_str(
                    "the model stopped at the request's max_tokens limit before finishing \
                     (stop_reason max_tokens); raise max_tokens",
                ),
                "refusal" => f.write_str("the model refused to answer (stop_reason refusal)"),
                other => write!(f, "the model stopped early (stop_reason {})", quoted(other)),
            },
            DecodeError::TooLarge { limit } => write!(
                f,
                "the streamed answer passed its size limit of {} ({limit} bytes); the stream was stopped",
                human_bytes(*limit)
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// `64 MiB`, `1.5 KiB` or `512 B`: a size as people read it.
fn human_bytes(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes % KIB == 0 {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

impl DecodeError {
    /// A `NotJson` error for `text`, keeping only its start.
    pub(crate) fn not_json(error: &serde_json::Error, text: &[u8]) -> Self {
        DecodeError::NotJson {
            error: error.to_string(),
            snippet: clip(&String::from_utf8_lossy(text), 200),
        }
    }

    /// Reads an API error body, if `value` is one: OpenAI's `{"error": {...}}` (or
    /// `{"error": "text"}`), or DashScope's native `{"code", "message"}` without `choices`.
    pub(crate) fn from_api_body(value: &Value) -> Option<Self> {
        let as_text = |v: Option<&Value>| match v {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(to_text(other)),
        };
        match value.get("error") {
            Some(Value::Object(err)) => Some(DecodeError::Api {
                message: as_text(err.get("message"))
                    .unwrap_or_else(|| to_text(&Value::Object(err.clone()))),
                kind: as_text(err.get("type")),
                code: as_text(err.get("code")),
            }),
            Some(Value::String(message)) => Some(DecodeError::Api {
                message: message.clone(),
                kind: None,
                code: None,
            }),
            _ if value.get("choices").is_none() => {
                let message = value.get("message").and_then(Value::as_str)?;
                Some(DecodeError::Api {
                    message: message.to_owned(),
                    kind: None,
                    code: as_text(value.get("code")),
                })
            }
            _ => None,
        }
    }
}

/// Parses a tool call's `arguments`: a JSON string normally, an object from lenient servers.
/// Empty text means no arguments; a string holding JSON once more (double-encoded by some models)
/// is unwrapped once. Text that is not JSON is kept as a JSON string rather than failing the
/// answer: the agent loop then tells the model what is wrong with it, and the model can retry
/// (a model's typo must not end the whole run).
pub(crate) fn parse_arguments(raw: &Value) -> Value {
    let text = match raw {
        Value::Null => return Value::Object(Default::default()),
        Value::String(s) => s,
        other => return other.clone(),
    };
    if text.trim().is_empty() {
        return Value::Object(Default::default());
    }
    match crate::json::parse_str(text) {
        Ok(Value::String(inner)) => match crate::json::parse_str(&inner) {
            Ok(obj @ Value::Object(_)) => obj,
            _ => Value::String(inner),
        },
        Ok(value) => value,
        Err(_) => Value::String(text.clone()),
    }
}
