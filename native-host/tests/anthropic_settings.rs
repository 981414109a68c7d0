//! `ModelSettings::from_env` with `ANTHROPIC_API_KEY`: precedence between keys, where the key may
//! go, the endpoint, and the start-up line that names the keys not used.

use agentwire_host::model::{
    ModelChoice, ModelOverrides, ModelSettings, Provider, ANTHROPIC_DEFAULT_BASE_URL,
    ANTHROPIC_DEFAULT_MODEL,
};
use std::collections::HashMap;

fn settings(env: &[(&str, &str)], model: Option<&str>, base_url: Option<&str>) -> ModelSettings {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let overrides = ModelOverrides {
        model: model.map(str::to_owned),
        base_url: base_url.map(str::to_owned),
        ..ModelOverrides::default()
    };
    match ModelSettings::from_env(|name| env.get(name).cloned(), &overrides) {
        Ok(ModelChoice::OpenAi(settings)) => settings,
        other => panic!("expected a real model, got {other:?}"),
    }
}

const ANT: (&str, &str) = ("ANTHROPIC_API_KEY", "sk-ant-api03-secret");
const OAI: (&str, &str) = ("OPENAI_API_KEY", "sk-openai-secret");

#[test]
fn the_anthropic_key_alone_picks_claude_at_anthropic() {
    let s = settings(&[ANT], None, None);
    assert_eq!(s.provider, Provider::Anthropic);
    assert_eq!(s.model, ANTHROPIC_DEFAULT_MODEL);
    assert_eq!(s.base_url, ANTHROPIC_DEFAULT_BASE_URL);
    assert_eq!(s.endpoint(), "https://api.anthropic.com/v1/messages");
    assert_eq!(s.api_key.source(), "ANTHROPIC_API_KEY");
    assert_eq!(
        s.describe(),
        "claude-sonnet-4-5 at https://api.anthropic.com/ (Anthropic Messages, key from \
         ANTHROPIC_API_KEY)"
    );
}

#[test]
fn openai_wins_unless_the_model_is_claude_and_the_loser_is_named() {
    let s = settings(&[ANT, OAI], None, None);
    assert_eq!(s.provider, Provider::OpenAi);
    assert!(
        s.describe()
            .ends_with("key from OPENAI_API_KEY); ANTHROPIC_API_KEY also set, not used"),
        "{}",
        s.describe()
    );
    let s = settings(&[ANT, OAI], Some("claude-opus-4-1"), None);
    assert_eq!(s.provider, Provider::Anthropic);
    assert_eq!(s.model, "claude-opus-4-1");
    assert!(s.describe().ends_with("OPENAI_API_KEY also set, not used"));
    // The variable works as well as the flag.
    let s = settings(&[ANT, OAI, ("AGENTWIRE_MODEL", "Claude-Haiku")], None, None);
    assert_eq!(s.provider, Provider::Anthropic);
}

#[test]
fn the_anthropic_key_goes_only_where_the_user_sent_it() {
    // OPENAI_BASE_URL belongs to the OpenAI key; the Anthropic key never follows it.
    let s = settings(
        &[ANT, ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")],
        None,
        None,
    );
    assert_eq!(s.base_url, ANTHROPIC_DEFAULT_BASE_URL);
    let s = settings(
        &[ANT, ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/")],
        None,
        None,
    );
    assert_eq!(s.endpoint(), "http://127.0.0.1:9/v1/messages");
    let s = settings(&[ANT], None, Some("http://127.0.0.1:9/v1"));
    assert_eq!(s.endpoint(), "http://127.0.0.1:9/v1/messages");
    let shown = format!("{s:?} {}", s.describe());
    assert!(!shown.contains("sk-ant-api03-secret"), "{shown}");
}

#[test]
fn an_anthropic_base_url_with_a_query_keeps_it_last() {
    let s = settings(&[ANT], None, Some("http://127.0.0.1:9/v1?beta=1"));
    assert_eq!(s.endpoint(), "http://127.0.0.1:9/v1/messages?beta=1");
    let s = settings(&[ANT], None, Some("http://127.0.0.1:9/proxy/?beta=1"));
    assert_eq!(s.endpoint(), "http://127.0.0.1:9/proxy/v1/messages?beta=1");
}
