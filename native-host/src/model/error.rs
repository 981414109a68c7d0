//! Why a request to an OpenAI-compatible server failed; every message names the culprit.

use agentwire::model::openai::DecodeError;
use std::fmt;
use std::time::Duration;

/// A failed model request. The text of each variant is what the user reads, so it says which
/// server, which setting or which part of the answer was at fault, and never contains the key.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ModelError {
    /// HTTP 401: the server refused the key.
    Unauthorized {
        /// Where the key came from (`OPENAI_API_KEY`, `DASHSCOPE_API_KEY`, ...).
        key_source: String,
        /// The server's base URL.
        base_url: String,
        /// The server's explanation.
        message: String,
    },
    /// A status that retrying will not fix (400, 403, 404, ...).
    Http {
        /// The HTTP status.
        status: u16,
        /// The server's explanation.
        message: String,
        /// What the user may want to check, if anything specific.
        hint: Option<String>,
    },
    /// 429 or 5xx on every attempt.
    RetriesExhausted {
        /// The last status.
        status: u16,
        /// Requests made in total.
        attempts: u32,
        /// The server's last explanation.
        message: String,
    },
    /// The server asked to be retried later than agentwire is willing to wait.
    RetryAfterTooLong {
        /// The status (normally 429).
        status: u16,
        /// How long the server asked to wait.
        wait: Duration,
        /// The most agentwire waits.
        limit: Duration,
        /// The server's explanation.
        message: String,
    },
    /// Nothing arrived within the timeout.
    Timeout {
        /// The timeout that ran out.
        after: Duration,
        /// What was awaited: the response, or more of a started answer.
        waiting_for: &'static str,
        /// The server's base URL.
        base_url: String,
    },
    /// The server could not be reached, or the connection broke.
    Connection {
        /// The server's base URL.
        base_url: String,
        /// What went wrong, from the HTTP stack.
        message: String,
    },
    /// The answer arrived but could not be understood.
    Decode(DecodeError),
    /// The settings cannot make a client (an unusable base URL, a key that is not header-safe).
    Setup(String),
}

/// Shown with URLs cleaned and secrets hidden: base URLs may carry user info or query
/// secrets, and server answers and HTTP stack errors may quote them.
impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::os::display_url::redact_message(
            &Unredacted(self).to_string(),
        ))
    }
}

/// The message as built, before redaction.
struct Unredacted<'a>(&'a ModelError);

impl fmt::Display for Unredacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ModelError::Unauthorized {
                key_source,
                base_url,
                message,
            } => write!(
                f,
                "the model server at {base_url} rejected the API key from {key_source} \
                 (HTTP 401: {message}); check that {key_source} holds a valid key for this server"
            ),
            ModelError::Http {
                status,
                message,
                hint,
            } => {
                write!(f, "the model server answered HTTP {status}: {message}")?;
                match hint {
                    Some(hint) => write!(f, " ({hint})"),
                    None => Ok(()),
                }
            }
            ModelError::RetriesExhausted {
                status,
                attempts,
                message,
            } => write!(
                f,
                "the model server still answered HTTP {status} after {attempts} attempts: {message}"
            ),
            ModelError::RetryAfterTooLong {
                status,
                wait,
                limit,
                message,
            } => write!(
                f,
                "the model server answered HTTP {status} and asks to retry in {} s, longer than \
                 the {} s agentwire waits: {message}",
                wait.as_secs_f64().ceil(),
                limit.as_secs()
            ),
            ModelError::Timeout {
                after,
                waiting_for,
                base_url,
            } => write!(
                f,
                "no {waiting_for} from the model server at {base_url} within {} ms; raise \
                 AGENTWIRE_MODEL_TIMEOUT_MS if the model is just slow",
                after.as_millis()
            ),
            ModelError::Connection { base_url, message } => {
                write!(
                    f,
                    "could not talk to the model server at {base_url}: {message}"
                )
            }
            ModelError::Decode(error) => error.fmt(f),
            ModelError::Setup(message) => write!(f, "model settings: {message}"),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<DecodeError> for ModelError {
    fn from(error: DecodeError) -> Self {
        ModelError::Decode(error)
    }
}

/// The text of an HTTP-stack error with its causes, which hold the useful part ("connection
/// refused", "dns error", ...).
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}
