//! Codex's agent files (`.codex/agents/*.toml`: `name`, `description`,
//! `developer_instructions`, `model`, `sandbox_mode`), read with the small TOML subset they
//! use: top-level `key = value` with basic, literal and multi-line strings, integers,
//! booleans and arrays of strings. Keys under a `[table]` header are not agent fields and are
//! skipped with one warning.

use super::definition::{valid_name, AgentDefinition, PermissionMode};
use serde_json::Value;

/// Longest file read, in bytes; hosts bound their reads below this anyway.
const MAX_TOML_BYTES: usize = 512 * 1024;

/// Reads one Codex agent file; `fallback_name` (the file's stem) names an agent without
/// `name`. Syntax errors name the line.
pub fn parse_codex_toml(
    text: &str,
    fallback_name: &str,
    source: &str,
) -> Result<AgentDefinition, String> {
    if text.len() > MAX_TOML_BYTES {
        return Err(format!("the file is over {MAX_TOML_BYTES} bytes"));
    }
    let (fields, mut warnings) = parse_fields(text)?;
    let get = |key: &str| fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v);
    let text_of = |key: &str| get(key).and_then(Value::as_str).map(str::trim);
    let name = text_of("name").unwrap_or(fallback_name).to_owned();
    if !valid_name(&name) {
        return Err(format!(
            "name {name:?} is not a valid agent name (letters, digits, `-`, `_`, `.`)"
        ));
    }
    let description = text_of("description")
        .filter(|d| !d.is_empty())
        .ok_or_else(|| format!("agent {name} has no description"))?
        .to_owned();
    let permission_mode = match text_of("sandbox_mode") {
        Some(mode) => PermissionMode::parse(mode).unwrap_or_else(|why| {
            warnings.push(why);
            PermissionMode::Inherit
        }),
        None => PermissionMode::Inherit,
    };
    let strings = |key: &str| -> Vec<String> {
        match get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    Ok(AgentDefinition {
        name,
        description,
        instructions: text_of("developer_instructions").unwrap_or("").to_owned(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: text_of("model")
            .filter(|m| !m.is_empty() && *m != "inherit")
            .map(str::to_owned),
        max_turns: None,
        skills: strings("skills"),
        mcp_servers: strings("mcp_servers"),
        permission_mode,
        source: source.to_owned(),
        warnings,
    })
}

/// Top-level `(key, value)` pairs in file order, and warnings.
type Fields = (Vec<(String, Value)>, Vec<String>);

/// Reads the top-level fields of `text`.
fn parse_fields(text: &str) -> Result<Fields, String> {
    let mut fields = Vec::new();
    let mut warnings = Vec::new();
    let mut in_table = false;
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let at = |what: String| format!("line {}: {what}", index + 1);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed.starts_with('[') {
            if !in_table {
                warnings.push(at(format!(
                    "table {trimmed} and the keys under it are ignored"
                )));
            }
            in_table = true;
            continue;
        }
        let (key, rest) = trimmed
            .split_once('=')
            .ok_or_else(|| at("expected `key = value`".into()))?;
        let key = key.trim().trim_matches('"').to_owned();
        if key.is_empty() {
            return Err(at("empty key".into()));
        }
        let rest = rest.trim_start();
        let value = if let Some(delim) = ["\"\"\"", "'''"].into_iter().find(|d| rest.starts_with(d))
        {
            let mut body = rest[3..].to_owned();
            loop {
                if let Some(end) = body.find(delim) {
                    body.truncate(end);
                    break;
                }
                let Some((_, next)) = lines.next() else {
                    return Err(at(format!("the string opened by {delim} is never closed")));
                };
                body.push('\n');
                body.push_str(next);
            }
            // TOML drops a newline right after the opening delimiter.
            let body = body.strip_prefix('\n').unwrap_or(&body).to_owned();
            Value::String(if delim == "\"\"\"" {
                unescape(&body).map_err(&at)?
            } else {
                body
            })
        } else {
            let (value, tail) = scalar(rest).map_err(&at)?;
            let tail = tail.trim();
            if !tail.is_empty() && !tail.starts_with('#') {
                return Err(at(format!("unexpected {tail:?} after the value")));
            }
            value
        };
        if !in_table {
            fields.push((key, value));
        }
    }
    Ok((fields, warnings))
}

/// One single-line value and what follows it.
fn scalar(text: &str) -> Result<(Value, &str), String> {
    if let Some(rest) = text.strip_prefix('"') {
        let mut escaped = false;
        for (i, c) in rest.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    return Ok((Value::String(unescape(&rest[..i])?), &rest[i + 1..]));
                }
                _ => escaped = false,
            }
        }
        return Err("unterminated string".into());
    }
    if let Some(rest) = text.strip_prefix('\'') {
        let end = rest.find('\'').ok_or("unterminated string")?;
        return Ok((Value::String(rest[..end].to_owned()), &rest[end + 1..]));
    }
    if let Some(mut rest) = text.strip_prefix('[') {
        let mut items = Vec::new();
        loop {
            rest = rest.trim_start();
            if let Some(after) = rest.strip_prefix(']') {
                return Ok((Value::Array(items), after));
            }
            let (item, after) = scalar(rest)?;
            items.push(item);
            rest = after.trim_start();
            rest = rest.strip_prefix(',').unwrap_or(rest);
            if rest.is_empty() {
                return Err("an array must close on its line".into());
            }
        }
    }
    let end = text
        .find(|c: char| c.is_whitespace() || c == ',' || c == ']' || c == '#')
        .unwrap_or(text.len());
    let (word, rest) = text.split_at(end);
    let value = match word {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => match word.replace('_', "").parse::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => return Err(format!("unsupported value {word:?}")),
        },
    };
    Ok((value, rest))
}

/// A basic string's escapes: `\" \\ \n \t \r \uXXXX \UXXXXXXXX`.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some(u @ ('u' | 'U')) => {
                let len = if u == 'u' { 4 } else { 8 };
                let hex: String = chars.by_ref().take(len).collect();
                let ch = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("bad escape \\{u}{hex}"))?;
                out.push(ch);
            }
            // A line-ending backslash joins the lines (multi-line basic strings).
            Some('\n') => {
                let rest: String = chars.by_ref().collect();
                out.push_str(&unescape(rest.trim_start())?);
                return Ok(out);
            }
            other => return Err(format!("bad escape \\{}", other.unwrap_or(' '))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_agent_file_is_read() {
        let text = "# reviewer\nname = \"reviewer\"\ndescription = \"Read-only code review.\"\n\
            model = \"gpt-5.3-codex\"\nmodel_reasoning_effort = 'medium'\nsandbox_mode = \
            \"read-only\"\nnickname_candidates = [\"Rev\", 'Ada']\ndeveloper_instructions = \
            \"\"\"\nReview the diff.\nCite \\\"file:line\\\".\n\"\"\"\n\n[mcp_servers.docs]\n\
            command = \"x\"\n";
        let def = parse_codex_toml(text, "stem", "user").unwrap();
        assert_eq!(def.name, "reviewer");
        assert_eq!(def.description, "Read-only code review.");
        assert_eq!(def.model.as_deref(), Some("gpt-5.3-codex"));
        assert_eq!(def.permission_mode, PermissionMode::Plan);
        assert_eq!(def.instructions, "Review the diff.\nCite \"file:line\".");
        assert!(
            def.warnings[0].contains("[mcp_servers.docs]"),
            "{:?}",
            def.warnings
        );
    }

    #[test]
    fn literal_multiline_strings_keep_backslashes() {
        let text = "description = 'd'\ndeveloper_instructions = '''\nuse C:\\tmp\n'''\n";
        let def = parse_codex_toml(text, "stem", "p").unwrap();
        assert_eq!(def.name, "stem");
        assert_eq!(def.instructions, "use C:\\tmp");
    }

    #[test]
    fn syntax_errors_name_the_line() {
        for (text, want) in [
            ("description = \"d\"\nname\n", "line 2"),
            ("description = \"d\ndeveloper_instructions = 1", "line 1"),
            ("description = 'd'\nx = \"\"\"\nnever closed", "line 2"),
            ("description = 'd' junk", "line 1"),
            ("description = [\"a\",", "line 1"),
            ("description = \"\\q\"", "bad escape"),
        ] {
            let err = parse_codex_toml(text, "s", "p").unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
        let err = parse_codex_toml("name = 'x'", "s", "p").unwrap_err();
        assert!(err.contains("no description"), "{err}");
    }

    #[test]
    fn a_widening_sandbox_mode_keeps_the_parents_rules() {
        let def = parse_codex_toml(
            "description='d'\nsandbox_mode='danger-full-access'",
            "s",
            "p",
        )
        .unwrap();
        assert_eq!(def.permission_mode, PermissionMode::Inherit);
        assert!(def
            .warnings
            .iter()
            .any(|w| w.contains("more than its parent")));
    }
}
