//! Secret redaction for audit records, errors and anything else shown or logged: sensitive
//! keys, provider tokens, private keys, credentials in URLs and on command lines.
//!
//! Redaction errs on the side of hiding: `max_tokens` loses its number because it contains
//! "token", which is a small price next to leaking a `GITHUB_TOKEN` into a log file. The core
//! has no regex engine: [`scan`] holds hand-written scanners over bytes, [`providers`] the table
//! of token prefixes. What is found is replaced by [`REDACTED`]; a token's prefix (`ghp_`) and a
//! URL's user name stay, so a reader still sees what kind of secret was there.
//!
//! Classes covered: key/value pairs under a sensitive name (`password=`, `"token": "…"`,
//! `--api-key VALUE`, `Authorization: Bearer …`); `Bearer`/`Basic`/`token` credentials; the
//! provider tokens of [`providers::PROVIDERS`] (GitHub, GitLab, OpenAI/Anthropic, Stripe,
//! Slack, Google, AWS ids, npm, PyPI, Hugging Face, JWTs and more); bare 40-character AWS secret
//! keys; PEM private key bodies; URL user info (`https://user:pass@host`); `curl -u user:pass`;
//! `mysql -pSECRET` and `sshpass -p SECRET`. Each is also found percent-encoded
//! (`ghp%5Fabc…`). Not covered: secrets with no recognisable shape or name (a bare password in
//! prose), and tokens split across separate strings.

mod keys;
mod providers;
mod scan;

pub use keys::is_sensitive_key;

use crate::json::to_text;
use crate::registry::char_prefix;
use scan::Found;
use serde_json::Value;

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Longest argument summary, in characters (including the trailing `…` when cut).
pub const MAX_SUMMARY_CHARS: usize = 200;

/// `value` with sensitive keys' values replaced and secrets hidden in every string,
/// recursively; object keys are scanned too (a token can be a key).
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
                    (redact_text(k), v)
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

/// `text` with every secret the scanners find replaced by [`REDACTED`].
pub fn redact_text(text: &str) -> String {
    let mut found = scan::find(text.as_bytes());
    if let Some((decoded, origin)) = percent_decoded(text.as_bytes()) {
        // Secrets written percent-encoded (`ghp%5F…`, `password%3Dhunter2`), mapped back.
        found.extend(scan::find(&decoded).into_iter().map(|f| Found {
            start: origin[f.start],
            end: origin[f.end],
        }));
        found.sort_by_key(|f| (f.start, f.end));
    }
    splice(text, &found)
}

/// `text` with the found ranges (sorted by start, maybe overlapping) replaced.
fn splice(text: &str, found: &[Found]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for f in found {
        let start = floor_char_boundary(text, f.start);
        let end = floor_char_boundary(text, f.end);
        if end <= copied.max(start) {
            continue;
        }
        // A range overlapping the previous one extends its marker.
        if start >= copied {
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
        }
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// The largest character boundary at or before `at` (ranges end on ASCII bytes; this is a
/// guard, not a rule).
fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `text` with `%XX` escapes decoded, and for every decoded byte (and the end) the offset in
/// `text` it came from; `None` when there is no escape.
fn percent_decoded(text: &[u8]) -> Option<(Vec<u8>, Vec<usize>)> {
    let hex = |c: u8| (c as char).to_digit(16);
    let escape_at = |i: usize| -> Option<u8> {
        if text.get(i) != Some(&b'%') {
            return None;
        }
        let high = hex(*text.get(i + 1)?)?;
        let low = hex(*text.get(i + 2)?)?;
        Some((high * 16 + low) as u8)
    };
    (0..text.len()).find(|&i| escape_at(i).is_some())?;
    let mut decoded = Vec::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    let mut i = 0;
    while i < text.len() {
        origin.push(i);
        match escape_at(i) {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(text[i]);
                i += 1;
            }
        }
    }
    origin.push(text.len());
    Some((decoded, origin))
}

#[cfg(test)]
mod class_tests;
#[cfg(test)]
mod tests;
