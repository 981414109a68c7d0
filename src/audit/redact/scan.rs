//! The scanners: each looks at one position of the text (as bytes) and says which bytes after
//! it are a secret. [`find`] runs them all in one left-to-right pass; every scanner reads a
//! bounded distance unless it finds a secret, which is then skipped, so the pass is linear.

use super::keys::{assignment, is_scheme, value_len};
use super::providers::PROVIDERS;

/// The bytes `start..end` of the text are a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Found {
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Length of the leading run of `b` whose bytes satisfy `accept`.
pub(super) fn run(b: &[u8], accept: impl Fn(u8) -> bool) -> usize {
    b.iter().position(|&c| !accept(c)).unwrap_or(b.len())
}

/// Length of an AWS secret access key: exactly 40 base64 characters.
const AWS_SECRET_LEN: usize = 40;

/// Longest URL scheme looked at (`git+ssh` and the like are short).
const MAX_SCHEME: usize = 16;

/// Every secret in `b`, in order, not overlapping.
pub(super) fn find(b: &[u8]) -> Vec<Found> {
    let mut found = Vec::new();
    let mut i = 0;
    // Within one line of a `mysql`/`mariadb` or `sshpass` command, `-p` carries a password.
    let mut mysql_line = false;
    let mut sshpass_line = false;
    while i < b.len() {
        if b[i] == b'\n' {
            mysql_line = false;
            sshpass_line = false;
        }
        // Every scanner starts at a letter, a digit or a `-`, after anything but a letter or
        // digit.
        let starts = b[i].is_ascii_alphanumeric() || b[i] == b'-';
        if starts && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let rest = &b[i..];
            mysql_line |= starts_with_any(rest, &[b"mysql", b"mariadb"]);
            sshpass_line |= rest.starts_with(b"sshpass");
            let hit = private_key(b, i)
                .or_else(|| url_userinfo(b, i))
                .or_else(|| provider_token(b, i))
                .or_else(|| aws_secret(b, i))
                .or_else(|| auth_scheme(b, i))
                .or_else(|| user_flag(b, i))
                .or_else(|| password_flag(b, i, mysql_line, sshpass_line))
                .or_else(|| assignment(b, i));
            if let Some(hit) = hit.filter(|h| h.end > h.start) {
                if is_marker(b, hit) {
                    // Already redacted (text that went through here before): keep it as it is,
                    // so a second pass never turns `[REDACTED]` into `[REDACTED]]`.
                    i = hit.start + MARKER.len();
                    continue;
                }
                found.push(hit);
                i = hit.end;
                continue;
            }
        }
        i += 1;
    }
    found
}

/// The marker, as bytes.
const MARKER: &[u8] = super::REDACTED.as_bytes();

/// `hit` covers nothing but (a part of) a marker left by an earlier pass.
fn is_marker(b: &[u8], hit: Found) -> bool {
    b[hit.start..].starts_with(MARKER) && hit.end <= hit.start + MARKER.len()
}

fn starts_with_any(b: &[u8], prefixes: &[&[u8]]) -> bool {
    prefixes.iter().any(|p| b.starts_with(p))
}

/// `-----BEGIN … PRIVATE KEY-----` up to its `-----END` (or the end of the text): the body.
fn private_key(b: &[u8], at: usize) -> Option<Found> {
    let rest = b[at..].strip_prefix(b"-----BEGIN ")?;
    let label_len = run(&rest[..rest.len().min(64)], |c| c != b'-' && c != b'\n');
    let label = &rest[..label_len];
    if !(label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK")) {
        return None;
    }
    let start = at + b"-----BEGIN ".len() + label_len + run(&rest[label_len..], |c| c == b'-');
    let end = find_bytes(&b[start..], b"-----END").map_or(b.len(), |n| start + n);
    Some(Found { start, end })
}

fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `scheme://user:password@host`: the password (or a long user with no password, such as a
/// token used as the user name).
fn url_userinfo(b: &[u8], at: usize) -> Option<Found> {
    let scheme = run(&b[at..b.len().min(at + MAX_SCHEME)], |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')
    });
    let authority_at = at + scheme + 3;
    if scheme == 0 || b.get(at + scheme..authority_at) != Some(b"://") {
        return None;
    }
    let authority = run(&b[authority_at..], |c| {
        !c.is_ascii_whitespace()
            && !matches!(c, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'`')
    });
    let userinfo = b[authority_at..authority_at + authority]
        .iter()
        .rposition(|&c| c == b'@')?;
    let user = &b[authority_at..authority_at + userinfo];
    match user.iter().position(|&c| c == b':') {
        Some(colon) => Some(Found {
            start: authority_at + colon + 1,
            end: authority_at + userinfo,
        }),
        None if user.len() >= 16 => Some(Found {
            start: authority_at,
            end: authority_at + userinfo,
        }),
        None => None,
    }
}

/// A provider token from the table: the body after its prefix.
fn provider_token(b: &[u8], at: usize) -> Option<Found> {
    let rest = &b[at..];
    PROVIDERS
        .iter()
        .filter(|p| p.prefix[0] == b[at])
        .find_map(|p| {
            let body = rest.strip_prefix(p.prefix)?;
            let len = run(body, |c| p.body.accepts(c));
            let start = at + p.prefix.len();
            (len >= p.min_body).then_some(Found {
                start,
                end: start + len,
            })
        })
}

fn is_base64_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'/' || c == b'+'
}

/// A bare AWS secret access key: exactly 40 characters of `A-Z a-z 0-9 / +`, standing alone,
/// with upper and lower case letters and a digit, not starting with `/` (a path) and with at
/// most three `/` or `+`. A git SHA (40 lowercase hex digits) has no capital and survives.
fn aws_secret(b: &[u8], at: usize) -> Option<Found> {
    if at > 0 && is_base64_byte(b[at - 1]) {
        return None;
    }
    let window = &b[at..b.len().min(at + AWS_SECRET_LEN + 1)];
    let len = run(window, is_base64_byte);
    let after = b.get(at + len).copied();
    // `Name40CharsLong.method()` or `file.ext` is code or a path, not a key.
    let code_after =
        after == Some(b'.') && b.get(at + len + 1).is_some_and(u8::is_ascii_alphabetic);
    if len != AWS_SECRET_LEN
        || after.is_some_and(|c| matches!(c, b'=' | b'_' | b'-' | b'(' | b'\\'))
        || code_after
    {
        return None;
    }
    let key = &window[..len];
    let has = |f: fn(&u8) -> bool| key.iter().any(f);
    let symbols = key.iter().filter(|&&c| c == b'/' || c == b'+').count();
    let secret = has(u8::is_ascii_uppercase)
        && has(u8::is_ascii_lowercase)
        && has(u8::is_ascii_digit)
        && key[0] != b'/'
        && symbols <= 3;
    secret.then_some(Found {
        start: at,
        end: at + len,
    })
}

/// `Bearer <token>` and friends, at least 8 characters of token.
fn auth_scheme(b: &[u8], at: usize) -> Option<Found> {
    let word = run(&b[at..b.len().min(at + 7)], |c| c.is_ascii_alphabetic());
    if !is_scheme(&b[at..at + word]) {
        return None;
    }
    let spaces = run(&b[at + word..], |c| c == b' ');
    let start = at + word + spaces;
    let token = run(&b[start..], |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+' | b'/' | b'=' | b'~')
    });
    (spaces > 0 && token >= 8).then_some(Found {
        start,
        end: start + token,
    })
}

/// Whether `at` starts a command-line flag (after whitespace, a quote or the text's start).
fn flag_start(b: &[u8], at: usize) -> bool {
    b[at] == b'-' && (at == 0 || matches!(b[at - 1], b' ' | b'\t' | b'\n' | b'"' | b'\''))
}

/// `curl -u user:pass`, `-uuser:pass`, `--user user:pass`, `--user=user:pass`: the password.
fn user_flag(b: &[u8], at: usize) -> Option<Found> {
    if !flag_start(b, at) {
        return None;
    }
    let rest = &b[at..];
    let after = if rest.starts_with(b"--user") {
        let n = at + 6;
        match b.get(n) {
            Some(b'=') => n + 1,
            Some(b' ') => n + run(&b[n..], |c| c == b' '),
            _ => return None,
        }
    } else if rest.starts_with(b"-u") {
        at + 2 + run(&b[at + 2..], |c| c == b' ')
    } else {
        return None;
    };
    let value = value_len(&b[after..]);
    let colon = b[after..after + value].iter().position(|&c| c == b':')?;
    Some(Found {
        start: after + colon + 1,
        end: after + value,
    })
}

/// `mysql -pSECRET` (no space: with one, mysql prompts) and `sshpass -p SECRET`, on the line
/// of such a command.
fn password_flag(b: &[u8], at: usize, mysql: bool, sshpass: bool) -> Option<Found> {
    if !(mysql || sshpass) || !flag_start(b, at) || !b[at..].starts_with(b"-p") {
        return None;
    }
    let mut start = at + 2;
    if sshpass {
        start += run(&b[start..], |c| c == b' ');
    }
    let value = value_len(&b[start..]);
    (value > 0).then_some(Found {
        start,
        end: start + value,
    })
}
