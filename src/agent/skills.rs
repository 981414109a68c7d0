//! The agent's skills: the skill tools kept in step with the [`SkillSet`], `activate_skill`
//! answered inline (after the gate), `read_skill_file` confined to the files a skill ships,
//! and a trusted skill's `allowed-tools` turned into grants for the current run only.

use super::Agent;
use crate::ext::{tools, RenderContext, SkillSet, DEFAULT_CATALOG_CHARS};
use crate::policy::Policy;
use crate::registry::names::fnv1a32;
use crate::registry::Registry;
use serde_json::Value;

/// Claude Code's tool names in `allowed-tools`, and agentwire's.
const CLAUDE_NAMES: [(&str, &str); 6] = [
    ("Read", "read_file"),
    ("Grep", "grep"),
    ("Glob", "glob"),
    ("Write", "write_file"),
    ("Edit", "edit_file"),
    ("Bash", "bash"),
];

/// Skills of one conversation and what activating them did.
#[derive(Debug)]
pub(super) struct SkillState {
    pub(super) set: SkillSet,
    pub(super) ctx: RenderContext,
    pub(super) catalog_chars: usize,
    /// Hashes of the activations already in this conversation.
    loaded: Vec<u32>,
}

impl Default for SkillState {
    fn default() -> Self {
        SkillState {
            set: SkillSet::new(),
            ctx: RenderContext::default(),
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
    for (claude, ours) in CLAUDE_NAMES {
        if entry == claude {
            return Some(ours);
        }
    }
    Some(entry)
}

impl SkillState {
    pub(super) fn forget_loaded(&mut self) {
        self.loaded.clear();
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
        if name == tools::READ_SKILL_FILE {
            return match tools::check_skill_file(&self.set, text("skill"), text("path")) {
                Ok(_) => None,
                Err(refusal) => Some((format!("error: {refusal}"), true)),
            };
        }
        let skill_name = text("name");
        let body = match tools::activate(&self.set, skill_name, text("arguments"), &self.ctx) {
            Ok(body) => body,
            Err(refusal) => return Some((format!("error: {refusal}"), true)),
        };
        let skill = self.set.get(skill_name)?;
        for entry in &skill.disallowed_tools {
            let pattern = if entry.starts_with("Bash(") {
                Some("bash")
            } else {
                entry_pattern(entry)
            };
            if let Some(pattern) = pattern {
                let _ = policy.deny_for_run(pattern);
            }
        }
        if skill.scope.is_trusted() {
            for entry in &skill.allowed_tools {
                if let Some(pattern) = entry_pattern(entry) {
                    let _ = policy.allow_for_run(pattern);
                }
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

/// Puts the skill tools for `set` into `registry` (none when no skill is offered).
pub(super) fn refresh_tools(state: &SkillState, registry: &mut Registry) {
    let mut specs = Vec::new();
    if let Some(spec) =
        tools::activate_skill_spec(&state.set.catalog(state.catalog_chars), registry)
    {
        specs.push(spec);
    }
    if let Some(spec) = tools::read_skill_file_spec(&state.set) {
        specs.push(spec);
    }
    registry.set_skill_tools(specs);
}

impl Agent {
    /// The skills and prompt commands of this conversation.
    pub fn skills(&self) -> &SkillSet {
        &self.skills.set
    }

    /// The skills, to add or remove items; takes effect at the next run (never mid-run, so the
    /// tool definitions, hence the cached prompt prefix, change only between runs).
    pub fn skills_mut(&mut self) -> &mut SkillSet {
        &mut self.skills.set
    }

    /// The host's `${VAR}` values for rendering skills.
    pub fn skill_context(&self) -> &RenderContext {
        &self.skills.ctx
    }

    /// Sets the host's `${VAR}` values for rendering skills (`CLAUDE_PROJECT_DIR`, …).
    pub fn set_skill_context(&mut self, ctx: RenderContext) {
        self.skills.ctx = ctx;
    }

    /// Sets the character budget of the skill catalog (default [`DEFAULT_CATALOG_CHARS`]).
    pub fn set_skill_catalog_chars(&mut self, chars: usize) {
        self.skills.catalog_chars = chars;
    }

    /// Rebuilds the skill tools from the set now (the agent also does it when a run starts).
    pub fn refresh_skill_tools(&mut self) {
        refresh_tools(&self.skills, &mut self.registry);
    }
}
