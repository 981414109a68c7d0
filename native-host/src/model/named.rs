//! A subagent definition's `model` (`sonnet`, `haiku`, `opus`, a full model id, or `inherit`)
//! turned into a model of the configured provider.
//!
//! Claude Code's aliases name a tier, not a model: each provider's table says which of its
//! models stands for that tier. A full model id is used as it is, with the provider the
//! environment gives that id (a `claude-…` id goes to Anthropic when `ANTHROPIC_API_KEY` is
//! set, as `--model` does). A name that is neither (a typo such as `sonet`) is an error.

use super::settings::{ModelChoice, ModelOverrides, ModelSettings, Provider, MOCK_MODEL_NAME};
use agentwire::driver::ModelBackend;
use agentwire::model::MockModel;
use std::cell::RefCell;
use std::rc::Rc;

/// What a definition's `model` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NamedModel {
    /// The parent's model (`inherit`, or an alias on the mock model).
    Inherit,
    /// This model id of the provider.
    Id(String),
}

/// Claude Code's model aliases, strongest first.
pub const MODEL_ALIASES: [&str; 3] = ["opus", "sonnet", "haiku"];

/// The model standing for each alias (`opus`, `sonnet`, `haiku`) on `provider`.
pub fn alias_table(provider: Provider) -> [&'static str; 3] {
    match provider {
        Provider::Anthropic => ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"],
        Provider::DashScope => ["qwen-max", "qwen-plus", "qwen-turbo"],
        Provider::OpenAi => ["gpt-4.1", "gpt-4o", "gpt-4o-mini"],
    }
}

/// Reads `name` for `provider` (`None`: the mock model). `Err` says why the name is unknown.
pub fn resolve_name(name: &str, provider: Option<Provider>) -> Result<NamedModel, String> {
    let name = name.trim();
    if name.is_empty() || name == "inherit" {
        return Ok(NamedModel::Inherit);
    }
    if name == MOCK_MODEL_NAME {
        return Ok(NamedModel::Id(name.to_owned()));
    }
    let lower = name.to_ascii_lowercase();
    if let Some(tier) = MODEL_ALIASES.iter().position(|a| *a == lower) {
        return Ok(match provider {
            Some(provider) => NamedModel::Id(alias_table(provider)[tier].to_owned()),
            // The mock model answers for every tier.
            None => NamedModel::Inherit,
        });
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._:/@".contains(c);
    // A model id has a version or a family separator (`gpt-4o`, `qwen-plus`,
    // `claude-haiku-4-5`, `org/model`); a lone word is a typo of an alias or a made-up name.
    let shaped = name
        .chars()
        .any(|c| c.is_ascii_digit() || "-.:/".contains(c));
    if name.len() <= 128 && name.chars().all(allowed) && shaped {
        return Ok(NamedModel::Id(name.to_owned()));
    }
    Err(format!(
        "unknown model {name:?}: use inherit, {}, or a full model id",
        MODEL_ALIASES.join(", ")
    ))
}

/// The model a resolver of [`model_resolver`] gives `name`: `Ok(None)` for the parent's
/// model; each model id gets one backend, made on first use with `overrides` (the session's
/// base URL) and the environment's keys (read through `lookup`).
pub type NameResolver = Rc<dyn Fn(&str) -> Result<Option<Rc<dyn ModelBackend>>, String>>;

/// Reads an environment variable (`|name| std::env::var(name).ok()`).
pub type EnvLookup = Rc<dyn Fn(&str) -> Option<String>>;

/// Resolves model names for `provider` (`None`: the mock model); see [`NameResolver`].
pub fn model_resolver(
    lookup: EnvLookup,
    overrides: ModelOverrides,
    provider: Option<Provider>,
) -> NameResolver {
    let made: RefCell<Vec<(String, Rc<dyn ModelBackend>)>> = RefCell::new(Vec::new());
    Rc::new(move |name: &str| {
        let id = match resolve_name(name, provider)? {
            NamedModel::Inherit => return Ok(None),
            NamedModel::Id(id) => id,
        };
        if let Some((_, backend)) = made.borrow().iter().find(|(m, _)| *m == id) {
            return Ok(Some(Rc::clone(backend)));
        }
        let overrides = ModelOverrides {
            model: Some(id.clone()),
            ..overrides.clone()
        };
        let backend: Rc<dyn ModelBackend> =
            match ModelSettings::from_env(|v| lookup(v), &overrides)? {
                ModelChoice::OpenAi(settings) => Rc::new(
                    super::OpenAiBackend::new(settings).map_err(|e| format!("model {id}: {e}"))?,
                ),
                // `mock`, or no key at all: the parent runs on the mock model too.
                ModelChoice::Mock { .. } => Rc::new(MockModel::new()),
            };
        made.borrow_mut().push((id, Rc::clone(&backend)));
        Ok(Some(backend))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_name_the_providers_model_for_their_tier() {
        let id = |name, provider| resolve_name(name, Some(provider)).unwrap();
        assert_eq!(
            id("haiku", Provider::Anthropic),
            NamedModel::Id("claude-haiku-4-5".into())
        );
        assert_eq!(
            id("Opus", Provider::Anthropic),
            NamedModel::Id("claude-opus-4-5".into())
        );
        assert_eq!(
            id("sonnet", Provider::DashScope),
            NamedModel::Id("qwen-plus".into())
        );
        assert_eq!(
            id("haiku", Provider::OpenAi),
            NamedModel::Id("gpt-4o-mini".into())
        );
        assert_eq!(id("inherit", Provider::OpenAi), NamedModel::Inherit);
        assert_eq!(resolve_name("sonnet", None), Ok(NamedModel::Inherit));
    }

    #[test]
    fn a_full_id_is_kept_and_a_lone_unknown_word_is_an_error() {
        for id in [
            "gpt-4o",
            "claude-haiku-4-5",
            "qwen-plus",
            "org/model",
            "llama3",
        ] {
            assert_eq!(
                resolve_name(id, Some(Provider::OpenAi)),
                Ok(NamedModel::Id(id.into()))
            );
        }
        for bad in ["sonet", "fast", "gpt 4", "a\nb", &"x-".repeat(70)] {
            let error = resolve_name(bad, Some(Provider::OpenAi)).unwrap_err();
            assert!(error.starts_with("unknown model"), "{bad:?}: {error}");
        }
        // Unknown on the mock model too: a definition that fails offline fails online.
        assert!(resolve_name("sonet", None).is_err());
    }

    #[test]
    fn the_resolver_makes_one_backend_per_id_on_the_environments_provider() {
        let env: EnvLookup = Rc::new(|name: &str| match name {
            "ANTHROPIC_API_KEY" => Some("sk-ant-test-key-0000".into()),
            "OPENAI_API_KEY" => Some("sk-test-key-00000000".into()),
            _ => None,
        });
        let resolver = model_resolver(env, ModelOverrides::default(), Some(Provider::OpenAi));
        assert!(resolver("inherit").unwrap().is_none());
        let haiku = resolver("haiku").unwrap().unwrap();
        assert_eq!(haiku.model_name().as_deref(), Some("gpt-4o-mini"));
        let again = resolver("haiku").unwrap().unwrap();
        assert!(Rc::ptr_eq(&haiku, &again), "one backend per model id");
        // A Claude id goes to Anthropic, whose key is set, as `--model` would.
        let claude = resolver("claude-haiku-4-5").unwrap().unwrap();
        assert_eq!(claude.model_name().as_deref(), Some("claude-haiku-4-5"));
        let error = resolver("sonet").err().unwrap();
        assert!(error.contains("unknown model \"sonet\""), "{error}");
    }
}
