//! Why a request to an OpenAI-compatible server failed; every message names the culprit.

use super::key::ApiKey;
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
    /// Nothing arrived within a timeout: the time to first byte, or the idle timeout of a
    /// started answer.
    Timeout {
        /// The timeout that ran out.
        after: Duration,
        /// What was awaited: the first byte of the answer, or more of a started one.
        waiting_for: &'static str,
        /// Which timeout it was, as the variable that sets it.
        setting: &'static str,
        /// The server's base URL.
        base_url: String,
    },
    /// An answer passed its size bound (`AGENTWIRE_MODEL_MAX_ANSWER_BYTES`).
    AnswerTooLarge {
        /// Which wire format (provider) was answering.
        provider: &'static str,
        /// The server's base URL.
        base_url: String,
        /// The bound, in bytes.
        limit: usize,
    },
    /// An answer was still arriving when its duration bound ran out
    /// (`AGENTWIRE_MODEL_MAX_ANSWER_MS`).
    AnswerTooLong {
        /// Which wire format (provider) was answering.
        provider: &'static str,
        /// The server's base URL.
        base_url: String,
        /// The bound.
        limit: Duration,
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
                setting,
                base_url,
            } => write!(
                f,
                "no {waiting_for} from the model server at {base_url} within {} ms ({}); \
                 raise {setting} if the model is just slow",
                after.as_millis(),
                if *setting == FIRST_BYTE_SETTING {
                    "the time to first byte ran out"
                } else {
                    "the idle timeout between two pieces of the answer ran out"
                }
            ),
            ModelError::AnswerTooLarge {
                provider,
                base_url,
                limit,
            } => write!(
                f,
                "the {provider} answer from the model server at {base_url} passed the size \
                 limit of {limit} bytes and was stopped; raise AGENTWIRE_MODEL_MAX_ANSWER_BYTES \
                 if the answer is real"
            ),
            ModelError::AnswerTooLong {
                provider,
                base_url,
                limit,
            } => write!(
                f,
                "the {provider} answer from the model server at {base_url} was still arriving \
                 after {} ms, the limit on an answer's duration, and was stopped; raise \
                 AGENTWIRE_MODEL_MAX_ANSWER_MS if the answer is real",
                limit.as_millis()
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

/// The variable that sets the time to first byte.
pub(crate) const FIRST_BYTE_SETTING: &str = "AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS";
/// The variable that sets the idle timeout.
pub(crate) const IDLE_SETTING: &str = "AGENTWIRE_MODEL_IDLE_TIMEOUT_MS";

impl ModelError {
    /// This error with every occurrence of `key` in its text replaced: servers quote the key
    /// back in error bodies, streamed error events and odd answers, and a key without a
    /// well-known prefix is invisible to the pattern redactor.
    pub fn redacted(self, key: &ApiKey) -> ModelError {
        let scrub = |text: String| key.redact(&text);
        let scrub_opt = |text: Option<String>| text.map(|t| key.redact(&t));
        match self {
            ModelError::Unauthorized {
                key_source,
                base_url,
                message,
            } => ModelError::Unauthorized {
                key_source,
                base_url: scrub(base_url),
                message: scrub(message),
            },
            ModelError::Http {
                status,
                message,
                hint,
            } => ModelError::Http {
                status,
                message: scrub(message),
                hint: scrub_opt(hint),
            },
            ModelError::RetriesExhausted {
                status,
                attempts,
                message,
            } => ModelError::RetriesExhausted {
                status,
                attempts,
                message: scrub(message),
            },
            ModelError::RetryAfterTooLong {
                status,
                wait,
                limit,
                message,
            } => ModelError::RetryAfterTooLong {
                status,
                wait,
                limit,
                message: scrub(message),
            },
            ModelError::Connection { base_url, message } => ModelError::Connection {
                base_url: scrub(base_url),
                message: scrub(message),
            },
            ModelError::Decode(error) => ModelError::Decode(match error {
                DecodeError::NotJson { error, snippet } => DecodeError::NotJson {
                    error: scrub(error),
                    snippet: scrub(snippet),
                },
                DecodeError::Api {
                    message,
                    kind,
                    code,
                } => DecodeError::Api {
                    message: scrub(message),
                    kind: scrub_opt(kind),
                    code: scrub_opt(code),
                },
                DecodeError::Malformed(what) => DecodeError::Malformed(scrub(what)),
                DecodeError::Incomplete(what) => DecodeError::Incomplete(scrub(what)),
                DecodeError::Stopped { reason } => DecodeError::Stopped {
                    reason: scrub(reason),
                },
                other => other,
            }),
            ModelError::Setup(message) => ModelError::Setup(scrub(message)),
            other => other,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "plainkey7Q2x9Lm4Vb8Nz3Wc";

    /// One error of every variant with the key in every text field.
    fn every_variant() -> Vec<ModelError> {
        let k = || format!("a {KEY} b");
        let decode = [
            DecodeError::NotJson {
                error: k(),
                snippet: k(),
            },
            DecodeError::Api {
                message: k(),
                kind: Some(k()),
                code: Some(k()),
            },
            DecodeError::Malformed(k()),
            DecodeError::Incomplete(k()),
            DecodeError::Stopped { reason: k() },
        ];
        let mut all = vec![
            ModelError::Unauthorized {
                key_source: "OPENAI_API_KEY".into(),
                base_url: k(),
                message: k(),
            },
            ModelError::Http {
                status: 400,
                message: k(),
                hint: Some(k()),
            },
            ModelError::RetriesExhausted {
                status: 503,
                attempts: 4,
                message: k(),
            },
            ModelError::RetryAfterTooLong {
                status: 429,
                wait: Duration::from_secs(90),
                limit: Duration::from_secs(60),
                message: k(),
            },
            ModelError::Connection {
                base_url: k(),
                message: k(),
            },
            ModelError::Setup(k()),
        ];
        all.extend(decode.into_iter().map(ModelError::Decode));
        all
    }

    #[test]
    fn redacted_scrubs_the_key_from_every_field_of_every_variant() {
        let key = ApiKey::new(KEY, "OPENAI_API_KEY");
        for error in every_variant() {
            let before = format!("{error:?}");
            assert!(before.contains(KEY), "the case holds the key: {before}");
            let after = error.redacted(&key);
            let shown = format!("{after} {after:?}");
            assert!(!shown.contains(KEY), "{shown}");
            assert!(shown.contains("a <redacted> b"), "{shown}");
        }
    }

    #[test]
    fn redacted_keeps_everything_else() {
        let key = ApiKey::new(KEY, "OPENAI_API_KEY");
        let error = ModelError::Http {
            status: 404,
            message: "no such model".into(),
            hint: None,
        };
        assert_eq!(error.clone().redacted(&key), error);
        let timeout = ModelError::Timeout {
            after: Duration::from_secs(1),
            waiting_for: "first byte of the answer",
            setting: FIRST_BYTE_SETTING,
            base_url: "http://h".into(),
        };
        assert_eq!(timeout.clone().redacted(&key), timeout);
    }

    #[test]
    fn each_timeout_names_itself_and_its_variable() {
        let timeout = |setting| ModelError::Timeout {
            after: Duration::from_millis(1500),
            waiting_for: "x",
            setting,
            base_url: "http://h".into(),
        };
        let first = timeout(FIRST_BYTE_SETTING).to_string();
        assert!(first.contains("the time to first byte ran out"), "{first}");
        assert!(first.contains(FIRST_BYTE_SETTING), "{first}");
        let idle = timeout(IDLE_SETTING).to_string();
        assert!(idle.contains("the idle timeout"), "{idle}");
        assert!(idle.contains(IDLE_SETTING), "{idle}");
    }
}
