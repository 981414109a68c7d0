//! [`LocalSkills`]: a [`SkillSet`] and its [`RenderContext`] as a [`SkillHost`]. The agent's
//! own skills natively; in the npm package the `ext` module runs this same code for the
//! runtime module, which carries no set.

use super::host::{Activation, Expansion, SkillHost, SkillTools};
use super::{tools, RenderContext, SkillSet};

/// The skills of one conversation and the host's `${VAR}` values for rendering them.
#[derive(Clone, Debug, Default)]
pub struct LocalSkills {
    /// Every skill and prompt command.
    pub set: SkillSet,
    /// The host's `${VAR}` values.
    pub ctx: RenderContext,
}

impl SkillHost for LocalSkills {
    fn tools(&self, catalog_chars: usize) -> SkillTools {
        SkillTools {
            catalog: self.set.catalog(catalog_chars),
            file_skills: tools::skills_with_files(&self.set),
        }
    }

    fn activate(&self, name: &str, arguments: &str) -> Result<Activation, String> {
        let body = tools::activate(&self.set, name, arguments, &self.ctx)?;
        // `activate` refused every name `get` does not reach.
        let Some(skill) = self.set.get(name) else {
            return Err(format!("no skill named {name:?}"));
        };
        let allowed = if skill.scope.is_trusted() {
            skill.allowed_tools.clone()
        } else {
            Vec::new()
        };
        Ok(Activation {
            body,
            allowed,
            disallowed: skill.disallowed_tools.clone(),
        })
    }

    fn check_file(&self, skill: &str, path: &str) -> Result<(), String> {
        tools::check_skill_file(&self.set, skill, path).map(|_| ())
    }

    #[cfg(feature = "server-skills")]
    fn served_remotely(&self, name: &str) -> bool {
        let served = |s: &super::Skill| matches!(s.scope, super::Scope::Server { .. });
        self.set.get(name).is_some_and(served)
    }

    fn expand(&self, input: &str) -> Option<Result<Expansion, String>> {
        let invocation = self.set.resolve(input)?;
        if let Some(refusal) = invocation.refusal() {
            return Some(Err(refusal));
        }
        let typed = input.trim_start()[1..]
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let rendered = self.set.render(&invocation, &self.ctx);
        let skill = invocation.skill;
        Some(Ok(Expansion {
            typed,
            qualified: skill.qualified.clone(),
            source: skill.scope.label(),
            parts: rendered.parts(),
            snippets: rendered.snippets.into_iter().map(|s| s.command).collect(),
        }))
    }
}
