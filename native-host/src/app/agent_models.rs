//! The models agent definitions name (`model: haiku`), resolved against the session's provider:
//! the runtime's resolver, and the check that reports an unknown name, with its file, at start
//! and in `agents list`.

use crate::extensions::agents::AgentFiles;
use crate::model::named::{model_resolver, resolve_name};
use crate::model::{ModelChoice, ModelOverrides, ModelSettings, Provider};
use agentwire::driver::ModelResolver;
use agentwire::subagent::AgentDefinition;
use std::rc::Rc;

/// The provider the session's model runs on (`None`: the mock model), from the environment
/// and the `--model` / `--base-url` flags.
pub fn session_provider(model: Option<&str>, base_url: Option<&str>) -> Option<Provider> {
    let overrides = overrides(model, base_url);
    match ModelSettings::from_env(|name| std::env::var(name).ok(), &overrides) {
        Ok(ModelChoice::OpenAi(settings)) => Some(settings.provider),
        _ => None,
    }
}

fn overrides(model: Option<&str>, base_url: Option<&str>) -> ModelOverrides {
    ModelOverrides {
        model: model.map(str::to_owned),
        base_url: base_url.map(str::to_owned),
        ..ModelOverrides::default()
    }
}

/// The resolver for the session's children: aliases from `provider`'s table, full ids with
/// the environment's keys, the session's `--base-url` kept; an unknown name is an error naming
/// the definition's file (from `paths`, agent name → file).
pub fn resolver(
    base_url: Option<&str>,
    provider: Option<Provider>,
    paths: Vec<(String, String)>,
) -> ModelResolver {
    let by_name = model_resolver(
        Rc::new(|name: &str| std::env::var(name).ok()),
        overrides(None, base_url),
        provider,
    );
    Rc::new(move |def: &AgentDefinition| {
        let name = def.model.as_deref().unwrap_or("inherit");
        by_name(name).map_err(|why| format!("{}: {why}", file_of(&paths, def)))
    })
}

/// Where `def` was read from: its file, else its source (`host`, `built-in`).
fn file_of<'a>(paths: &'a [(String, String)], def: &'a AgentDefinition) -> &'a str {
    paths
        .iter()
        .find(|(name, _)| *name == def.name)
        .map_or(def.source.as_str(), |(_, path)| path.as_str())
}

/// Adds an error, naming the agent and its file, for every definition whose `model` is
/// unknown (such an agent stays listed; dispatching it is refused with the same words).
pub fn check_models(files: &mut AgentFiles, provider: Option<Provider>) {
    for def in files.set.sorted() {
        let Some(name) = def.model.as_deref() else {
            continue;
        };
        if let Err(why) = resolve_name(name, provider) {
            let error = format!("agent {}: {}: {why}", def.name, file_of(&files.paths, def));
            files.errors.push(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire::subagent::AgentSet;

    #[test]
    fn an_unknown_model_is_an_error_naming_the_agent_file() {
        let mut set = AgentSet::with_builtin();
        for (name, model) in [("good", "haiku"), ("typo", "sonet"), ("full", "gpt-4o")] {
            set.insert(AgentDefinition {
                name: name.into(),
                description: "d".into(),
                model: Some(model.into()),
                source: "user".into(),
                ..AgentDefinition::default()
            });
        }
        let paths = ["good", "typo", "full"]
            .map(|n| (n.to_owned(), format!("/home/me/.claude/agents/{n}.md")))
            .to_vec();
        let mut files = AgentFiles {
            set,
            paths: paths.clone(),
            ..AgentFiles::default()
        };
        check_models(&mut files, Some(Provider::Anthropic));
        assert_eq!(
            files.errors,
            [
                "agent typo: /home/me/.claude/agents/typo.md: unknown model \"sonet\": use \
              inherit, opus, sonnet, haiku, or a full model id"
            ]
        );
        // Dispatching it is refused in the same words; a known alias resolves.
        let resolve = resolver(None, None, paths);
        let typo = files.set.get("typo").unwrap();
        let error = resolve(typo).err().unwrap();
        assert!(error.starts_with("/home/me/.claude/agents/typo.md: unknown model"));
        assert!(resolve(files.set.get("good").unwrap()).unwrap().is_none());
    }
}
