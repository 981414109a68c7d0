//! URLs as they may be shown: never with user info, never with a secret in the query.
//!
//! A server URL may carry `user:password@` (which reqwest sends as Basic authorization: kept
//! for MCP servers, and documented; a model base URL with it is refused) or `?access_token=…`. Wherever such a URL is printed
//! (errors, `mcp list`, notices) it goes through [`for_display`] first.

use agentwire::audit::redact_text;
use reqwest::Url;

/// `url` without its user info, and with what the redactor finds hidden (the values of query
/// parameters named like secrets: `access_token`, `key`, `sig`, ...). Text that is not a URL
/// goes through the redactor alone.
pub fn for_display(url: &str) -> String {
    redact_text(&without_user_info(url))
}

/// `url` without its user info; text that is not a URL as it is.
fn without_user_info(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.has_host() {
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
    }
    parsed.into()
}

/// `text` (an error message, a server's stderr) with every URL in it shown as
/// [`for_display`] shows it, and every other secret the redactor finds hidden: word by word
/// for the URLs, then over the whole text, because a credential such as `Bearer TOKEN`,
/// `Authorization: Basic …` or `--password VALUE` spans words and is invisible one word at a
/// time.
pub fn redact_message(text: &str) -> String {
    redact_text(&clean_urls(text))
}

/// `text` with the user info of each URL in it removed; the rest is left to one pass of the
/// redactor over the whole (a second pass would redact its own markers again).
fn clean_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match word.find("://") {
            Some(at) if at > 0 => {
                let scheme_start = word[..at]
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+.-".contains(c)))
                    .map_or(0, |i| i + 1);
                let end = word[at..]
                    .find(['"', '\'', '<', '>', '`', ')', ','])
                    .map_or(word.len(), |e| at + e);
                out.push_str(&word[..scheme_start]);
                out.push_str(&without_user_info(&word[scheme_start..end]));
                out.push_str(&word[end..]);
            }
            _ => out.push_str(word),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_info_and_query_secrets_never_show() {
        let cases = [
            (
                "https://bob:s3cret@example.com/v1",
                "https://example.com/v1",
            ),
            ("https://ghp_abcdefghijklmnop1234@h/x", "https://h/x"),
            (
                "http://127.0.0.1:9/mcp?access_token=abc123&page=2",
                "http://127.0.0.1:9/mcp?access_token=[REDACTED]&page=2",
            ),
            (
                "https://h/x?api_key=k1&sig=s2",
                "https://h/x?api_key=[REDACTED]&sig=[REDACTED]",
            ),
            ("https://api.openai.com/v1", "https://api.openai.com/v1"),
            (
                "not a url password=hunter2",
                "not a url password=[REDACTED]",
            ),
        ];
        for (url, want) in cases {
            assert_eq!(for_display(url), want, "{url}");
        }
    }

    #[test]
    fn credentials_that_span_words_are_hidden_too() {
        // The word-by-word pass alone saw "Bearer" and the token apart and hid neither.
        for (message, secret) in [
            (
                "upstream refused: Authorization: Bearer abcdefghijklmnop1234",
                "abcdefghijklmnop1234",
            ),
            ("got Bearer zyxwvutsrqponm9876 back", "zyxwvutsrqponm9876"),
            ("login with --password hunter2pw failed", "hunter2pw"),
            (
                "at https://h/x?token=abc123tok then Basic dXNlcjpwYXNzd29yZA==",
                "dXNlcjpwYXNzd29yZA",
            ),
        ] {
            let shown = redact_message(message);
            assert!(!shown.contains(secret), "{shown}");
            assert!(shown.contains("[REDACTED]"), "{shown}");
        }
        // What is not a secret stays as it was.
        assert_eq!(
            redact_message("no such tool \"x\" on https://bob:pw@h:1/mcp"),
            "no such tool \"x\" on https://h:1/mcp"
        );
    }

    #[test]
    fn urls_inside_messages_are_cleaned() {
        let message =
            "error sending request for url (https://bob:pw@h:1/x?token=t1): refused; key=abc";
        let shown = redact_message(message);
        assert_eq!(
            shown,
            "error sending request for url (https://h:1/x?token=[REDACTED]): refused; key=[REDACTED]"
        );
    }
}
