//! The two model-facing skill tools: `activate_skill` (progressive disclosure) and
//! `read_skill_file` (only the files a skill ships).
//!
//! Named `activate_skill` rather than Claude Code's `Skill`: every agentwire tool is snake_case,
//! and the description maps Claude's tool names so skills written for Claude still read right.

#[cfg(feature = "skill-set")]
use super::set::render;
use super::Catalog;
#[cfg(feature = "skill-set")]
use super::{RenderContext, SkillSet};
use crate::registry::{Registry, Risk, ToolSpec};
use serde_json::json;

/// Name of the tool that loads a skill's body.
pub const ACTIVATE_SKILL: &str = "activate_skill";
/// Name of the tool that reads a file a skill ships.
pub const READ_SKILL_FILE: &str = "read_skill_file";
/// Longest activation result, in characters.
pub const MAX_SKILL_CHARS: usize = 100_000;

/// Claude Code's tool names and agentwire's, for skills written for Claude.
const CLAUDE_TOOLS: [(&str, &str); 8] = [
    ("Bash", "bash"),
    ("Edit", "edit_file"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("Read", "read_file"),
    ("Skill", ACTIVATE_SKILL),
    // Skills that dispatch subagents name Claude Code's older `Task`.
    ("Task", crate::subagent::AGENT_TOOL),
    ("Write", "write_file"),
];

/// The `activate_skill` definition for `catalog` (risk `read`); `None` when no skill is
/// model-invocable. The Claude-name mapping lists only tools `registry` has (and the skill
/// tool), so the text depends on nothing but the skills and the tools.
pub fn activate_skill_spec(catalog: &Catalog, registry: &Registry) -> Option<ToolSpec> {
    if catalog.names.is_empty() {
        return None;
    }
    let mut mapping = Vec::new();
    for (claude, ours) in CLAUDE_TOOLS {
        if ours == ACTIVATE_SKILL || registry.get(ours).is_some() {
            mapping.push(format!("{claude}={ours}"));
        }
    }
    let description = format!(
        "Load a skill: task-specific instructions (and bundled files) installed by the user.\n\
         When the user names a skill, or the task clearly matches a skill below, call this first \
         and follow what it returns. Skills written for Claude Code name its tools: {}.\n\
         Available skills:\n{}",
        mapping.join(", "),
        catalog.text.trim_end()
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "enum": catalog.names, "description": "The skill to load."},
            "arguments": {"type": "string", "description": "Arguments for the skill, if it takes any."}
        },
        "required": ["name"]
    });
    Some(
        ToolSpec::builtin(ACTIVATE_SKILL, description, schema, Risk::Read)
            .with_max_output_chars(MAX_SKILL_CHARS),
    )
}

/// Qualified names of reachable skills that ship files, sorted.
#[cfg(feature = "skill-set")]
pub(crate) fn skills_with_files(set: &SkillSet) -> Vec<String> {
    let mut names = Vec::new();
    for skill in set.items() {
        if !skill.files.is_empty()
            && set
                .get(&skill.qualified)
                .is_some_and(|s| std::ptr::eq(s, skill))
        {
            names.push(skill.qualified.clone());
        }
    }
    names
}

/// The `read_skill_file` definition (risk `read`); `None` when no skill ships files.
#[cfg(feature = "skill-set")]
pub fn read_skill_file_spec(set: &SkillSet) -> Option<ToolSpec> {
    read_skill_file_spec_for(skills_with_files(set))
}

/// The `read_skill_file` definition for the skills `names` (qualified, sorted), which ship
/// files; `None` when there are none.
pub fn read_skill_file_spec_for(names: Vec<String>) -> Option<ToolSpec> {
    if names.is_empty() {
        return None;
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "skill": {"type": "string", "enum": names},
            "path": {"type": "string", "description": "A file the skill lists, relative to its folder."}
        },
        "required": ["skill", "path"]
    });
    Some(ToolSpec::builtin(
        READ_SKILL_FILE,
        "Read a file bundled with a skill (only the files activate_skill listed).",
        schema,
        Risk::Read,
    ))
}

/// The result of a model's `activate_skill {name, arguments}`: the rendered body, shell
/// snippets *not* run (each replaced by a note), the bundled files listed; or the refusal.
#[cfg(feature = "skill-set")]
pub fn activate(
    set: &SkillSet,
    name: &str,
    arguments: &str,
    ctx: &RenderContext,
) -> Result<String, String> {
    let skill = match set.get(name) {
        Some(skill) if skill.model_invocable => skill,
        Some(_) => {
            return Err(format!(
                "skill {name} is user-only (disable-model-invocation); the user can type /{name}"
            ))
        }
        None => {
            return Err(format!(
                "no skill named {name:?}; the tool description lists them"
            ))
        }
    };
    let rendered = render(skill, arguments, ctx);
    let mut notes = Vec::new();
    for snippet in &rendered.snippets {
        notes.push(format!(
            "[not run: `{}`; run it with the bash tool if you need its output]",
            snippet.command
        ));
    }
    let mut text = rendered.fill(&notes);
    if !skill.files.is_empty() {
        text.push_str(&format!(
            "\nBundled files (read with {READ_SKILL_FILE}): {}",
            skill.files.join(", ")
        ));
    }
    Ok(text)
}

/// Checks a `read_skill_file {skill, path}` call: `Ok(dir)` (the skill's directory, for the
/// host to read `dir/path`) when `path` is one of the files the skill ships, else the refusal.
#[cfg(feature = "skill-set")]
pub fn check_skill_file<'a>(
    set: &'a SkillSet,
    skill: &str,
    path: &str,
) -> Result<Option<&'a str>, String> {
    let Some(found) = set.get(skill).filter(|s| !s.files.is_empty()) else {
        return Err(format!("no skill {skill:?} with bundled files"));
    };
    let escapes = path.starts_with('/')
        || path.contains('\\')
        || path.contains(':')
        || path.split('/').any(|part| part == "..");
    if escapes || !found.files.iter().any(|f| f == path) {
        let list: Vec<&str> = found.files.iter().take(20).map(String::as_str).collect();
        let more = if found.files.len() > 20 { ", …" } else { "" };
        return Err(format!(
            "{path:?} is not a file of skill {skill}; its files: {}{more}",
            list.join(", ")
        ));
    }
    Ok(found.dir.as_deref())
}
