//! Agents given by an embedding program as JSON (the npm package's `agents` option):
//! `{name, description, instructions?, tools?, disallowedTools?, model?, maxTurns?,
//! permissionMode?, mcpServers?, skills?}`. They rank as `host`, above every file.

use super::catalog::AgentSet;
use super::definition::{valid_name, AgentDefinition, PermissionMode};
use crate::json::quoted;
use serde_json::Value;

/// Reads one agent object; an error names the field (and the agent, once its name is known).
pub fn definition_from_json(value: &Value) -> Result<AgentDefinition, String> {
    let Value::Object(obj) = value else {
        return Err("an agent must be an object {name, description, instructions}".into());
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let strings = |key: &str| -> Result<Option<Vec<String>>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| format!("`{key}` must be an array of strings")),
            Some(_) => Err(format!("`{key}` must be an array of strings")),
        }
    };
    let name = text("name")?.unwrap_or_default();
    if !valid_name(&name) {
        return Err(format!(
            "agent name {} is not valid (letters, digits, `-`, `_`, `.`)",
            quoted(&name)
        ));
    }
    let named = |e: String| format!("agent {name}: {e}");
    let description = text("description")
        .map_err(named)?
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| format!("agent {name}: `description` is required"))?;
    let max_turns = match obj.get("maxTurns") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("agent {name}: `maxTurns` must be a positive integer"))?,
        ),
    };
    let permission_mode = match text("permissionMode").map_err(named)? {
        Some(mode) => PermissionMode::parse(&mode).map_err(named)?,
        None => PermissionMode::Inherit,
    };
    Ok(AgentDefinition {
        description,
        instructions: text("instructions").map_err(named)?.unwrap_or_default(),
        tools: strings("tools").map_err(named)?,
        disallowed_tools: strings("disallowedTools")
            .map_err(named)?
            .unwrap_or_default(),
        model: text("model")
            .map_err(named)?
            .filter(|m| !m.is_empty() && m != "inherit"),
        max_turns,
        mcp_servers: strings("mcpServers").map_err(named)?.unwrap_or_default(),
        skills: strings("skills").map_err(named)?.unwrap_or_default(),
        permission_mode,
        source: "host".into(),
        name,
        ..AgentDefinition::default()
    })
}

/// The built-in agent plus every agent of `list` (a JSON array); the first bad one is the
/// error, naming its index.
pub fn agent_set_from_json(list: &Value) -> Result<AgentSet, String> {
    let Value::Array(items) = list else {
        return Err("`agents` must be an array of agent objects".into());
    };
    let mut set = AgentSet::with_builtin();
    for (i, item) in items.iter().enumerate() {
        let def = definition_from_json(item).map_err(|e| format!("agents[{i}]: {e}"))?;
        if set.get(&def.name).is_some_and(|d| d.source == "host") {
            return Err(format!("agents[{i}]: a second agent named {}", def.name));
        }
        set.insert(def);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn host_agents_are_read_and_checked_field_by_field() {
        let set = agent_set_from_json(&json!([{
            "name": "researcher", "description": "Finds things.", "instructions": "Search.",
            "tools": ["mcp__github__*"], "model": "small", "maxTurns": 4,
            "permissionMode": "plan", "skills": ["review"]
        }]))
        .unwrap();
        let def = set.get("researcher").unwrap();
        assert_eq!(def.skills, ["review"]);
        assert_eq!(
            def.tools.as_deref(),
            Some(&["mcp__github__*".to_owned()][..])
        );
        assert_eq!(
            (def.max_turns, def.permission_mode),
            (Some(4), PermissionMode::Plan)
        );
        assert_eq!(def.source, "host");
        assert!(set.get("general-purpose").is_some());
        for (bad, want) in [
            (json!([3]), "agents[0]: an agent must be an object"),
            (json!([{"name": "a b", "description": "d"}]), "is not valid"),
            (json!([{"name": "a"}]), "agent a: `description` is required"),
            (
                json!([{"name": "a", "description": "d", "tools": "Read"}]),
                "`tools` must be an array",
            ),
            (
                json!([{"name": "a", "description": "d", "maxTurns": 0}]),
                "positive integer",
            ),
            (
                json!([{"name": "a", "description": "d", "permissionMode": "bypassPermissions"}]),
                "more than its parent",
            ),
            (
                json!([{"name": "a", "description": "d"}, {"name": "a", "description": "e"}]),
                "agents[1]: a second agent named a",
            ),
            (json!({}), "must be an array"),
        ] {
            let err = agent_set_from_json(&bad).unwrap_err();
            assert!(err.contains(want), "{bad}: {err}");
        }
    }
}
