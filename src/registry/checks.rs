//! What the registry accepts from a server's tool list: object input schemas, descriptions cut
//! to a length a model request can carry, and at most so many tools per server and in all.
//!
//! The caps bound what the registry *holds*; how many of its tools are sent to the model at
//! once (OpenAI accepts 128) is the agent's business, so a large registry stays searchable.

use super::truncate::char_prefix;
use crate::json::quoted;
use serde_json::Value;
use std::borrow::Cow;

/// Most tools taken from one server; the rest of its list is skipped, with one reason.
pub const MAX_TOOLS_PER_SERVER: usize = 1_000;
/// Most MCP tools the registry holds across all servers.
pub const MAX_MCP_TOOLS: usize = 4_000;
/// Longest tool description kept, in characters; longer ones are cut and marked.
pub const MAX_DESCRIPTION_CHARS: usize = 2_048;

/// `description` cut to [`MAX_DESCRIPTION_CHARS`] characters (never inside one), with a marker
/// saying how much was cut.
pub fn cut_description(description: &str) -> Cow<'_, str> {
    match char_prefix(description, MAX_DESCRIPTION_CHARS) {
        (_, 0) => Cow::Borrowed(description),
        (head, cut) => Cow::Owned(format!(
            "{head}… [description cut: {cut} of {} characters, over the limit of \
             {MAX_DESCRIPTION_CHARS}]",
            MAX_DESCRIPTION_CHARS + cut
        )),
    }
}

/// Checks that `schema` describes an object, as model APIs require of tool parameters: its
/// `type` is `"object"` (added when absent) and its `properties`, if any, an object.
pub fn object_schema(mut schema: Value) -> Result<Value, String> {
    let Some(map) = schema.as_object_mut() else {
        return Err("\"inputSchema\" must be an object".into());
    };
    match map.get("type") {
        None => {
            map.insert("type".into(), "object".into());
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            let shown = match other {
                Value::String(t) => quoted(t).to_string(),
                other => crate::json::to_text(other),
            };
            return Err(format!(
                "\"inputSchema\" must describe an object (\"type\": \"object\"), not {shown}"
            ));
        }
    }
    match map.get("properties") {
        None | Some(Value::Object(_)) => Ok(schema),
        Some(_) => Err("\"inputSchema.properties\" must be an object".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_descriptions_are_cut_on_a_character_and_marked() {
        let long = "é".repeat(MAX_DESCRIPTION_CHARS + 10);
        let cut = cut_description(&long);
        assert!(cut.starts_with(&"é".repeat(MAX_DESCRIPTION_CHARS)));
        assert!(cut.ends_with("[description cut: 10 of 2058 characters, over the limit of 2048]"));
        let exact = "x".repeat(MAX_DESCRIPTION_CHARS);
        assert!(matches!(cut_description(&exact), Cow::Borrowed(_)));
    }

    #[test]
    fn only_object_schemas_pass() {
        assert_eq!(object_schema(json!({})), Ok(json!({"type": "object"})));
        let ok = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(object_schema(ok.clone()), Ok(ok));
        for (bad, needle) in [
            (json!({"type": "string"}), "not \"string\""),
            (
                json!({"type": ["object", "null"]}),
                "not [\"object\",\"null\"]",
            ),
            (json!({"type": "object", "properties": [1]}), "properties"),
            (json!("object"), "must be an object"),
        ] {
            let error = object_schema(bad.clone()).unwrap_err();
            assert!(error.contains(needle), "{bad}: {error}");
        }
    }

    fn many(n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
            .collect()
    }

    #[test]
    fn a_server_listing_ten_thousand_tools_gets_its_first_thousand_and_a_reason() {
        let mut reg = super::super::Registry::new();
        let report = reg.load_server("big", &many(10_000));
        assert_eq!(report.loaded.len(), MAX_TOOLS_PER_SERVER);
        assert_eq!(report.loaded.last().unwrap(), "mcp__big__t999");
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].name, "#1000…#9999");
        assert!(report.skipped[0]
            .reason
            .contains("9000 more tools over the limit of 1000 tools per server"));
        assert_eq!(reg.skipped_tools("big"), report.skipped.as_slice());
        // A clean reload forgets the old reasons.
        let report = reg.load_server("big", &many(3));
        assert!(report.is_clean() && reg.skipped_tools("big").is_empty());
    }

    #[test]
    fn the_registry_holds_at_most_its_total_of_mcp_tools() {
        let mut reg = super::super::Registry::new();
        for server in ["a", "b", "c", "d"] {
            assert!(reg
                .load_server(server, &many(MAX_TOOLS_PER_SERVER))
                .is_clean());
        }
        let report = reg.load_server("e", &many(5));
        assert!(report.loaded.is_empty());
        assert!(
            report.skipped[0].reason.contains("4000 MCP tools in all"),
            "{report:?}"
        );
        // Reloading a server that is already counted is not refused for its own tools.
        assert!(reg.load_server("d", &many(MAX_TOOLS_PER_SERVER)).is_clean());
    }

    #[test]
    fn loaded_tools_have_object_schemas_and_cut_descriptions() {
        let mut reg = super::super::Registry::new();
        let report = reg.load_server(
            "s",
            &[
                json!({"name": "str", "inputSchema": {"type": "string"}}),
                json!({"name": "untyped", "inputSchema": {"properties": {}}}),
                json!({"name": "long", "description": "d".repeat(10_000)}),
            ],
        );
        assert_eq!(report.loaded, ["mcp__s__untyped", "mcp__s__long"]);
        assert_eq!(report.skipped[0].name, "str");
        assert!(report.skipped[0].reason.contains("must describe an object"));
        assert_eq!(
            reg.get("mcp__s__untyped").unwrap().input_schema["type"],
            "object"
        );
        let long = &reg.get("mcp__s__long").unwrap().description;
        assert!(
            long.chars().count() < MAX_DESCRIPTION_CHARS + 100,
            "{}",
            long.len()
        );
        assert!(long.ends_with("over the limit of 2048]"));
    }
}
