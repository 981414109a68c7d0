//! Explicit tool calls: "call echo {"message":"hi"}", "调用 get-sum {"a":1,"b":2}".
//!
//! With these the mock model can drive *any* offered tool, not only the few it recognises by
//! meaning, so every connected MCP server can be tried without a real model. The message must
//! name an offered tool right after the verb (its full name, or the part after `__`) and then
//! give either nothing or one JSON object (JSON of another shape is explained, not sent). Words
//! instead are left to the other patterns, so "use the calculator to add 2 and 3" still reaches
//! the calculator pattern.

use crate::model::ToolDefinition;
use serde_json::{Map, Value};

/// Verbs that start an explicit call, matched case-insensitively (English) or as written.
const VERBS: &[&str] = &[
    "call ", "use ", "run ", "invoke ", "调用", "使用", "执行", "运行",
];

/// What an explicit call asks for.
#[derive(Debug, PartialEq)]
pub(super) enum Explicit<'t> {
    /// Call tool `name` with these arguments.
    Call(&'t str, Value),
    /// The tool was named, but what follows it is not one JSON object.
    BadArguments(&'t str, String),
}

/// Reads `text` as an explicit call of one of `tools`, if it is one.
pub(super) fn parse<'t>(text: &str, tools: &'t [ToolDefinition]) -> Option<Explicit<'t>> {
    let text = text.trim().trim_end_matches(['.', '。', '!', '！']);
    let rest = VERBS.iter().find_map(|verb| {
        let head = text.get(..verb.len())?;
        head.eq_ignore_ascii_case(verb).then(|| &text[verb.len()..])
    })?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '{' || c == '，' || c == '：' || c == ':')
        .unwrap_or(rest.len());
    let name = find(tools, rest[..end].trim_matches('`'))?;
    let after = rest[end..].trim_start_matches([' ', '：', ':', '，']);
    let after = strip_joiner(after);
    if after.is_empty() {
        return Some(Explicit::Call(name, Value::Object(Map::new())));
    }
    if !after.starts_with(['{', '[']) {
        return None; // more words: not an explicit call
    }
    Some(match crate::json::parse_str(after) {
        Ok(arguments @ Value::Object(_)) => Explicit::Call(name, arguments),
        Ok(_) => Explicit::BadArguments(name, "not a JSON object".into()),
        Err(error) => Explicit::BadArguments(name, error.to_string()),
    })
}

/// Drops a word joining the tool name and its arguments ("with", "参数").
fn strip_joiner(text: &str) -> &str {
    for joiner in ["with ", "args ", "arguments ", "参数"] {
        if let Some(head) = text.get(..joiner.len()) {
            if head.eq_ignore_ascii_case(joiner) {
                return text[joiner.len()..].trim_start();
            }
        }
    }
    text
}

/// The offered tool called `name`: its full name, else the one whose name ends in `__name`.
fn find<'t>(tools: &'t [ToolDefinition], name: &str) -> Option<&'t str> {
    if name.is_empty() {
        return None;
    }
    tools
        .iter()
        .find(|t| t.name == name)
        .or_else(|| {
            tools.iter().find(|t| {
                t.name
                    .strip_suffix(name)
                    .is_some_and(|prefix| prefix.ends_with("__"))
            })
        })
        .map(|t| t.name.as_str())
}
