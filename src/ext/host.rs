//! The skills of an agent as a provider answers them: [`SkillHost`]. Natively the agent's own
//! [`super::LocalSkills`] (the [`super::SkillSet`]) is the provider; the npm runtime module
//! carries no set (feature `skill-set` off) and asks the host, whose JS layer answers from the
//! on-demand `ext` module running the same [`super::LocalSkills`] code. So the tool definitions
//! and answers are the same bytes in both homes for the same skills.
//!
//! What a provider decides is only text: the catalog, an activation's body, whether a path is
//! one of a skill's files, a command's expansion. The gate stays in the agent: grants from
//! [`Activation::allowed`] are applied to the current run only, never beating deny or ask;
//! snippets of an [`Expansion`] run as gated `bash` calls.
//!
//! The JSON forms (`*_from_json`) are what crosses from the JS host; a malformed answer is
//! refused with a message, never a panic.

use crate::json::{strings, to_text};
use serde_json::Value;

/// The model-facing catalog: text for the tool description and the enum of names.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Catalog {
    /// `- <qualified>: <description>` lines, sorted, within the budget.
    pub text: String,
    /// Model-invocable qualified names, sorted.
    pub names: Vec<String>,
    /// Whether descriptions were shortened to fit the budget.
    pub shortened: bool,
}

/// What the skill tools are built from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SkillTools {
    /// The `activate_skill` catalog.
    pub catalog: Catalog,
    /// Qualified names of reachable skills that ship files, sorted (`read_skill_file`'s enum).
    pub file_skills: Vec<String>,
}

/// A model's `activate_skill`, answered.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Activation {
    /// The tool result: the rendered body (snippets not run), bundled files listed.
    pub body: String,
    /// `allowed-tools` entries, raw; empty unless the skill's scope is trusted.
    pub allowed: Vec<String>,
    /// `disallowed-tools` entries, raw.
    pub disallowed: Vec<String>,
}

/// A user's `/name args`, rendered: text pieces around the shell snippets' outputs.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Expansion {
    /// The name as typed (without `/`).
    pub typed: String,
    /// The item's qualified name.
    pub qualified: String,
    /// Where the item came from (`host`, `user`, `project`, `plugin:<p>`).
    pub source: String,
    /// The text around the snippets: one more piece than there are snippets.
    pub parts: Vec<String>,
    /// Shell commands, in order, to run as gated `bash` calls.
    pub snippets: Vec<String>,
}

impl Expansion {
    /// The text with each snippet's output between its pieces (a missing output stays empty).
    pub fn fill(&self, outputs: &[String]) -> String {
        fill_parts(&self.parts, outputs)
    }
}

/// `parts` with `outputs[n]` between parts `n` and `n + 1` (a missing output stays empty): how
/// both an [`Expansion`] and a rendered skill put snippet outputs back.
pub(crate) fn fill_parts(parts: &[String], outputs: &[String]) -> String {
    let mut text = String::new();
    for (n, part) in parts.iter().enumerate() {
        if n > 0 {
            text.push_str(outputs.get(n - 1).map_or("", String::as_str));
        }
        text.push_str(part);
    }
    text
}

/// Where an agent's skills come from: activations answered synchronously, between runs the
/// definitions of the skill tools. Implementations decide text only (see the module docs).
pub trait SkillHost {
    /// The catalog within `catalog_chars` and the skills that ship files.
    fn tools(&self, catalog_chars: usize) -> SkillTools;
    /// `activate_skill {name, arguments}`: the activation, or the refusal for the model.
    fn activate(&self, name: &str, arguments: &str) -> Result<Activation, String>;
    /// `read_skill_file {skill, path}`: `Ok` when `path` is one of the files `skill` ships.
    fn check_file(&self, skill: &str, path: &str) -> Result<(), String>;
    /// A user's input: `None` when it names no command or skill, else the expansion or why
    /// the user may not run it.
    fn expand(&self, input: &str) -> Option<Result<Expansion, String>>;
    /// Whether `name` is a skill an MCP server serves: the host then activates it (reads and
    /// verifies its `SKILL.md`), since that takes I/O. None by default.
    #[cfg(feature = "mcp-skills")]
    fn served_remotely(&self, name: &str) -> bool {
        let _ = name;
        false
    }
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The host's refusal (`{"error": text}`), if that is what `value` is.
fn refusal(value: &Value) -> Option<String> {
    value.get("error").map(|e| match e.as_str() {
        Some(text) => text.to_owned(),
        // `to_text`, not `to_string()`: the same text without `Value`'s `Display` in wasm.
        None => to_text(e),
    })
}

impl SkillTools {
    /// From `{names, text, shortened, files}`; anything else is an empty set of tools.
    pub fn from_json(value: &Value) -> SkillTools {
        SkillTools {
            catalog: Catalog {
                text: text(value, "text"),
                names: strings(value.get("names")),
                shortened: value.get("shortened") == Some(&Value::Bool(true)),
            },
            file_skills: strings(value.get("files")),
        }
    }
}

impl Activation {
    /// From `{body, allowed, disallowed}` or `{error}`.
    pub fn from_json(value: &Value) -> Result<Activation, String> {
        if let Some(why) = refusal(value) {
            return Err(why);
        }
        match value.get("body").and_then(Value::as_str) {
            Some(body) => Ok(Activation {
                body: body.to_owned(),
                allowed: strings(value.get("allowed")),
                disallowed: strings(value.get("disallowed")),
            }),
            None => Err("the skill host answered without a body".to_owned()),
        }
    }
}

/// `read_skill_file`'s check from `{}` (allowed) or `{error}`.
pub fn check_from_json(value: &Value) -> Result<(), String> {
    match refusal(value) {
        Some(why) => Err(why),
        None if value.is_object() => Ok(()),
        None => Err("the skill host gave no answer".to_owned()),
    }
}

impl Expansion {
    /// From `null` (no command), `{error}`, or `{typed, qualified, source, parts, snippets}`
    /// (pieces one more than snippets, else refused: outputs would land in the wrong place).
    pub fn from_json(value: &Value) -> Option<Result<Expansion, String>> {
        if value.is_null() {
            return None;
        }
        if let Some(why) = refusal(value) {
            return Some(Err(why));
        }
        let expansion = Expansion {
            typed: text(value, "typed"),
            qualified: text(value, "qualified"),
            source: text(value, "source"),
            parts: strings(value.get("parts")),
            snippets: strings(value.get("snippets")),
        };
        if expansion.parts.len() != expansion.snippets.len() + 1 {
            return Some(Err("the skill host's expansion is malformed".to_owned()));
        }
        Some(Ok(expansion))
    }
}

impl SkillTools {
    /// As [`SkillTools::from_json`] reads it.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "names": self.catalog.names,
            "text": self.catalog.text,
            "shortened": self.catalog.shortened,
            "files": self.file_skills,
        })
    }
}

impl Activation {
    /// `result` as [`Activation::from_json`] reads it.
    pub fn result_json(result: &Result<Activation, String>) -> Value {
        match result {
            Ok(a) => serde_json::json!({
                "body": a.body,
                "allowed": a.allowed,
                "disallowed": a.disallowed,
            }),
            Err(why) => serde_json::json!({ "error": why }),
        }
    }
}

/// `result` as [`check_from_json`] reads it.
pub fn check_json(result: &Result<(), String>) -> Value {
    match result {
        Ok(()) => serde_json::json!({}),
        Err(why) => serde_json::json!({ "error": why }),
    }
}

impl Expansion {
    /// `result` as [`Expansion::from_json`] reads it.
    pub fn result_json(result: &Option<Result<Expansion, String>>) -> Value {
        match result {
            None => Value::Null,
            Some(Err(why)) => serde_json::json!({ "error": why }),
            Some(Ok(e)) => serde_json::json!({
                "typed": e.typed,
                "qualified": e.qualified,
                "source": e.source,
                "parts": e.parts,
                "snippets": e.snippets,
            }),
        }
    }
}
