//! Claude Code's agent files: Markdown with a frontmatter (`name`, `description`, `tools`,
//! `disallowedTools`, `model`, `maxTurns`, `skills`, `mcpServers`, `permissionMode`); the body
//! is the child's system prompt.

use super::definition::{valid_name, AgentDefinition, PermissionMode};
use crate::ext::frontmatter;
use serde_json::Value;

/// Reads one agent file. `fallback_name` (the file's stem) names an agent whose frontmatter
/// has none; `source` says where it came from. A file without a description, or with a name
/// that cannot be a `subagent_type`, is an error naming the field.
pub fn parse_markdown(
    text: &str,
    fallback_name: &str,
    source: &str,
) -> Result<AgentDefinition, String> {
    let (fm, body) = frontmatter::parse(text)?;
    let name = fm.text("name").unwrap_or_else(|| fallback_name.to_owned());
    let name = name.trim().to_owned();
    if !valid_name(&name) {
        return Err(format!(
            "name {name:?} is not a valid agent name (letters, digits, `-`, `_`, `.`)"
        ));
    }
    let description = fm
        .text("description")
        .map(|d| d.trim().to_owned())
        .filter(|d| !d.is_empty())
        .ok_or_else(|| format!("agent {name} has no description"))?;
    let mut warnings = fm.warnings.clone();
    let tools = fm.get("tools").map(|_| fm.list("tools"));
    let mut disallowed_tools = fm.list("disallowedTools");
    disallowed_tools.extend(fm.list("disallowed-tools"));
    let model = fm
        .text("model")
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty() && m != "inherit");
    let max_turns = match fm.get("maxTurns").map(|f| &f.value) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) if n > 0 => Some(n),
            _ => {
                warnings.push(format!("maxTurns {n} is not a positive integer; ignored"));
                None
            }
        },
        Some(other) => {
            warnings.push(format!(
                "maxTurns {other} is not a positive integer; ignored"
            ));
            None
        }
    };
    let mut mcp_servers = Vec::new();
    match fm.get("mcpServers").map(|f| &f.value) {
        Some(Value::Object(inline)) if !inline.is_empty() => warnings.push(
            "mcpServers with inline server definitions are ignored: a child only uses its \
             parent's servers"
                .to_owned(),
        ),
        Some(_) => {
            for entry in fm.list("mcpServers") {
                if entry.starts_with('{') {
                    warnings.push(format!(
                        "mcpServers entry {entry} is an inline server; a child only uses its \
                         parent's servers"
                    ));
                } else {
                    mcp_servers.push(entry);
                }
            }
        }
        None => {}
    }
    let permission_mode = match fm.text("permissionMode") {
        Some(mode) => PermissionMode::parse(&mode).unwrap_or_else(|why| {
            warnings.push(why);
            PermissionMode::Inherit
        }),
        None => PermissionMode::Inherit,
    };
    Ok(AgentDefinition {
        name,
        description,
        instructions: body.trim().to_owned(),
        tools,
        disallowed_tools,
        model,
        max_turns,
        skills: fm.list("skills"),
        mcp_servers,
        permission_mode,
        source: source.to_owned(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVIEWER: &str = "---\nname: code-reviewer\ndescription: Reviews code: finds bugs \
        before they ship. Use after writing code.\ntools: Read, Grep, Glob, Bash\n\
        disallowedTools: Write\nmodel: sonnet\nmaxTurns: 5\nskills:\n  - review\n\
        mcpServers:\n  - github\npermissionMode: plan\ncolor: blue\n---\n\nYou are a careful \
        reviewer.\n";

    #[test]
    fn every_claude_field_is_read() {
        let def = parse_markdown(REVIEWER, "file-stem", "user").unwrap();
        assert_eq!(def.name, "code-reviewer");
        assert!(def.description.starts_with("Reviews code: finds bugs"));
        assert_eq!(
            def.tools.as_deref(),
            Some(&["Read", "Grep", "Glob", "Bash"].map(String::from)[..])
        );
        assert_eq!(def.disallowed_tools, ["Write"]);
        assert_eq!(def.model.as_deref(), Some("sonnet"));
        assert_eq!(def.max_turns, Some(5));
        assert_eq!(def.skills, ["review"]);
        assert_eq!(def.mcp_servers, ["github"]);
        assert_eq!(def.permission_mode, PermissionMode::Plan);
        assert_eq!(def.instructions, "You are a careful reviewer.");
        assert_eq!(def.source, "user");
    }

    #[test]
    fn absent_fields_inherit() {
        let def = parse_markdown(
            "---\ndescription: d\nmodel: inherit\n---\nbody",
            "stem",
            "p",
        )
        .unwrap();
        assert_eq!(def.name, "stem");
        assert_eq!(def.tools, None, "no tools field: every parent tool");
        assert_eq!(def.model, None);
        assert_eq!(def.max_turns, None);
        assert_eq!(def.permission_mode, PermissionMode::Inherit);
    }

    #[test]
    fn an_empty_tools_field_means_no_tools() {
        let def = parse_markdown("---\ndescription: d\ntools: []\n---\n", "s", "p").unwrap();
        assert_eq!(def.tools, Some(Vec::new()));
    }

    #[test]
    fn widening_and_bad_fields_warn_and_fall_back() {
        let text = "---\ndescription: d\npermissionMode: bypassPermissions\nmaxTurns: -3\n\
                    mcpServers:\n  local:\n    command: evil\n---\n";
        let def = parse_markdown(text, "s", "p").unwrap();
        assert_eq!(def.permission_mode, PermissionMode::Inherit);
        assert_eq!(def.max_turns, None);
        assert!(def.mcp_servers.is_empty());
        let warnings = def.warnings.join("\n");
        assert!(warnings.contains("bypassPermissions"), "{warnings}");
        assert!(warnings.contains("maxTurns"), "{warnings}");
        assert!(warnings.contains("inline"), "{warnings}");
    }

    #[test]
    fn missing_description_or_bad_name_is_an_error() {
        let err = parse_markdown("---\nname: x\n---\nbody", "s", "p").unwrap_err();
        assert!(err.contains("description"), "{err}");
        let err = parse_markdown("---\nname: a b\ndescription: d\n---\n", "s", "p").unwrap_err();
        assert!(err.contains("not a valid agent name"), "{err}");
        assert!(
            parse_markdown("---\nname: x\n", "s", "p").is_err(),
            "unclosed frontmatter"
        );
    }
}
