//! The two model-facing skill tools: `activate_skill` (progressive disclosure) and
//! `read_skill_file` (only the files a skill ships).
//!
//! Named `activate_skill` rather than Claude Code's `Skill`: every agentwire tool is snake_case,
//! and the description maps Claude's tool names so skills written for Claude still read right.

use super::{Catalog, RenderContext, SkillSet};
use crate::registry::{Registry, ToolSpec};

/// Name of the tool that loads a skill's body.
pub const ACTIVATE_SKILL: &str = "activate_skill";
/// Name of the tool that reads a file a skill ships.
pub const READ_SKILL_FILE: &str = "read_skill_file";
/// Longest activation result, in characters.
pub const MAX_SKILL_CHARS: usize = 100_000;

/// The `activate_skill` definition for `catalog` (risk `read`); `None` when no skill is
/// model-invocable. `registry` lists the tools named in the Claude-name mapping line.
pub fn activate_skill_spec(catalog: &Catalog, registry: &Registry) -> Option<ToolSpec> {
    let _ = (catalog, registry);
    todo!()
}

/// The `read_skill_file` definition (risk `read`); `None` when no skill ships files.
pub fn read_skill_file_spec(set: &SkillSet) -> Option<ToolSpec> {
    let _ = set;
    todo!()
}

/// The result of a model's `activate_skill {name, arguments}`: the rendered body (snippets
/// not run), or an error text for the model.
pub fn activate(set: &SkillSet, name: &str, arguments: &str, ctx: &RenderContext) -> Result<String, String> {
    let _ = (set, name, arguments, ctx);
    todo!()
}

/// Checks a `read_skill_file {skill, path}` call: `Ok(dir)` (the skill's directory, for the
/// host to read `dir/path`) when `path` is one of the files the skill ships, else the refusal.
pub fn check_skill_file<'a>(set: &'a SkillSet, skill: &str, path: &str) -> Result<Option<&'a str>, String> {
    let _ = (set, skill, path);
    todo!()
}
