//! Secret redaction for audit records: sensitive keys, token-shaped strings, auth headers.
//!
//! Redaction errs on the side of hiding: `max_tokens` loses its number because it contains
//! "token", which is a small price next to leaking a `GITHUB_TOKEN` into a log file.

use crate::json::to_text;
use crate::registry::char_prefix;
use serde_json::Value;

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Longest argument summary, in characters (including the trailing `…` when cut).
pub const MAX_SUMMARY_CHARS: usize = 200;

const SENSITIVE_SUBSTRINGS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "authorization",
    "credential",
    "cookie",
    "apikey",
    "api_key",
    "api-key",
    "private_key",
    "privatekey",
    "access_key",
];
const SENSITIVE_WORDS: &[&str] = &["key", "pat", "pwd", "auth", "oauth", "bearer", "session"];

/// Token prefixes worth hiding wherever they appear, with the shortest body that counts.
const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("github_pat_", 8),
    ("ghp_", 8),
    ("gho_", 8),
    ("ghu_", 8),
    ("ghs_", 8),
    ("ghr_", 8),
    ("sk-", 8),
    ("xoxb-", 8),
    ("xoxp-", 8),
    ("xoxa-", 8),
    ("xoxs-", 8),
    ("glpat-", 8),
    ("AKIA", 12),
    ("eyJ", 16),
];
const AUTH_SCHEMES: &[&str] = &["bearer", "basic", "token"];

/// Whether the value under this object key should be hidden.
///
/// Case-insensitive substring match for words such as `token`, `secret`, `password`,
/// `authorization` (so `GITHUB_TOKEN`, `api_key`, `X-Api-Key` all match), plus whole words like
/// `key` or `pat` (so `ssh_key` matches but `keyword` does not).
pub fn is_sensitive_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    if SENSITIVE_SUBSTRINGS.iter().any(|s| lower.contains(s)) {
        return true;
    }
    split_words(key)
        .iter()
        .any(|w| SENSITIVE_WORDS.contains(&w.as_str()) || w.ends_with("key"))
}

fn split_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_ascii_alphanumeric() {
            words.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    words.extend((!current.is_empty()).then_some(current));
    words
}

/// `value` with sensitive keys' values replaced and token-like strings hidden, recursively.
pub fn redact_value(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_sensitive_key(k) && !v.is_null() {
                        Value::String(REDACTED.into())
                    } else {
                        redact_value(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_value).collect()),
        Value::String(s) => Value::String(redact_text(s)),
        other => other.clone(),
    }
}

/// Compact JSON of the redacted arguments, cut to [`MAX_SUMMARY_CHARS`] characters.
pub fn summarize_arguments(arguments: &Value) -> String {
    let text = to_text(&redact_value(arguments));
    let (head, cut) = char_prefix(&text, MAX_SUMMARY_CHARS);
    if cut == 0 {
        return text;
    }
    let (head, _) = char_prefix(head, MAX_SUMMARY_CHARS - 1);
    format!("{head}…")
}

/// Whether `c` continues a word, so that a token right after it is not at a word start.
/// ASCII only: tokens are ASCII, and in text without spaces (Chinese, Japanese) a token glued to
/// a letter must still be found. (Unicode's tables would also cost ~2 KB of wasm.)
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '/' | '=' | '~')
}

/// Length in bytes of the run of `text` made of characters accepted by `accept`.
fn run_len(text: &str, accept: impl Fn(char) -> bool) -> usize {
    text.find(|c: char| !accept(c)).unwrap_or(text.len())
}

/// A value after `key=` / `key: `: up to whitespace or a delimiter.
fn value_len(text: &str) -> usize {
    run_len(text, |c| {
        !c.is_whitespace()
            && !matches!(
                c,
                '"' | '\'' | '&' | ',' | ';' | ')' | ']' | '}' | '<' | '>'
            )
    })
}

/// At a word start: `ghp_…`-style tokens. Returns (bytes consumed, replacement).
fn match_token(rest: &str) -> Option<(usize, String)> {
    TOKEN_PREFIXES.iter().find_map(|&(prefix, min_body)| {
        let body = rest.strip_prefix(prefix)?;
        // Only JWTs have dots inside; elsewhere a dot ends the token (as at a sentence's end).
        let dots = prefix == "eyJ";
        let len = run_len(body, |c| {
            c.is_ascii_alphanumeric() || c == '_' || c == '-' || (dots && c == '.')
        });
        (len >= min_body).then(|| (prefix.len() + len, format!("{prefix}{REDACTED}")))
    })
}

/// At a word start: `Bearer <token>` and friends.
fn match_scheme(rest: &str) -> Option<(usize, String)> {
    let word_len = run_len(rest, |c| c.is_ascii_alphabetic());
    let word = &rest[..word_len];
    if !AUTH_SCHEMES.contains(&word.to_ascii_lowercase().as_str()) {
        return None;
    }
    let after = &rest[word_len..];
    let spaces = run_len(after, |c| c == ' ');
    let token = run_len(&after[spaces..], is_token_char);
    (spaces > 0 && token >= 8).then(|| (word_len + spaces + token, format!("{word} {REDACTED}")))
}

/// At a word start: `password=…`, `GITHUB_TOKEN: …`, `Authorization: Bearer …`.
fn match_assignment(rest: &str) -> Option<(usize, String)> {
    let key_len = run_len(rest, |c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = &rest[..key_len];
    if key_len == 0 || !is_sensitive_key(key) {
        return None;
    }
    let after = &rest[key_len..];
    let sep = run_len(after, |c| c == ' ');
    let after_sep = &after[sep..];
    if !(after_sep.starts_with('=') || after_sep.starts_with(':')) {
        return None;
    }
    let mut pos = key_len + sep + 1;
    pos += run_len(&rest[pos..], |c| c == ' ' || c == '"' || c == '\'');
    // `Authorization: Bearer abc`: hide the credential, not just the scheme word.
    let scheme = run_len(&rest[pos..], |c| c.is_ascii_alphabetic());
    if AUTH_SCHEMES.contains(&rest[pos..pos + scheme].to_ascii_lowercase().as_str())
        && rest[pos + scheme..].starts_with(' ')
    {
        pos += scheme + run_len(&rest[pos + scheme..], |c| c == ' ');
    }
    let value = value_len(&rest[pos..]);
    (value > 0).then(|| (pos + value, format!("{}{REDACTED}", &rest[..pos])))
}

/// `text` with token-shaped substrings, auth headers and `secret=value` pairs hidden.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut prev: Option<char> = None;
    while let Some(c) = text[i..].chars().next() {
        let at_word_start = !prev.is_some_and(is_word_char) && prev != Some('-');
        if at_word_start {
            let rest = &text[i..];
            if let Some((len, replacement)) = match_token(rest)
                .or_else(|| match_scheme(rest))
                .or_else(|| match_assignment(rest))
            {
                out.push_str(&replacement);
                i += len;
                prev = text[..i].chars().next_back();
                continue;
            }
        }
        out.push(c);
        i += c.len_utf8();
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sensitive_keys() {
        for key in [
            "token",
            "GITHUB_TOKEN",
            "api_key",
            "apiKey",
            "X-Api-Key",
            "ssh_key",
            "Authorization",
            "client_secret",
            "password",
            "PAT",
        ] {
            assert!(is_sensitive_key(key), "{key}");
        }
        for key in ["keyword", "owner", "author", "query", "path", "body"] {
            assert!(!is_sensitive_key(key), "{key}");
        }
    }

    #[test]
    fn nested_keys_are_redacted() {
        let args = json!({
            "owner": "octo",
            "config": {"headers": {"Authorization": "Bearer abcdefghijkl"}, "retries": 3},
            "list": [{"api_key": "k-123456"}, {"name": "fine"}],
            "token": null
        });
        assert_eq!(
            redact_value(&args),
            json!({
                "owner": "octo",
                "config": {"headers": {"Authorization": REDACTED}, "retries": 3},
                "list": [{"api_key": REDACTED}, {"name": "fine"}],
                "token": null
            })
        );
    }

    #[test]
    fn token_shaped_strings_are_redacted_anywhere() {
        let cases = [
            ("use ghp_abcdefghijklmnop1234 now", "use ghp_[REDACTED] now"),
            ("github_pat_11ABCDEFG_xyz987654", "github_pat_[REDACTED]"),
            ("key sk-proj-abcdefghij.", "key sk-[REDACTED]."),
            ("gho_12345678", "gho_[REDACTED]"),
            (
                "Authorization: Bearer eyJhbGciOi.abc.def",
                "Authorization: Bearer [REDACTED]",
            ),
            ("header bearer abcdefgh12345", "header bearer [REDACTED]"),
            (
                "curl -H 'x' https://h?api_key=s3cr3t&x=1",
                "curl -H 'x' https://h?api_key=[REDACTED]&x=1",
            ),
            ("GITHUB_TOKEN=abc123 make", "GITHUB_TOKEN=[REDACTED] make"),
            ("password: hunter2", "password: [REDACTED]"),
            // No spaces in Japanese: a token glued to a letter is still at a (token) word start.
            (
                "トークンはghp_abcdefghijklmnop1234です",
                "トークンはghp_[REDACTED]です",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redact_text(input), want, "{input}");
        }
    }

    #[test]
    fn ordinary_text_survives() {
        for text in [
            "task-list sk-learn ghp_short",
            "a Bearer token is required",
            "the keyword is tokenless",
            "naïve café — 😀",
            "xghp_abcdefghijklmnop",
        ] {
            assert_eq!(redact_text(text), text);
        }
    }

    #[test]
    fn edge_inputs_do_not_panic() {
        for text in [
            "",
            "=",
            ":",
            "token",
            "token=",
            "token:",
            "password: ",
            "Bearer",
            "Bearer ",
            "ghp_",
            "sk-",
            "key:😀😀",
            "é=ü",
            "Authorization: Bearer",
            "Authorization: Bearer é",
            "token=é€😀",
            "a\u{0}b",
            "eyJ.....",
        ] {
            let out = redact_text(text);
            assert!(
                out.len() <= text.len() + REDACTED.len(),
                "{text:?} -> {out:?}"
            );
        }
        assert_eq!(redact_text("token=é€😀 ok"), "token=[REDACTED] ok");
    }

    #[test]
    fn summaries_are_redacted_and_short() {
        let long = "é".repeat(500);
        let summary = summarize_arguments(&json!({"body": long, "token": "ghp_abcdefghijklmnop"}));
        assert_eq!(summary.chars().count(), MAX_SUMMARY_CHARS);
        assert!(summary.ends_with('…'));
        assert!(summary.starts_with(r#"{"body":"éé"#));
        // Secrets are gone before the cut, so whatever survives is clean.
        let summary = summarize_arguments(&json!({"q": "x", "token": "ghp_abcdefghijklmnop"}));
        assert_eq!(summary, r#"{"q":"x","token":"[REDACTED]"}"#);
        assert_eq!(summarize_arguments(&json!({"n": 1})), r#"{"n":1}"#);
    }
}
