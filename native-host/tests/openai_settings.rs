//! `ModelSettings::from_env`: which model, server and key come out of the environment and flags.

use agentwire_host::model::{
    ModelChoice, ModelOverrides, ModelSettings, Provider, DASHSCOPE_DEFAULT_BASE_URL,
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_ANSWER_DURATION, OPENAI_DEFAULT_BASE_URL,
};
use std::collections::HashMap;
use std::time::Duration;

fn choose(env: &[(&str, &str)], overrides: &ModelOverrides) -> Result<ModelChoice, String> {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ModelSettings::from_env(|name| env.get(name).cloned(), overrides)
}

fn settings(env: &[(&str, &str)], overrides: &ModelOverrides) -> ModelSettings {
    match choose(env, overrides) {
        Ok(ModelChoice::OpenAi(settings)) => settings,
        other => panic!("expected a real model, got {other:?}"),
    }
}

fn notice(env: &[(&str, &str)], overrides: &ModelOverrides) -> String {
    match choose(env, overrides) {
        Ok(ModelChoice::Mock { notice }) => notice,
        other => panic!("expected the mock model, got {other:?}"),
    }
}

fn flags(model: Option<&str>, base_url: Option<&str>) -> ModelOverrides {
    ModelOverrides {
        model: model.map(str::to_owned),
        base_url: base_url.map(str::to_owned),
        ..ModelOverrides::default()
    }
}

#[test]
fn no_key_means_the_mock_model_with_a_notice() {
    let none = ModelOverrides::default();
    let text = notice(&[], &none);
    assert!(
        text.contains("OPENAI_API_KEY") && text.contains("DASHSCOPE_API_KEY"),
        "{text}"
    );
    assert!(text.contains("mock model"), "{text}");
    // Blank variables count as unset.
    notice(
        &[("OPENAI_API_KEY", "  "), ("DASHSCOPE_API_KEY", "")],
        &none,
    );
    let text = notice(&[], &flags(Some("gpt-4o"), Some("http://localhost:1/v1")));
    assert!(
        text.contains("--model gpt-4o, --base-url http://localhost:1/v1 ignored"),
        "{text}"
    );
}

#[test]
fn an_openai_key_with_defaults() {
    let s = settings(&[("OPENAI_API_KEY", " sk-1\n")], &ModelOverrides::default());
    assert_eq!(s.provider, Provider::OpenAi);
    assert_eq!(s.base_url, OPENAI_DEFAULT_BASE_URL);
    assert_eq!(s.model, "gpt-4o-mini");
    assert_eq!(s.api_key.expose(), "sk-1", "pasted whitespace is trimmed");
    assert_eq!(s.api_key.source(), "OPENAI_API_KEY");
    assert_eq!(s.first_byte_timeout, Duration::from_secs(600));
    assert_eq!(s.first_byte_timeout, DEFAULT_FIRST_BYTE_TIMEOUT);
    assert_eq!(s.idle_timeout, Duration::from_secs(180));
    assert_eq!(s.idle_timeout, DEFAULT_IDLE_TIMEOUT);
    assert_eq!(s.max_answer_bytes, 64 * 1024 * 1024);
    assert_eq!(s.max_answer_bytes, DEFAULT_MAX_ANSWER_BYTES);
    assert_eq!(s.max_answer_duration, Duration::from_secs(1800));
    assert_eq!(s.max_answer_duration, DEFAULT_MAX_ANSWER_DURATION);
    assert!(s.stream);
    assert_eq!(s.retry.max_retries, 3);
    assert_eq!(s.endpoint(), "https://api.openai.com/v1/chat/completions");
}

#[test]
fn environment_then_flags_choose_server_and_model() {
    let env = [
        ("OPENAI_API_KEY", "sk-1"),
        ("OPENAI_BASE_URL", "http://localhost:11434/v1/"),
        ("AGENTWIRE_MODEL", "llama3.1"),
    ];
    let s = settings(&env, &ModelOverrides::default());
    assert_eq!(
        s.base_url, "http://localhost:11434/v1",
        "trailing slash dropped"
    );
    assert_eq!(s.model, "llama3.1");
    let s = settings(
        &env,
        &flags(Some("qwen2.5"), Some("http://10.0.0.2:8000/v1")),
    );
    assert_eq!(s.base_url, "http://10.0.0.2:8000/v1");
    assert_eq!(s.model, "qwen2.5");
    assert_eq!(
        s.describe(),
        "qwen2.5 at http://10.0.0.2:8000/v1 (OpenAI-compatible, key from OPENAI_API_KEY)"
    );
}

#[test]
fn a_dashscope_key_gets_dashscope_defaults() {
    let s = settings(
        &[("DASHSCOPE_API_KEY", "sk-ds")],
        &ModelOverrides::default(),
    );
    assert_eq!(s.provider, Provider::DashScope);
    assert_eq!(s.base_url, DASHSCOPE_DEFAULT_BASE_URL);
    assert_eq!(s.model, "qwen-plus");
    assert_eq!(s.api_key.source(), "DASHSCOPE_API_KEY");
    assert_eq!(
        s.endpoint(),
        "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions"
    );
    let intl = "https://dashscope-intl.aliyuncs.com/compatible-mode/v1";
    let s = settings(
        &[("DASHSCOPE_API_KEY", "sk-ds"), ("DASHSCOPE_BASE_URL", intl)],
        &flags(Some("qwen-max"), None),
    );
    assert_eq!((s.base_url.as_str(), s.model.as_str()), (intl, "qwen-max"));
}

#[test]
fn with_both_keys_the_server_decides_which_key_goes() {
    let both = [("OPENAI_API_KEY", "sk-oa"), ("DASHSCOPE_API_KEY", "sk-ds")];
    let s = settings(&both, &ModelOverrides::default());
    assert_eq!(s.api_key.source(), "OPENAI_API_KEY");
    let s = settings(&both, &flags(None, Some(DASHSCOPE_DEFAULT_BASE_URL)));
    assert_eq!(s.api_key.source(), "DASHSCOPE_API_KEY");
    assert_eq!(s.model, "qwen-plus");
    let mut env = both.to_vec();
    env.push(("OPENAI_BASE_URL", DASHSCOPE_DEFAULT_BASE_URL));
    assert_eq!(
        settings(&env, &ModelOverrides::default()).api_key.expose(),
        "sk-ds"
    );
}

#[test]
fn a_dashscope_key_is_not_sent_to_a_foreign_openai_base_url() {
    let env = [
        ("DASHSCOPE_API_KEY", "sk-ds"),
        ("OPENAI_BASE_URL", "https://gateway.example.org/v1"),
    ];
    let s = settings(&env, &ModelOverrides::default());
    assert_eq!(s.base_url, DASHSCOPE_DEFAULT_BASE_URL);
    // An explicit flag is the user's word.
    let s = settings(&env, &flags(None, Some("http://127.0.0.1:9000/v1")));
    assert_eq!(s.base_url, "http://127.0.0.1:9000/v1");
}

#[test]
fn model_mock_picks_the_mock_even_with_a_key() {
    let key = [("OPENAI_API_KEY", "sk-1")];
    assert!(notice(&key, &flags(Some("mock"), None)).contains("as asked"));
    let env = [("OPENAI_API_KEY", "sk-1"), ("AGENTWIRE_MODEL", "mock")];
    notice(&env, &ModelOverrides::default());
}

#[test]
fn timeout_stream_and_retries_from_the_environment_and_overrides() {
    let env = [
        ("OPENAI_API_KEY", "sk-1"),
        ("AGENTWIRE_MODEL_TIMEOUT_MS", "2500"),
        ("AGENTWIRE_MODEL_STREAM", "off"),
        ("AGENTWIRE_MODEL_RETRIES", "0"),
    ];
    let s = settings(&env, &ModelOverrides::default());
    assert_eq!(s.first_byte_timeout, Duration::from_millis(2500));
    assert_eq!(s.idle_timeout, Duration::from_millis(2500));
    assert!(!s.stream);
    assert_eq!(s.retry.max_retries, 0);
    let overrides = ModelOverrides {
        timeout: Some(Duration::from_secs(9)),
        stream: Some(true),
        ..ModelOverrides::default()
    };
    let s = settings(&env, &overrides);
    assert_eq!(
        (s.first_byte_timeout, s.idle_timeout, s.stream),
        (Duration::from_secs(9), Duration::from_secs(9), true)
    );
}

#[test]
fn the_two_timeouts_and_the_answer_bounds_each_have_a_variable() {
    let env = [
        ("OPENAI_API_KEY", "sk-1"),
        ("AGENTWIRE_MODEL_TIMEOUT_MS", "2500"),
        ("AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS", "900000"),
        ("AGENTWIRE_MODEL_MAX_ANSWER_BYTES", "1048576"),
        ("AGENTWIRE_MODEL_MAX_ANSWER_MS", "60000"),
    ];
    let s = settings(&env, &ModelOverrides::default());
    assert_eq!(s.first_byte_timeout, Duration::from_secs(900));
    assert_eq!(
        s.idle_timeout,
        Duration::from_millis(2500),
        "the shared one"
    );
    assert_eq!(s.max_answer_bytes, 1 << 20);
    assert_eq!(s.max_answer_duration, Duration::from_secs(60));
    let env = [
        ("OPENAI_API_KEY", "sk-1"),
        ("AGENTWIRE_MODEL_IDLE_TIMEOUT_MS", "7000"),
    ];
    let s = settings(&env, &ModelOverrides::default());
    assert_eq!(s.first_byte_timeout, DEFAULT_FIRST_BYTE_TIMEOUT);
    assert_eq!(s.idle_timeout, Duration::from_secs(7));
}

/// Environment, flags, and a piece of the error they must produce.
type ErrorCase<'a> = (&'a [(&'a str, &'a str)], ModelOverrides, &'a str);

#[test]
fn unusable_values_are_errors_that_name_their_source() {
    let cases: &[ErrorCase] = &[
        (
            &[
                ("OPENAI_API_KEY", "k"),
                ("AGENTWIRE_MODEL_TIMEOUT_MS", "2s"),
            ],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_TIMEOUT_MS must be a positive number of milliseconds, got \"2s\"",
        ),
        (
            &[("OPENAI_API_KEY", "k"), ("AGENTWIRE_MODEL_TIMEOUT_MS", "0")],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_TIMEOUT_MS",
        ),
        (
            &[
                ("OPENAI_API_KEY", "k"),
                ("AGENTWIRE_MODEL_IDLE_TIMEOUT_MS", "-1"),
            ],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_IDLE_TIMEOUT_MS must be a positive number of milliseconds",
        ),
        (
            &[
                ("OPENAI_API_KEY", "k"),
                ("AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS", "soon"),
            ],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS must be a positive number of milliseconds",
        ),
        (
            &[
                ("OPENAI_API_KEY", "k"),
                ("AGENTWIRE_MODEL_MAX_ANSWER_BYTES", "0"),
            ],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_MAX_ANSWER_BYTES must be a positive number of bytes",
        ),
        (
            &[
                ("OPENAI_API_KEY", "k"),
                ("AGENTWIRE_MODEL_MAX_ANSWER_MS", "1h"),
            ],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_MAX_ANSWER_MS must be a positive number of milliseconds",
        ),
        (
            &[("OPENAI_API_KEY", "k"), ("AGENTWIRE_MODEL_STREAM", "maybe")],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_STREAM must be 1 or 0",
        ),
        (
            &[("OPENAI_API_KEY", "k"), ("AGENTWIRE_MODEL_RETRIES", "99")],
            ModelOverrides::default(),
            "AGENTWIRE_MODEL_RETRIES must be a whole number from 0 to 10",
        ),
        (
            &[
                ("OPENAI_API_KEY", "k"),
                ("OPENAI_BASE_URL", "api.openai.com/v1"),
            ],
            ModelOverrides::default(),
            "OPENAI_BASE_URL is not a valid URL",
        ),
        (
            &[("OPENAI_API_KEY", "k")],
            flags(None, Some("ftp://example.org/v1")),
            "--base-url must be an http:// or https:// URL",
        ),
        (
            &[
                ("DASHSCOPE_API_KEY", "k"),
                ("DASHSCOPE_BASE_URL", "dashscope"),
            ],
            ModelOverrides::default(),
            "DASHSCOPE_BASE_URL is not a valid URL",
        ),
    ];
    for (env, overrides, expected) in cases {
        let error = choose(env, overrides).unwrap_err();
        assert!(
            error.contains(expected),
            "{error:?} should say {expected:?}"
        );
        assert!(!error.contains("\"k\""), "never the key: {error}");
    }
}

#[test]
fn settings_debug_output_hides_the_key() {
    let s = settings(
        &[("OPENAI_API_KEY", "sk-live-abcdef")],
        &ModelOverrides::default(),
    );
    let shown = format!("{s:?} {:?}", ModelChoice::OpenAi(s.clone()));
    assert!(!shown.contains("sk-live-abcdef"), "{shown}");
    assert!(shown.contains("OPENAI_API_KEY"), "{shown}");
}

#[test]
fn into_backend_gives_the_notice_only_for_the_mock() {
    let (_, notice) = choose(&[], &ModelOverrides::default())
        .unwrap()
        .into_backend()
        .unwrap();
    assert!(notice.unwrap().contains("mock model"));
    let (_, notice) = choose(&[("OPENAI_API_KEY", "sk-1")], &ModelOverrides::default())
        .unwrap()
        .into_backend()
        .unwrap();
    assert_eq!(notice, None);
}

#[test]
fn a_base_url_with_a_query_gets_the_path_before_the_query() {
    // Azure OpenAI: the deployment's URL carries `?api-version=…`.
    let azure = "https://r.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21";
    let s = settings(&[("OPENAI_API_KEY", "sk-az")], &flags(None, Some(azure)));
    assert_eq!(
        s.endpoint(),
        "https://r.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21"
    );
    let slash = "http://127.0.0.1:9/v1/?a=b/c";
    let s = settings(&[("OPENAI_API_KEY", "sk-az")], &flags(None, Some(slash)));
    assert_eq!(s.endpoint(), "http://127.0.0.1:9/v1/chat/completions?a=b/c");
    let full = "http://127.0.0.1:9/v1/chat/completions?a=1";
    let s = settings(&[("OPENAI_API_KEY", "sk-az")], &flags(None, Some(full)));
    assert_eq!(s.endpoint(), full);
}

#[test]
fn a_base_url_with_user_info_is_refused_without_showing_it() {
    for (env, overrides) in [
        (
            vec![
                ("OPENAI_API_KEY", "sk-1"),
                ("OPENAI_BASE_URL", "http://bob:hunter2pw@127.0.0.1:9/v1"),
            ],
            ModelOverrides::default(),
        ),
        (
            vec![
                ("ANTHROPIC_API_KEY", "sk-ant-1"),
                ("ANTHROPIC_BASE_URL", "https://bob@proxy.example/"),
            ],
            ModelOverrides::default(),
        ),
        (
            vec![("DASHSCOPE_API_KEY", "sk-2")],
            ModelOverrides {
                base_url: Some("https://:hunter2pw@dashscope.aliyuncs.com/v1".into()),
                ..ModelOverrides::default()
            },
        ),
    ] {
        let lookup = |name: &str| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        };
        let error = ModelSettings::from_env(lookup, &overrides).unwrap_err();
        assert!(error.contains("carries user info"), "{error}");
        assert!(!error.contains("hunter2pw"), "{error}");
        assert!(!error.contains("bob"), "{error}");
    }
}

#[test]
fn an_unusable_base_url_is_named_without_its_secrets() {
    let env = [
        ("OPENAI_API_KEY", "sk-1"),
        (
            "OPENAI_BASE_URL",
            "ftp://bob:hunter2pw@h/x?access_token=abc123tok",
        ),
    ];
    let lookup = |name: &str| {
        env.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    };
    let error = ModelSettings::from_env(lookup, &ModelOverrides::default()).unwrap_err();
    assert!(
        error.contains("must be an http:// or https:// URL"),
        "{error}"
    );
    for secret in ["hunter2pw", "abc123tok", "bob"] {
        assert!(!error.contains(secret), "{error}");
    }
}
