//! Redaction: keys, the original cases, edge inputs and summaries.

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
fn sensitive_words_are_found_anywhere_in_a_key() {
    // A word followed by a separator, inside a camelCase name, or a word ending in `key`: none
    // of these holds a sensitive substring, so only the word split finds them.
    for key in [
        "db_pass_hash",
        "pat_value",
        "dbPassHash",
        "patValue",
        "sshkey",
        "hostkey",
        "__jwt__",
        "s3PassHash",
    ] {
        assert!(is_sensitive_key(key), "{key}");
    }
    for key in ["passage_hint", "patent", "keyboard_layout", "compass"] {
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
            "Authorization: DPoP eyJhbGciOi.abc.def",
            "Authorization: DPoP [REDACTED]",
        ),
        (
            "sent DPoP abcdefgh12345 again",
            "sent DPoP [REDACTED] again",
        ),
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
        "a DPoP proof is required",
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

#[test]
fn a_key_of_64_bytes_is_the_longest_read_as_a_name() {
    // Without separators there is no later start inside the run: its length alone decides.
    let longest = format!("token{}", "a".repeat(59));
    assert_eq!(
        redact_text(&format!("{longest}=hunter2 x")),
        format!("{longest}=[REDACTED] x")
    );
    let too_long = format!("{}token=hunter2 x", "a".repeat(60));
    assert_eq!(redact_text(&too_long), too_long);
}

#[test]
fn an_empty_match_does_not_skip_the_text_it_spans() {
    // A private-key header with nothing after it matches nothing; what its label holds is
    // still scanned.
    let text = "-----BEGIN password=hunter2 PRIVATE KEY-----";
    let out = redact_text(text);
    assert!(!out.contains("hunter2"), "{out}");
    assert_eq!(out, "-----BEGIN password=[REDACTED] PRIVATE KEY-----");
}

#[test]
fn a_long_flag_takes_its_value_after_a_space_only() {
    assert_eq!(redact_text("run --token abc1"), "run --token [REDACTED]");
    // `--token.json` is a name, not a flag and a value.
    assert_eq!(redact_text("cat --token.json"), "cat --token.json");
}

#[test]
fn only_an_auth_scheme_followed_by_a_space_is_skipped() {
    assert_eq!(
        redact_text("Authorization: Bearer abc1"),
        "Authorization: Bearer [REDACTED]"
    );
    // An ordinary first word is the value itself.
    assert_eq!(redact_text("password: abc def"), "password: [REDACTED] def");
    assert_eq!(redact_text("token=Bearer"), "token=[REDACTED]");
}

#[test]
fn redacting_twice_changes_nothing_more() {
    // Text that went through the redactor once (an audit record read back, an error quoted in
    // another) must come out unchanged: a second pass that grew `[REDACTED]]` would garble it.
    let samples = [
        "password=hunter2",
        "password: hunter2 and more",
        "\"token\": \"abc1\"",
        "run --token abc1",
        "Authorization: Bearer abc1",
        "Authorization: Basic dXNlcjpwYXNz",
        "curl -u user:pass https://x",
        "https://user:pass@example.com/path",
        "mysql -phunter2 db",
        "sshpass -p hunter2 ssh host",
        "key ghp_0123456789abcdefghijklmnopqrstuvwxyzAB here",
        "ghp%5F0123456789abcdefghijklmnopqrstuvwxyzAB",
        "password%3Dhunter2",
        "-----BEGIN PRIVATE KEY-----\nMIIEabc\n-----END PRIVATE KEY-----",
        "aws AKIAABCDEFGHIJKLMNOP wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "token=[x] secret=(y) api_key={z}",
    ];
    for sample in samples {
        let once = redact_text(sample);
        assert_eq!(redact_text(&once), once, "input {sample:?}");
    }
}

#[test]
fn secrets_after_a_marker_are_still_found() {
    // A marker left by an earlier pass is skipped, never the text after it.
    let out = redact_text(
        "password=[REDACTED] token=abc1 key ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
    );
    assert_eq!(
        out,
        "password=[REDACTED] token=[REDACTED] key ghp_[REDACTED]"
    );
    // Something that only looks like the start of a marker is a value like any other.
    assert_eq!(redact_text("password=[REDACTEDabc"), "password=[REDACTED]");
    // A secret that runs on past a marker (a URL's password ends at its `@`) is all hidden.
    let out = redact_text("see https://user:[REDACTED]hunter2@example.com/x");
    assert!(!out.contains("hunter2"), "{out}");
}
