//! The agents of a session and the one `Agent` tool that dispatches them.
//!
//! The tool's description carries the catalog: every agent's name and description, sorted by
//! name and cut to a character budget, so the tool definition (and with it the prompt prefix)
//! is byte-stable for the session whatever order the files were found in.

use super::definition::{AgentDefinition, GENERAL_PURPOSE};
use super::AGENT_TOOL;
use crate::registry::{char_prefix, Risk, ToolSpec};
use serde_json::Value;
use std::time::Duration;

/// Characters of the catalog in the `Agent` tool's description (about 1,000 tokens).
pub const DEFAULT_AGENT_CATALOG_CHARS: usize = 4_000;
/// Longest description of one agent in the catalog, in characters.
const MAX_ENTRY_CHARS: usize = 300;
/// Longest child answer given back to the parent, in characters.
pub const MAX_ANSWER_CHARS: usize = 50_000;

/// Every agent of a session, with precedence and collisions resolved: a definition from a
/// higher [`rank`](AgentSet::insert) keeps its name; plugins' agents are `plugin:name`.
#[derive(Clone, Debug, Default)]
pub struct AgentSet {
    agents: Vec<(u8, AgentDefinition)>,
    notes: Vec<String>,
}

/// Precedence of a definition's source: host (npm code) > user > project > plugin > built-in,
/// as for skills (a project never shadows the user's own agents).
fn rank(source: &str) -> u8 {
    match source {
        "host" => 0,
        "user" => 1,
        "project" => 2,
        s if s.starts_with("plugin:") => 3,
        "built-in" => 5,
        _ => 4,
    }
}

impl AgentSet {
    /// A set with only the built-in general-purpose agent.
    pub fn with_builtin() -> Self {
        let mut set = AgentSet::default();
        set.insert(AgentDefinition::general_purpose());
        set
    }

    /// Adds `def` (with what its scope cannot honour as written added to its warnings); when
    /// its name is taken, the definition whose source ranks higher keeps it and a note says
    /// which one was shadowed.
    pub fn insert(&mut self, mut def: AgentDefinition) {
        def.warnings.extend(super::scope::scope_warnings(&def));
        let new_rank = rank(&def.source);
        // Kept in name order, so `sorted` needs no sort (nor the npm runtime a sort's code).
        match self.agents.binary_search_by(|(_, d)| d.name.cmp(&def.name)) {
            Err(at) => self.agents.insert(at, (new_rank, def)),
            Ok(at) => {
                let (old_rank, old) = &self.agents[at];
                if new_rank < *old_rank {
                    self.notes.push(format!(
                        "agent {}: {} takes precedence over {}",
                        def.name, def.source, old.source
                    ));
                    self.agents[at] = (new_rank, def);
                } else {
                    self.notes.push(format!(
                        "agent {}: {} takes precedence over {}",
                        def.name, old.source, def.source
                    ));
                }
            }
        }
    }

    /// The agent called `name`.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.agents.iter().map(|(_, d)| d).find(|d| d.name == name)
    }

    /// Every agent, sorted by name.
    pub fn sorted(&self) -> Vec<&AgentDefinition> {
        self.agents.iter().map(|(_, d)| d).collect()
    }

    /// Collisions resolved so far, as sentences.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Whether there is no agent at all.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The `Agent` tool for this set ([`agent_tool`]), its catalog cut to `budget` characters;
    /// `None` for an empty set.
    pub fn tool_spec(&self, budget: usize) -> Option<ToolSpec> {
        let (description, schema) = self.tool_text(budget)?;
        Some(agent_tool(description, schema))
    }

    /// A set of `agents` whose precedence was resolved already, in name order as
    /// [`sorted`](Self::sorted) gives them (the npm package's `ext` module resolved it:
    /// [`definition_from_record`](super::definition_from_record)).
    pub fn from_resolved(agents: Vec<AgentDefinition>) -> Self {
        AgentSet {
            agents: agents
                .into_iter()
                .map(|def| (rank(&def.source), def))
                .collect(),
            notes: Vec::new(),
        }
    }

    /// The `Agent` tool's description, its catalog cut to `budget` characters, and its input
    /// schema; `None` for an empty set.
    pub fn tool_text(&self, budget: usize) -> Option<(String, Value)> {
        if self.is_empty() {
            return None;
        }
        let sorted = self.sorted();
        let mut catalog = String::new();
        let mut left_out = 0;
        for def in &sorted {
            let summary = one_line(&def.description);
            let entry = format!(
                "- {}: {}\n",
                def.name,
                char_prefix(&summary, MAX_ENTRY_CHARS).0
            );
            if catalog.chars().count() + entry.chars().count() > budget {
                left_out += 1;
                continue;
            }
            catalog.push_str(&entry);
        }
        if left_out > 0 {
            catalog.push_str(&format!(
                "- ({left_out} more agents not listed; pass their name as subagent_type)\n"
            ));
        }
        let description = format!(
            "Start a subagent: a child agent with a fresh context and its own instructions and \
             tools (never more than yours) that works on one task and answers with a report, \
             which comes back as this tool's result. Give it a complete, self-contained task \
             in `prompt`. Several Agent calls in one turn run in parallel.\n\
             Available agents (subagent_type):\n{}",
            catalog.trim_end()
        );
        let names: Vec<&str> = sorted.iter().map(|d| d.name.as_str()).collect();
        // Parsed from text rather than built with `json!`: the module has the parser anyway,
        // and the macro's inserts cost more wasm than the text. Same keys, same order.
        let mut schema = crate::json::parse_str(AGENT_SCHEMA).unwrap_or_default();
        schema["properties"]["subagent_type"]["enum"] = names.into();
        Some((description, schema))
    }
}

/// The `Agent` tool with `description` and input `schema` ([`AgentSet::tool_text`]). Risk
/// `read`: dispatching does nothing by itself, every call a child makes is gated.
/// Concurrency-safe, so several children of one turn run at once.
pub fn agent_tool(description: String, schema: Value) -> ToolSpec {
    ToolSpec::builtin(AGENT_TOOL, description, schema, Risk::Read)
        .with_concurrency_safe(true)
        .with_max_output_chars(MAX_ANSWER_CHARS)
        .with_timeout(Duration::from_secs(3600))
}

/// The `Agent` tool's input schema, without the `enum` of agent names.
const AGENT_SCHEMA: &str = r#"{"type":"object","properties":{"description":{"type":"string","description":"A short (3-5 word) description of the task."},"prompt":{"type":"string","description":"The task for the agent to perform."},"subagent_type":{"type":"string","enum":[],"description":"The agent to use."}},"required":["description","prompt"]}"#;

/// Collapses whitespace runs (newlines included) to single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the model passed to the `Agent` tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentRequest {
    /// A short description of the task (for progress lines).
    pub description: String,
    /// The child's first user message.
    pub prompt: String,
    /// The agent to run (default: general-purpose).
    pub subagent_type: String,
}

impl AgentRequest {
    /// Reads the tool's arguments; an error names the missing or mistyped field.
    pub fn parse(arguments: &Value) -> Result<AgentRequest, String> {
        // One plain loop over the three fields: a closure per field compiles to more wasm.
        let mut fields = [String::new(), String::new(), String::new()];
        for (i, key) in ["description", "prompt", "subagent_type"]
            .iter()
            .enumerate()
        {
            match arguments.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::String(text)) => fields[i].clone_from(text),
                Some(_) => return Err(format!("{AGENT_TOOL}: `{key}` must be a string")),
            }
        }
        let [description, prompt, mut subagent_type] = fields;
        if prompt.trim().is_empty() {
            return Err(format!("{AGENT_TOOL}: `prompt` is required"));
        }
        if subagent_type.is_empty() {
            subagent_type = GENERAL_PURPOSE.to_owned();
        }
        Ok(AgentRequest {
            description,
            prompt,
            subagent_type,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_schema_text_is_the_schema_with_every_name_in_its_enum() {
        let spec = AgentSet::with_builtin().tool_spec(4_000).unwrap();
        let want = json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) description of the task."},
                "prompt": {"type": "string", "description": "The task for the agent to perform."},
                "subagent_type": {"type": "string", "enum": ["general-purpose"], "description": "The agent to use."}
            },
            "required": ["description", "prompt"]
        });
        assert_eq!(spec.input_schema, want);
        // Same keys in the same order: the prompt prefix is byte-for-byte what it was.
        assert_eq!(
            serde_json::to_string(&spec.input_schema).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
    }

    fn def(name: &str, source: &str, description: &str) -> AgentDefinition {
        AgentDefinition {
            name: name.into(),
            source: source.into(),
            description: description.into(),
            ..AgentDefinition::default()
        }
    }

    #[test]
    fn the_catalog_is_sorted_and_does_not_depend_on_discovery_order() {
        let mut a = AgentSet::with_builtin();
        a.insert(def("zeta", "user", "Z agent."));
        a.insert(def("alpha", "project", "A\n  agent."));
        let mut b = AgentSet::default();
        b.insert(def("alpha", "project", "A\n  agent."));
        b.insert(def("zeta", "user", "Z agent."));
        b.insert(AgentDefinition::general_purpose());
        let (sa, sb) = (a.tool_spec(4000).unwrap(), b.tool_spec(4000).unwrap());
        assert_eq!(sa, sb);
        let alpha = sa.description.find("- alpha: A agent.").unwrap();
        let general = sa.description.find("- general-purpose:").unwrap();
        let zeta = sa.description.find("- zeta: Z agent.").unwrap();
        assert!(alpha < general && general < zeta, "{}", sa.description);
        assert_eq!(
            sa.input_schema["properties"]["subagent_type"]["enum"],
            json!(["alpha", "general-purpose", "zeta"])
        );
        assert!(sa.concurrency_safe);
        assert_eq!(sa.risk, Risk::Read);
    }

    #[test]
    fn the_catalog_keeps_to_its_budget() {
        let mut set = AgentSet::default();
        for n in 0..50 {
            set.insert(def(&format!("agent-{n:02}"), "user", &"word ".repeat(100)));
        }
        let spec = set.tool_spec(1000).unwrap();
        let catalog = spec.description.split("(subagent_type):\n").nth(1).unwrap();
        assert!(catalog.chars().count() < 1100, "{}", catalog.len());
        assert!(catalog.contains("more agents not listed"), "{catalog}");
        assert_eq!(
            spec.input_schema["properties"]["subagent_type"]["enum"]
                .as_array()
                .unwrap()
                .len(),
            50,
            "every agent stays callable"
        );
    }

    #[test]
    fn user_agents_beat_project_agents_whatever_the_order() {
        for order in [["user", "project"], ["project", "user"]] {
            let mut set = AgentSet::default();
            for source in order {
                set.insert(def("reviewer", source, source));
            }
            assert_eq!(set.get("reviewer").unwrap().source, "user");
            assert_eq!(
                set.notes(),
                ["agent reviewer: user takes precedence over project"]
            );
        }
        let mut set = AgentSet::with_builtin();
        set.insert(def(GENERAL_PURPOSE, "project", "mine"));
        assert_eq!(set.get(GENERAL_PURPOSE).unwrap().source, "project");
        assert!(AgentSet::default().tool_spec(100).is_none());
    }

    #[test]
    fn requests_are_checked_field_by_field() {
        let req = AgentRequest::parse(&json!({"description": "d", "prompt": "p"})).unwrap();
        assert_eq!(req.subagent_type, GENERAL_PURPOSE);
        let err = AgentRequest::parse(&json!({"description": "d"})).unwrap_err();
        assert!(err.contains("`prompt` is required"), "{err}");
        let err = AgentRequest::parse(&json!({"prompt": "p", "subagent_type": 3})).unwrap_err();
        assert!(err.contains("`subagent_type` must be a string"), "{err}");
    }
}
