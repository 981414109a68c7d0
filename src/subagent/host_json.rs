//! Agents given by an embedding program as JSON (the npm package's `agents` option):
//! `{name, description, instructions?, tools?, disallowedTools?, model?, maxTurns?,
//! permissionMode?, mcpServers?, skills?}`. They rank as `host`, above every file.

use super::catalog::AgentSet;
use super::definition::{valid_name, AgentDefinition, PermissionMode};
use crate::json::quoted;
use serde_json::{json, Value};

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

/// `def` in the shape [`definition_from_json`] reads, every field present, plus its `source`:
/// the record the npm package's `ext` module gives the runtime.
pub fn definition_to_record(def: &AgentDefinition) -> Value {
    json!({
        "name": def.name,
        "description": def.description,
        "instructions": def.instructions,
        "tools": def.tools,
        "disallowedTools": def.disallowed_tools,
        "model": def.model,
        "maxTurns": def.max_turns,
        "mcpServers": def.mcp_servers,
        "skills": def.skills,
        "permissionMode": def.permission_mode.as_str(),
        "source": def.source,
    })
}

/// Reads [`definition_to_record`]'s record, checked already: a field of the wrong type reads
/// as absent (the record comes from the `ext` module's own checks; this never fails, so the
/// runtime carries no error paths for it).
pub fn definition_from_record(record: &Value) -> AgentDefinition {
    let text = |key: &str| record[key].as_str().map(str::to_owned);
    let list = |key: &str| {
        record[key].as_array().map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect::<Vec<_>>()
        })
    };
    AgentDefinition {
        name: text("name").unwrap_or_default(),
        description: text("description").unwrap_or_default(),
        instructions: text("instructions").unwrap_or_default(),
        tools: list("tools"),
        disallowed_tools: list("disallowedTools").unwrap_or_default(),
        model: text("model"),
        max_turns: record["maxTurns"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok()),
        mcp_servers: list("mcpServers").unwrap_or_default(),
        skills: list("skills").unwrap_or_default(),
        permission_mode: match record["permissionMode"].as_str() {
            Some("plan") => PermissionMode::Plan,
            Some("dontAsk") => PermissionMode::DontAsk,
            _ => PermissionMode::Inherit,
        },
        source: text("source").unwrap_or_default(),
        warnings: Vec::new(),
    }
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

    /// The npm runtime takes `agents` as the `ext` module's records: read back, they are the
    /// definitions the runtime would have read itself, and the set built from them offers the
    /// same `Agent` tool, byte for byte.
    #[test]
    fn records_read_back_as_the_definitions_and_the_same_agent_tool() {
        let set = agent_set_from_json(&json!([
            {"name": "researcher", "description": "Finds things.", "instructions": "Search.",
             "tools": ["mcp__github__*", "Read"], "disallowedTools": ["Bash"], "model": "small",
             "maxTurns": 4, "permissionMode": "plan", "skills": ["review"],
             "mcpServers": ["github"]},
            {"name": "quiet", "description": "Never asks.", "permissionMode": "dontAsk"},
            {"name": "plain", "description": "Defaults only."}
        ]))
        .unwrap();
        let sorted = set.sorted();
        let records: Vec<Value> = sorted.iter().copied().map(definition_to_record).collect();
        let read: Vec<AgentDefinition> = records.iter().map(definition_from_record).collect();
        let want: Vec<AgentDefinition> = sorted.into_iter().cloned().collect();
        assert_eq!(read, want);
        assert_eq!(read.len(), 4, "the built-in agent is a record too");
        let resolved = AgentSet::from_resolved(read);
        let (description, schema) = set.tool_text(4_000).unwrap();
        let tool = crate::subagent::agent_tool(description, schema);
        assert_eq!(resolved.tool_spec(4_000).unwrap(), tool);
        assert_eq!(set.tool_spec(4_000).unwrap(), tool);
        assert_eq!(
            crate::json::to_text(&resolved.tool_spec(4_000).unwrap().input_schema),
            crate::json::to_text(&tool.input_schema)
        );
        // A record of the wrong shape reads as defaults, never as an error or a wider mode.
        let odd = definition_from_record(&json!({"name": 3, "tools": "Read", "maxTurns": -1,
            "permissionMode": "bypassPermissions"}));
        assert_eq!(odd, AgentDefinition::default());
    }
}
