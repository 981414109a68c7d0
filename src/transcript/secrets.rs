//! What a stored transcript line may not hold: secrets.
//!
//! Every home that keeps transcripts (the CLI's session files, the npm package's stores) writes
//! each entry through [`stored_line`]: secret shapes are redacted ([`Entry::redacted`], the audit
//! log's redactor), then every exact secret value of the process (the model key, the values of
//! environment variables with sensitive names) is hidden wherever it appears, also as it appears
//! JSON-escaped inside the line.

use super::Entry;
use crate::audit::{is_sensitive_key, REDACTED};

/// Shortest secret value hidden by exact match (shorter ones would hide ordinary words).
pub const MIN_SECRET_CHARS: usize = 8;

/// The exact values to hide: the values of `vars` (name, value) whose name is sensitive
/// (`*_TOKEN`, `*_KEY`, `*SECRET*`, `PASSWORD`...), plus `extra` (the model key), each at least
/// [`MIN_SECRET_CHARS`] long, longest first (so a secret containing another is hidden whole).
pub fn secret_values(
    vars: impl IntoIterator<Item = (String, String)>,
    extra: &[String],
) -> Vec<String> {
    let long_enough = |value: &String| value.chars().count() >= MIN_SECRET_CHARS;
    let mut secrets: Vec<String> = vars
        .into_iter()
        .filter(|(name, value)| is_sensitive_key(name) && long_enough(value))
        .map(|(_, value)| value)
        .chain(extra.iter().filter(|v| long_enough(v)).cloned())
        .collect();
    secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    secrets.dedup();
    secrets
}

/// `text` with every exact secret value replaced by [`REDACTED`] (also as it appears
/// JSON-escaped).
pub fn hide_secrets(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), REDACTED);
        }
        // Inside a JSON line the secret may appear escaped (quotes, backslashes).
        let escaped = serde_json::to_string(secret).unwrap_or_default();
        let escaped = escaped.trim_matches('"');
        if escaped != secret {
            out = out.replace(escaped, REDACTED);
        }
    }
    out
}

/// The JSONL line (newline included) a store keeps for `entry`: secret shapes redacted and
/// every value of `secrets` hidden.
pub fn stored_line(entry: &Entry, secrets: &[String]) -> String {
    hide_secrets(&entry.redacted().to_line(), secrets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;
    use serde_json::json;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn only_long_values_of_sensitive_names_are_secrets_longest_first() {
        let secrets = secret_values(
            vars(&[
                ("GITHUB_TOKEN", "tok-12345678"),
                ("HOME", "/home/someone-long"),
                ("API_KEY", "short"),
                ("MY_SECRET", "tok-12345678-and-more"),
                ("PASSWORD", "exactly8"),
                ("OTHER_TOKEN", "tok-12345678"),
            ]),
            &["model-key-0123".into(), "tiny".into(), "1234567".into()],
        );
        assert_eq!(
            secrets,
            vec![
                "tok-12345678-and-more".to_string(),
                "model-key-0123".into(),
                "tok-12345678".into(),
                "exactly8".into(),
            ]
        );
        // Characters, not bytes: seven characters in fourteen bytes are not enough.
        assert!(secret_values(vars(&[("A_TOKEN", "ééééééé")]), &[]).is_empty());
        assert_eq!(
            secret_values(vars(&[("A_TOKEN", "éééééééé")]), &[]),
            vec!["éééééééé".to_string()]
        );
    }

    #[test]
    fn exact_values_are_hidden_plain_and_json_escaped_a_longer_one_whole() {
        let secrets = secret_values(vars(&[]), &["abc-secret".into(), "abc-secret-2".into()]);
        assert_eq!(
            hide_secrets("x abc-secret-2 y abc-secret z", &secrets),
            "x [REDACTED] y [REDACTED] z"
        );
        let quoted = vec!["pa\"ss\\word-1".to_string()];
        assert_eq!(
            hide_secrets(r#"{"content":"use pa\"ss\\word-1 now"}"#, &quoted),
            r#"{"content":"use [REDACTED] now"}"#
        );
        assert_eq!(
            hide_secrets("use pa\"ss\\word-1", &quoted),
            "use [REDACTED]"
        );
        assert_eq!(hide_secrets("nothing here", &secrets), "nothing here");
    }

    #[test]
    fn a_stored_line_has_neither_secret_shapes_nor_secret_values() {
        let entry = Entry::Assistant {
            content: Some("key is model-key-0123456".into()),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "bash".into(),
                arguments: json!({"command": "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'"}),
            }],
            usage: None,
        };
        let line = stored_line(&entry, &["model-key-0123456".into()]);
        assert!(
            line.ends_with('\n') && line.matches('\n').count() == 1,
            "{line}"
        );
        assert!(!line.contains("model-key-0123456"), "{line}");
        assert!(
            !line.contains("abcdefghijklmnopqrstuvwxyz0123456789"),
            "{line}"
        );
        assert!(line.contains("key is [REDACTED]"), "{line}");
        let plain = Entry::User {
            content: "hello".into(),
        };
        assert_eq!(stored_line(&plain, &[]), plain.to_line());
    }
}
