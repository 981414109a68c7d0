//! The agent's skills: the skill tools kept in step with the skills, `activate_skill` answered
//! inline (after the gate), `read_skill_file` confined to the files a skill ships, and a
//! trusted skill's `allowed-tools` turned into grants for the current run only.
//!
//! The skills themselves come from a [`SkillHost`]: the agent's own [`crate::ext::LocalSkills`]
//! (feature `skill-set`), or a host's provider ([`Agent::set_skill_host`]: the npm runtime
//! module, which carries no skill set). Either only decides text; grants, the gate and the
//! activation bookkeeping stay here.

use super::Agent;
use crate::ext::{tools, Activation, Expansion, SkillHost, DEFAULT_CATALOG_CHARS};
#[cfg(feature = "skill-set")]
use crate::ext::{LocalSkills, RenderContext, SkillSet};
use crate::policy::{agentwire_tool_name, Policy, RuleKind};
use crate::registry::names::fnv1a32;
use crate::registry::Registry;
use serde_json::Value;

/// Skills of one conversation and what activating them did.
pub(super) struct SkillState {
    /// The agent's own skills (feature `skill-set`).
    #[cfg(feature = "skill-set")]
    pub(super) local: LocalSkills,
    /// A host's provider, which replaces the agent's own skills while set.
    host: Option<Box<dyn SkillHost>>,
    pub(super) catalog_chars: usize,
    /// Hashes of the activations already in this conversation.
    loaded: Vec<u32>,
}

impl std::fmt::Debug for SkillState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillState")
            .field("host", &self.host.is_some())
            .field("loaded", &self.loaded.len())
            .finish_non_exhaustive()
    }
}

impl Default for SkillState {
    fn default() -> Self {
        SkillState {
            #[cfg(feature = "skill-set")]
            local: LocalSkills::default(),
            host: None,
            catalog_chars: DEFAULT_CATALOG_CHARS,
            loaded: Vec::new(),
        }
    }
}

/// An `allowed-tools` / `disallowed-tools` entry as an agentwire pattern; `None` for argument
/// specifiers such as `Bash(git add:*)`, which agentwire patterns cannot express (a grant is
/// never widened to the whole tool).
fn entry_pattern(entry: &str) -> Option<&str> {
    if entry.contains('(') {
        return None;
    }
    Some(agentwire_tool_name(entry))
}

/// A `disallowed-tools` entry as the pattern it denies: an argument specifier on `bash`
/// (`Bash(rm:*)`) denies the whole tool (a denial is never narrowed); other specifiers
/// cannot be expressed and deny nothing.
fn denied_pattern(entry: &str) -> Option<&str> {
    if entry.starts_with("Bash(") {
        return Some("bash");
    }
    entry_pattern(entry)
}

impl SkillState {
    pub(super) fn forget_loaded(&mut self) {
        self.loaded.clear();
    }

    /// Who answers: the host's provider when set, else the agent's own skills (none in a
    /// build without them).
    fn source(&self) -> Option<&dyn SkillHost> {
        if let Some(host) = &self.host {
            return Some(host.as_ref());
        }
        #[cfg(feature = "skill-set")]
        return Some(&self.local);
        #[cfg(not(feature = "skill-set"))]
        None
    }

    /// Answers a gated call of a skill tool: `Some((content, is_error))` when the core answers
    /// it, `None` when the host must run it (a confined `read_skill_file`).
    pub(super) fn answer(
        &mut self,
        policy: &mut Policy,
        name: &str,
        arguments: &Value,
    ) -> Option<(String, bool)> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str).unwrap_or("");
        let refused = |refusal: String| Some((format!("error: {refusal}"), true));
        let Some(source) = self.source() else {
            return refused("no skills are installed".to_owned());
        };
        if name == tools::READ_SKILL_FILE {
            return match source.check_file(text("skill"), text("path")) {
                Ok(()) => None,
                Err(refusal) => refused(refusal),
            };
        }
        let skill_name = text("name");
        #[cfg(feature = "mcp-skills")]
        if source.served_remotely(skill_name) {
            // The host reads and verifies it from its server; it grants nothing.
            return None;
        }
        let Activation {
            body,
            allowed,
            disallowed,
        } = match source.activate(skill_name, text("arguments")) {
            Ok(activation) => activation,
            Err(refusal) => return refused(refusal),
        };
        for entry in &disallowed {
            if let Some(pattern) = denied_pattern(entry) {
                let _ = policy.deny_for_run(pattern);
            }
        }
        // The source gives `allowed` only for a trusted skill; a grant never beats deny or ask
        // (the policy's run grants rank below both).
        for entry in &allowed {
            if let Some(pattern) = entry_pattern(entry) {
                let _ = policy.allow_for_run(pattern);
            }
        }
        let hash = fnv1a32(body.as_bytes());
        if self.loaded.contains(&hash) {
            return Some((
                format!("Skill {skill_name} is already loaded above; follow it."),
                false,
            ));
        }
        self.loaded.push(hash);
        Some((body, false))
    }
}

/// Puts the skill tools for the current skills into `registry` (none when no skill is
/// offered).
pub(super) fn refresh_tools(state: &SkillState, registry: &mut Registry) {
    let mut specs = Vec::new();
    if let Some(source) = state.source() {
        let found = source.tools(state.catalog_chars);
        if let Some(spec) = tools::activate_skill_spec(&found.catalog, registry) {
            specs.push(spec);
        }
        if let Some(spec) = tools::read_skill_file_spec_for(found.file_skills) {
            specs.push(spec);
        }
    }
    registry.set_skill_tools(specs);
}

impl Agent {
    /// The skills and prompt commands of this conversation.
    #[cfg(feature = "skill-set")]
    pub fn skills(&self) -> &SkillSet {
        &self.skills.local.set
    }

    /// The skills, to add or remove items; takes effect at the next run (never mid-run, so the
    /// tool definitions, hence the cached prompt prefix, change only between runs).
    #[cfg(feature = "skill-set")]
    pub fn skills_mut(&mut self) -> &mut SkillSet {
        &mut self.skills.local.set
    }

    /// The host's `${VAR}` values for rendering skills.
    #[cfg(feature = "skill-set")]
    pub fn skill_context(&self) -> &RenderContext {
        &self.skills.local.ctx
    }

    /// Sets the host's `${VAR}` values for rendering skills (`CLAUDE_PROJECT_DIR`, …).
    #[cfg(feature = "skill-set")]
    pub fn set_skill_context(&mut self, ctx: RenderContext) {
        self.skills.local.ctx = ctx;
    }

    /// Hands the skills to a host's provider (`None`: back to the agent's own). While set it
    /// answers everything skills need; the gate, grants and audit stay the agent's.
    pub fn set_skill_host(&mut self, host: Option<Box<dyn SkillHost>>) {
        self.skills.host = host;
    }

    /// Expands a user's `/name args` through the current skills: `None` when it names no
    /// command or skill (the text then goes as written).
    pub fn expand_skill_command(&self, input: &str) -> Option<Result<Expansion, String>> {
        self.skills.source()?.expand(input)
    }

    /// Sets the character budget of the skill catalog (default [`DEFAULT_CATALOG_CHARS`]).
    pub fn set_skill_catalog_chars(&mut self, chars: usize) {
        self.skills.catalog_chars = chars;
    }

    /// Skill `name` as a subagent's definition preloads it (`skills:`): its text, with what it
    /// disallows added to `child_policy` as deny rules (lasting for the child's whole run). Its
    /// grants (`allowed-tools`) are dropped: a preloaded skill never loosens a child's tools.
    /// `Err` says why the skill is not there.
    pub fn preload_skill(&self, name: &str, child_policy: &mut Policy) -> Result<String, String> {
        let source = self.skills.source().ok_or("no skills are installed")?;
        let Activation {
            body, disallowed, ..
        } = source.activate(name, "")?;
        for entry in &disallowed {
            if let Some(pattern) = denied_pattern(entry) {
                let _ = child_policy.add_rule(RuleKind::Deny, pattern);
            }
        }
        Ok(body)
    }

    /// Rebuilds the skill tools from the set now (the agent also does it when a run starts).
    pub fn refresh_skill_tools(&mut self) {
        refresh_tools(&self.skills, &mut self.registry);
    }
}
