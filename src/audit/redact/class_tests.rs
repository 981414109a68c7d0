//! One table per secret class, the provider table checked entry by entry, and a table of
//! ordinary text that must come through untouched.

use super::providers::{Charset, PROVIDERS};
use super::*;
use serde_json::json;

fn check(cases: &[(&str, &str)]) {
    for &(input, want) in cases {
        assert_eq!(redact_text(input), want, "input: {input}");
    }
}

#[test]
fn url_userinfo() {
    check(&[
        (
            "git clone https://alice:s3cretPass@github.com/x.git",
            "git clone https://alice:[REDACTED]@github.com/x.git",
        ),
        (
            "postgres://app:hunter2@db:5432/prod?sslmode=require",
            "postgres://app:[REDACTED]@db:5432/prod?sslmode=require",
        ),
        ("redis://:p4ss@cache", "redis://:[REDACTED]@cache"),
        (
            "https://0123456789abcdef0123@example.com/x",
            "https://[REDACTED]@example.com/x",
        ),
        (
            "https://h/cb?access_token=abc123&x=1",
            "https://h/cb?access_token=[REDACTED]&x=1",
        ),
    ]);
}

#[test]
fn pem_private_keys() {
    let pem = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nq83j\n-----END RSA PRIVATE KEY-----\nok";
    check(&[
        (
            pem,
            "key:\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nok",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXk\\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQ cut here",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----[REDACTED]",
        ),
        (
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        ),
    ]);
}

#[test]
fn aws_keys() {
    check(&[
        (
            "AWS_SECRET_ACCESS_KEY wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AWS_SECRET_ACCESS_KEY [REDACTED]",
        ),
        (
            "\"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
            "\"[REDACTED]\"",
        ),
        ("id ASIAIOSFODNN7EXAMPLE ok", "id ASIA[REDACTED] ok"),
        ("id AKIAIOSFODNN7EXAMPLE ok", "id AKIA[REDACTED] ok"),
    ]);
}

#[test]
fn provider_samples() {
    check(&[
        (
            "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "stripe sk_live_[REDACTED]",
        ),
        ("AIzaSyD-abcdefghijklmnopqrstuvwxyz12345", "AIza[REDACTED]"),
        (
            "//registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "//registry.npmjs.org/:_authToken npm_[REDACTED]",
        ),
        ("sk-ant-api03-abcdefghijklmnop_QRS-tuv", "sk-[REDACTED]"),
        (
            "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "https://hooks.slack.com/services/[REDACTED]",
        ),
        ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_[REDACTED]"),
    ]);
}

#[test]
fn tokens_after_a_dash_or_percent_encoded() {
    check(&[
        ("x-ghp_abcdefghijklmnop1234", "x-ghp_[REDACTED]"),
        ("--token=ghp_abcdefghijklmnop1234", "--token=[REDACTED]"),
        ("--api-key sk-abcdefghijkl", "--api-key [REDACTED]"),
        ("--token -v", "--token -v"),
        (
            "/cb?t=ghp%5Fabcdefghijklmnop1234&x=1",
            "/cb?t=ghp%5F[REDACTED]&x=1",
        ),
        ("q=password%3Dhunter2%26a", "q=password%3D[REDACTED]%26a"),
        (
            "https%3A%2F%2Fbob%3As3cret%40host",
            "https%3A%2F%2Fbob%3A[REDACTED]%40host",
        ),
    ]);
}

#[test]
fn keys_named_pass_and_passcode() {
    check(&[
        ("pass=hunter2 next", "pass=[REDACTED] next"),
        ("DB_PASS: hunter2", "DB_PASS: [REDACTED]"),
        ("passcode=1234", "passcode=[REDACTED]"),
        (
            r#"{"token":"abc","n":1}"#,
            r#"{"token":"[REDACTED]","n":1}"#,
        ),
    ]);
    let args = json!({"pass": "a", "passcode": "b", "userPass": "c", "passage": "d"});
    assert_eq!(
        redact_value(&args),
        json!({"pass": REDACTED, "passcode": REDACTED, "userPass": REDACTED, "passage": "d"})
    );
}

#[test]
fn command_line_credentials() {
    check(&[
        ("mysql -uroot -phunter2 db", "mysql -uroot -p[REDACTED] db"),
        ("mysqldump -p'pa ss' db", "mysqldump -p'pa ss' db"),
        ("mysql -p db", "mysql -p db"),
        ("sshpass -p hunter2 ssh h", "sshpass -p [REDACTED] ssh h"),
        (
            "curl -u alice:hunter2 https://x",
            "curl -u alice:[REDACTED] https://x",
        ),
        ("curl -ualice:hunter2 x", "curl -ualice:[REDACTED] x"),
        (
            "curl --user alice:hunter2 x",
            "curl --user alice:[REDACTED] x",
        ),
        (
            "curl --user=alice:hunter2 x",
            "curl --user=alice:[REDACTED] x",
        ),
        ("curl -u alice x", "curl -u alice x"),
        ("ls -p\nmysql x\nrm -pfoo", "ls -p\nmysql x\nrm -pfoo"),
        // `-p` inside a word is no flag: a host name is not a password.
        (
            "mysql -h db-prod -e 'select 1'",
            "mysql -h db-prod -e 'select 1'",
        ),
        ("sshpass x-phunter2", "sshpass x-phunter2"),
    ]);
}

#[test]
fn a_token_used_as_an_object_key() {
    let value = json!({"ghp_abcdefghijklmnop1234": {"note": "x"}, "plain": 1});
    assert_eq!(
        redact_value(&value),
        json!({"ghp_[REDACTED]": {"note": "x"}, "plain": 1})
    );
}

/// A body of `len` characters the class accepts.
fn body(charset: Charset, len: usize) -> String {
    "aB3dE5fC7bD9eA2cF4"
        .bytes()
        .filter(|&c| charset.accepts(c))
        .cycle()
        .take(len)
        .map(char::from)
        .collect()
}

#[test]
fn every_provider_class_is_found_and_its_minimum_length_holds() {
    for p in PROVIDERS {
        let prefix = std::str::from_utf8(p.prefix).unwrap();
        let token = format!("{prefix}{}", body(p.body, p.min_body));
        assert_eq!(
            redact_text(&format!("use {token} now")),
            format!("use {prefix}{REDACTED} now"),
            "{prefix}"
        );
        // One character short is not a token (`ops_eyJ…` is then still a JWT).
        if prefix != "ops_eyJ" {
            let short = format!("use {prefix}{} now", body(p.body, p.min_body - 1));
            assert_eq!(redact_text(&short), short, "{prefix}");
        }
        // Glued to a word it is not a token start (those two hold a second token start).
        if !matches!(prefix, "ops_eyJ" | "xoxe.xoxp-") {
            // (One longer, so no 40-character run looks like a bare AWS secret.)
            let glued = format!("x{prefix}{}", body(p.body, p.min_body + 1));
            assert_eq!(redact_text(&glued), glued, "{prefix}");
        }
    }
}

#[test]
fn ordinary_text_is_not_a_secret() {
    for text in [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
        "3f786850e387550fdab836ed7e6dc881de23001b",
        "id 550e8400-e29b-41d4-a716-446655440000",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "/home/alice/projects/agentwire/src/main.rs",
        "native-host/tests/fixtures/normal.mjs and src/audit/redact/providers.rs",
        "C:\\Users\\Alice\\Documents\\Report2024\\summary.docx",
        "ThisIsAVeryLongJavaClassNameForTesting12.run()",
        "https://github.com/vercel/ai/issues?page=2&per_page=30#top",
        "git@github.com:owner/repo.git ssh://git@github.com/x mailto:bob@example.com",
        "the passage of time; a keyword search; risk-assessment; Skip the AWS setup",
        "sort -u file.txt; mkdir -p a/b; tar -xzf x.tgz",
        "mysql docs say use -p to prompt",
        "2026-11-30T19:55:22Z took 1234 ms, 42 tokens",
        "npm_config_cache hf_hub_download sk-learn task-list AKIA",
        "@modelcontextprotocol/server-github v1.2.3",
        "Bearer tokens expire; the key is in the vault",
    ] {
        assert_eq!(redact_text(text), text);
    }
}

#[test]
fn overlapping_findings_make_one_marker() {
    // Found both raw (`token=…` up to `&`) and decoded (the whole `%26`-joined value).
    let text = "token=ab%26cd rest";
    let out = redact_text(text);
    assert_eq!(out, "token=[REDACTED] rest");
}

#[test]
fn long_hostile_inputs_stay_linear() {
    // Each of these used to be a trap for a rescan per position; a quadratic pass over 100 KB
    // would take minutes, so finishing is the check.
    for unit in [
        "a-",
        "-u ",
        "x://",
        "%41",
        "--token ",
        "mysql -p",
        "-----BEGIN ",
    ] {
        let text = unit.repeat(100_000 / unit.len());
        let out = redact_text(&text);
        assert!(out.len() <= text.len() * 2, "{unit}");
    }
}
