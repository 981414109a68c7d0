//! A [`Skill`] as JSON and back: what `agentwire skills show --json` prints, what the npm
//! package's `parseSkill` returns, and what its runtime takes (already parsed, so the runtime
//! module carries no parser).

use super::{Scope, Skill, SkillKind};
use serde_json::{Map, Value};

fn kind_label(kind: SkillKind) -> &'static str {
    match kind {
        SkillKind::Skill => "skill",
        SkillKind::Command => "command",
    }
}

fn opt(value: &Option<String>) -> Value {
    value.as_deref().map_or(Value::Null, Value::from)
}

fn strings(list: &[String]) -> Value {
    Value::Array(list.iter().map(|s| Value::from(s.as_str())).collect())
}

/// Every field of `skill` as one JSON object (camelCase keys). `files` is the list of bundled
/// files; `bodyChars` counts the body's characters.
pub fn skill_json(skill: &Skill) -> Value {
    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.to_owned(), value);
    };
    put("name", skill.name.as_str().into());
    put("qualified", skill.qualified.as_str().into());
    put("kind", kind_label(skill.kind).into());
    put("source", skill.scope.label().into());
    put("location", skill.location.as_str().into());
    put("description", skill.description.as_str().into());
    put("displayName", opt(&skill.display_name));
    put("whenToUse", opt(&skill.when_to_use));
    put("argumentHint", opt(&skill.argument_hint));
    put("arguments", strings(&skill.arguments));
    put("modelInvocable", skill.model_invocable.into());
    put("userInvocable", skill.user_invocable.into());
    put("allowedTools", strings(&skill.allowed_tools));
    put("disallowedTools", strings(&skill.disallowed_tools));
    put("license", opt(&skill.license));
    put("compatibility", opt(&skill.compatibility));
    put("metadata", Value::Object(skill.metadata.clone()));
    put("files", strings(&skill.files));
    put("dir", opt(&skill.dir));
    put("bodyChars", skill.body.chars().count().into());
    put("body", skill.body.as_str().into());
    put("ignoredFields", strings(&skill.ignored_fields));
    put("warnings", strings(&skill.warnings));
    Value::Object(m)
}

/// A skill from [`skill_json`]'s shape, placed in `scope` (the record's own `source` is
/// ignored: where an item came from is the host's word, never the item's). `name`,
/// `description` and `body` are required; a wrong type is an error naming the field.
pub fn skill_from_json(value: &Value, scope: Scope) -> Result<Skill, String> {
    let Value::Object(m) = value else {
        return Err("a skill must be an object".into());
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match m.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("\"{key}\" must be a string")),
        }
    };
    let required = |key: &str| text(key)?.ok_or_else(|| format!("\"{key}\" is required"));
    let list = |key: &str| -> Result<Vec<String>, String> {
        match m.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("\"{key}\" must be an array of strings")),
            Some(_) => Err(format!("\"{key}\" must be an array of strings")),
        }
    };
    let flag = |key: &str| -> Result<bool, String> {
        match m.get(key) {
            None | Some(Value::Null) => Ok(true),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(format!("\"{key}\" must be a boolean")),
        }
    };
    let name = required("name")?;
    if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == '/') {
        return Err(format!(
            "\"name\" must be one word without \"/\", got {}",
            crate::json::quoted(&name)
        ));
    }
    let kind = match text("kind")?.as_deref() {
        None | Some("skill") => SkillKind::Skill,
        Some("command") => SkillKind::Command,
        Some(other) => {
            return Err(format!(
                "\"kind\" must be \"skill\" or \"command\", got {other}"
            ))
        }
    };
    let leaf = name.rsplit(':').next().unwrap_or(&name).to_owned();
    // Outside plugins, a nested command keeps its `sub:name`; a plugin's items are always
    // `plugin:name`, whatever the record says.
    let qualified = match (scope.plugin(), text("qualified")?) {
        (Some(plugin), _) => format!("{plugin}:{leaf}"),
        (None, Some(q)) if q.rsplit(':').next() == Some(leaf.as_str()) => q,
        (None, _) => name.clone(),
    };
    let description = text("description")?.unwrap_or_default();
    let metadata = match m.get("metadata") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err("\"metadata\" must be an object".into()),
    };
    Ok(Skill {
        model_invocable: flag("modelInvocable")? && !description.is_empty(),
        user_invocable: flag("userInvocable")?,
        location: text("location")?.unwrap_or_else(|| format!("js:{qualified}")),
        name: leaf,
        qualified,
        display_name: text("displayName")?,
        description,
        when_to_use: text("whenToUse")?,
        argument_hint: text("argumentHint")?,
        arguments: list("arguments")?,
        allowed_tools: list("allowedTools")?,
        disallowed_tools: list("disallowedTools")?,
        license: text("license")?,
        compatibility: text("compatibility")?,
        metadata,
        body: required("body")?,
        files: list("files")?,
        dir: text("dir")?,
        // Per-item `${VAR}`s come from a host reading a plugin folder, never from a record.
        vars: Vec::new(),
        kind,
        scope,
        ignored_fields: list("ignoredFields")?,
        warnings: list("warnings")?,
    })
}
