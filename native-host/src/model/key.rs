//! An API key that cannot leak through `Debug`, `Display` or error messages.

use std::fmt;

/// The shortest secret that [`ApiKey::redact`] scrubs from text; shorter ones would match
/// ordinary words.
const MIN_REDACTED_LEN: usize = 4;

/// An API key and the name of the place it came from (`OPENAI_API_KEY`, ...).
///
/// `Debug` and `Display` show only the source, so settings can be logged freely; the secret is
/// read with [`expose`](Self::expose), which is called in one place: the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    secret: String,
    source: String,
}

impl ApiKey {
    /// A key read from `source` (an environment variable's name, `--api-key`, ...).
    pub fn new(secret: impl Into<String>, source: impl Into<String>) -> Self {
        ApiKey {
            secret: secret.into(),
            source: source.into(),
        }
    }

    /// Where the key came from, safe to show.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The secret itself; only for the request header.
    pub fn expose(&self) -> &str {
        &self.secret
    }

    /// `text` with every occurrence of the secret replaced by `<redacted>`, for server messages
    /// that quote the key back.
    pub fn redact(&self, text: &str) -> String {
        if self.secret.len() < MIN_REDACTED_LEN {
            return text.to_owned();
        }
        text.replace(&self.secret, "<redacted>")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiKey")
            .field("source", &self.source)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the key from {}", self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_secret() {
        let key = ApiKey::new("sk-very-secret-123", "OPENAI_API_KEY");
        let shown = format!("{key:?} {key} {key:#?}");
        assert!(!shown.contains("sk-very-secret-123"), "{shown}");
        assert!(shown.contains("OPENAI_API_KEY"), "{shown}");
        assert_eq!(key.expose(), "sk-very-secret-123");
    }

    #[test]
    fn redact_scrubs_the_secret_from_server_text() {
        let key = ApiKey::new("sk-abc123", "DASHSCOPE_API_KEY");
        assert_eq!(
            key.redact("Incorrect API key provided: sk-abc123."),
            "Incorrect API key provided: <redacted>."
        );
        // A one-letter "key" would turn every message into mush; it is left alone.
        assert_eq!(ApiKey::new("a", "X").redact("a cat"), "a cat");
    }
}
