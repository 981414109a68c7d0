//! Which names are secret (`GITHUB_TOKEN`, `api_key`, `pass`), and `name=value` pairs in text.

use super::scan::{run, Found};

/// Substrings that make a key sensitive wherever they appear in it (case-insensitive).
const SENSITIVE_SUBSTRINGS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "authorization",
    "credential",
    "cookie",
    "apikey",
    "api_key",
    "api-key",
    "private_key",
    "privatekey",
    "access_key",
    "signature",
];

/// Whole words (split at `_`, `-`, case changes) that make a key sensitive.
const SENSITIVE_WORDS: &[&str] = &[
    "key", "pat", "pwd", "pass", "auth", "oauth", "bearer", "session", "sig", "dsn", "jwt", "otp",
];

/// Longest key looked at in text: longer runs are not names, and the cap keeps scanning linear.
const MAX_KEY_BYTES: usize = 64;

/// Whether the value under this object key should be hidden.
///
/// Case-insensitive substring match for words such as `token`, `secret`, `password`,
/// `authorization` (so `GITHUB_TOKEN`, `api_key`, `X-Api-Key` all match), plus whole words like
/// `key`, `pass` or `pat` (so `ssh_key` and `db_pass` match but `keyword` and `passage` do not).
pub fn is_sensitive_key(key: &str) -> bool {
    let key = key.as_bytes();
    let has = |needle: &str| {
        key.windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    };
    SENSITIVE_SUBSTRINGS.iter().any(|s| has(s)) || words(key).any(is_sensitive_word)
}

fn is_sensitive_word(word: &[u8]) -> bool {
    let ends_with_key = word.len() >= 3 && word[word.len() - 3..].eq_ignore_ascii_case(b"key");
    ends_with_key
        || SENSITIVE_WORDS
            .iter()
            .any(|w| w.as_bytes().eq_ignore_ascii_case(word))
}

/// The words of a key: split at every byte that is not a letter or digit, and before a capital
/// that follows a lowercase letter or digit (`apiKey` → `api`, `Key`).
fn words(key: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < key.len() {
            let c = key[i];
            if !c.is_ascii_alphanumeric() {
                let word = &key[start..i];
                i += 1;
                start = i;
                if !word.is_empty() {
                    return Some(word);
                }
                continue;
            }
            let split = c.is_ascii_uppercase()
                && i > start
                && (key[i - 1].is_ascii_lowercase() || key[i - 1].is_ascii_digit());
            i += 1;
            if split {
                let word = &key[start..i - 1];
                start = i - 1;
                return Some(word);
            }
        }
        let word = &key[start..];
        start = key.len();
        (!word.is_empty()).then_some(word)
    })
}

/// Schemes whose credential follows a space: `Bearer abc`, `Basic dXNl…`, `token abc`, and a
/// DPoP-bound token's `DPoP abc` (RFC 9449 §7.1).
pub(super) const AUTH_SCHEMES: &[&[u8]] = &[b"bearer", b"basic", b"token", b"dpop"];

/// Whether `word` is an auth scheme, in any case.
pub(super) fn is_scheme(word: &[u8]) -> bool {
    AUTH_SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(word))
}

/// A value after `key=`: up to whitespace or a delimiter. Bytes of non-ASCII characters are
/// all accepted, so a value never ends inside a character.
pub(super) fn value_len(b: &[u8]) -> usize {
    run(b, |c| {
        !c.is_ascii_whitespace()
            && !matches!(
                c,
                b'"' | b'\'' | b'&' | b',' | b';' | b')' | b']' | b'}' | b'<' | b'>' | b'`'
            )
    })
}

fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// At `at`: `password=…`, `GITHUB_TOKEN: …`, `"token":"…"`, `Authorization: Bearer …`, and
/// long flags `--token VALUE`.
pub(super) fn assignment(b: &[u8], at: usize) -> Option<Found> {
    let key_len = run(&b[at..b.len().min(at + MAX_KEY_BYTES + 1)], is_key_byte);
    if key_len == 0 || key_len > MAX_KEY_BYTES {
        return None;
    }
    let key = std::str::from_utf8(&b[at..at + key_len]).ok()?;
    if !is_sensitive_key(key) {
        return None;
    }
    let mut pos = at + key_len;
    // `"token": "…"` in JSON text: the key's closing quote.
    if matches!(b.get(pos), Some(b'"' | b'\'')) {
        pos += 1;
    }
    pos += run(&b[pos..], |c| c == b' ');
    if matches!(b.get(pos), Some(b'=' | b':')) {
        pos += 1;
    } else if !(at >= 2 && &b[at - 2..at] == b"--" && pos > at + key_len) {
        // Only a long flag (`--token VALUE`) may separate its value by spaces alone.
        return None;
    } else if b.get(pos) == Some(&b'-') {
        return None;
    }
    pos += run(&b[pos..], |c| c == b' ' || c == b'"' || c == b'\'');
    // `Authorization: Bearer abc`: hide the credential, not just the scheme word.
    let scheme = run(&b[pos..], |c| c.is_ascii_alphabetic());
    if is_scheme(&b[pos..pos + scheme]) && b.get(pos + scheme) == Some(&b' ') {
        pos += scheme + run(&b[pos + scheme..], |c| c == b' ');
    }
    let value = value_len(&b[pos..]);
    (value > 0).then_some(Found {
        start: pos,
        end: pos + value,
    })
}
