//! URLs as they may be shown: never with user info, never with a secret in the query.
//!
//! A server URL or `--base-url` may carry `user:password@` (which reqwest sends as Basic
//! authorization: kept, and documented) or `?access_token=…`. Wherever such a URL is printed
//! (errors, `mcp list`, notices) it goes through [`for_display`] first.

use agentwire::audit::redact_text;
use reqwest::Url;

/// `url` without its user info, and with what the redactor finds hidden (the values of query
/// parameters named like secrets: `access_token`, `key`, `sig`, ...). Text that is not a URL
/// goes through the redactor alone.
pub fn for_display(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        return redact_text(url);
    };
    if parsed.has_host() {
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
    }
    redact_text(parsed.as_str())
}

/// `text` (an error message, a server's stderr) with every URL in it shown as
/// [`for_display`] shows it, and every other secret the redactor finds hidden.
pub fn redact_message(text: &str) -> String {
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
                out.push_str(&redact_text(&word[..scheme_start]));
                out.push_str(&for_display(&word[scheme_start..end]));
                out.push_str(&redact_text(&word[end..]));
            }
            _ => out.push_str(&redact_text(word)),
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
