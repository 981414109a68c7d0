//! `SKILL.md` (Agent Skills standard plus Claude Code fields) and `commands/*.md` → [`Skill`].

use super::args::positional_lint;
use super::frontmatter::{self, Frontmatter};
use super::{ExtError, Scope, Skill, SkillKind};
use serde_json::{Map, Value};

/// Fields read into the record.
const KNOWN: &[&str] = &[
    "name",
    "description",
    "when_to_use",
    "when-to-use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "allowed-tools",
    "disallowed-tools",
    "license",
    "compatibility",
    "metadata",
    "version",
];

/// Fields Claude Code reads that agentwire does not act on yet.
const IGNORED: &[&str] = &[
    "model",
    "effort",
    "context",
    "agent",
    "background",
    "hooks",
    "paths",
    "shell",
];

/// Longest description the standard recommends.
const MAX_DESCRIPTION: usize = 1024;
/// Longest description derived from the body.
const DERIVED_DESCRIPTION: usize = 250;
/// Body size over which a load warning suggests moving text to bundled files.
pub const LARGE_BODY_CHARS: usize = 20_000;

/// Parses a `SKILL.md` text; `dir_name` is its directory's name (the invocation name).
pub fn parse_skill_md(
    location: &str,
    dir_name: &str,
    text: &str,
    scope: Scope,
) -> Result<Skill, ExtError> {
    parse(location, dir_name, text, scope, SkillKind::Skill)
}

/// Parses a `commands/*.md` text; `stem` is the file name without `.md`, with `sub:` prefixed
/// for a nested directory (`frontend:component`).
pub fn parse_command_md(
    location: &str,
    stem: &str,
    text: &str,
    scope: Scope,
) -> Result<Skill, ExtError> {
    parse(location, stem, text, scope, SkillKind::Command)
}

fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out.trim_end().to_owned()
}

fn derive_description(body: &str, kind: SkillKind) -> String {
    let mut para = String::new();
    for line in body.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("---") {
            if para.is_empty() {
                continue;
            }
            break;
        }
        para.push_str(line);
        para.push(' ');
        if kind == SkillKind::Command {
            break;
        }
    }
    one_line(&para).chars().take(DERIVED_DESCRIPTION).collect()
}

fn parse(
    location: &str,
    file_name: &str,
    text: &str,
    scope: Scope,
    kind: SkillKind,
) -> Result<Skill, ExtError> {
    let fail = |message: String| ExtError {
        location: location.to_owned(),
        message,
    };
    let (fm, body) = frontmatter::parse(text).map_err(fail)?;
    let mut warnings: Vec<String> = fm.warnings.clone();
    let leaf = file_name.rsplit(':').next().unwrap_or(file_name).to_owned();
    let qualified = match scope.plugin() {
        Some(plugin) => format!("{plugin}:{leaf}"),
        None => file_name.to_owned(),
    };
    let declared = fm.text("name");
    if let Some(name) = &declared {
        name_warnings(name, &leaf, kind, &mut warnings);
    }
    let explicit = fm
        .text("description")
        .map(|d| one_line(&d))
        .filter(|d| !d.is_empty());
    let description = match &explicit {
        Some(d) => {
            if d.chars().count() > MAX_DESCRIPTION {
                warnings.push(format!(
                    "description is {} characters, over the standard's {MAX_DESCRIPTION}",
                    d.chars().count()
                ));
            }
            d.clone()
        }
        None => {
            let derived = derive_description(&body, kind);
            if derived.is_empty() {
                if body.trim().is_empty() {
                    return Err(fail(
                        "no description and an empty body: nothing to load".into(),
                    ));
                }
            } else if kind == SkillKind::Skill {
                warnings.push("no description; the first paragraph stands in".into());
            }
            derived
        }
    };
    let mut ignored_fields = Vec::new();
    for field in &fm.fields {
        let key = field.key.as_str();
        if IGNORED.contains(&key) {
            ignored_fields.push(key.to_owned());
        } else if !KNOWN.contains(&key) {
            warnings.push(format!("unknown field `{key}` ignored"));
        }
    }
    if !ignored_fields.is_empty() {
        warnings.push(format!(
            "not supported yet, ignored: {}",
            ignored_fields.join(", ")
        ));
    }
    let mut flag = |key: &str, default: bool| match fm.flag(key) {
        None => default,
        Some(Ok(b)) => b,
        Some(Err(raw)) => {
            warnings.push(format!(
                "field `{key}`: {raw:?} is not a boolean; using {default}"
            ));
            default
        }
    };
    let disable_model = flag("disable-model-invocation", false);
    let user_invocable = flag("user-invocable", true);
    let compatibility = fm.text("compatibility");
    if compatibility
        .as_ref()
        .is_some_and(|c| c.chars().count() > 500)
    {
        warnings.push("compatibility is over the standard's 500 characters".into());
    }
    if body.chars().count() > LARGE_BODY_CHARS {
        warnings.push(format!(
            "body is {} characters (the standard recommends under ~5,000 tokens); loaded whole",
            body.chars().count()
        ));
    }
    if let Some(lint) = positional_lint(&body) {
        warnings.push(lint);
    }
    let model_invocable = !disable_model
        && !description.is_empty()
        && (kind == SkillKind::Skill || explicit.is_some());
    Ok(Skill {
        name: leaf.clone(),
        qualified,
        display_name: declared.filter(|d| *d != leaf),
        description,
        when_to_use: fm
            .text("when_to_use")
            .or_else(|| fm.text("when-to-use"))
            .map(|w| one_line(&w)),
        argument_hint: fm.text("argument-hint"),
        arguments: fm.list("arguments"),
        model_invocable,
        user_invocable,
        allowed_tools: fm.list("allowed-tools"),
        disallowed_tools: fm.list("disallowed-tools"),
        license: fm.text("license"),
        compatibility,
        metadata: metadata(&fm),
        body,
        files: Vec::new(),
        dir: None,
        vars: Vec::new(),
        location: location.to_owned(),
        kind,
        scope,
        ignored_fields,
        warnings,
    })
}

fn metadata(fm: &Frontmatter) -> Map<String, Value> {
    match fm.get("metadata").map(|f| &f.value) {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    }
}

/// Agent Skills naming rules, as warnings (the file still loads).
fn name_warnings(name: &str, leaf: &str, kind: SkillKind, warnings: &mut Vec<String>) {
    if kind == SkillKind::Skill && name != leaf {
        warnings.push(format!(
            "name `{name}` differs from the directory `{leaf}`; invoked as /{leaf}"
        ));
    }
    if name.chars().count() > 64 {
        warnings.push("name is over the standard's 64 characters".into());
    }
    let bad = name
        .chars()
        .any(|c| !(c.is_alphanumeric() && !c.is_uppercase() || c == '-'));
    if bad || name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        warnings.push(format!(
            "name `{name}`: the standard allows lowercase letters, digits and single inner hyphens"
        ));
    }
}
