//! Skills, prompt commands and JS plugins on [`WasmAgent`]. Skills arrive already parsed (the
//! record of [`crate::ext::skill_json`]; the parsers live in the `ext` module), so this module
//! only places them: host items in [`Scope::Host`], a plugin's in its own namespace.
//!
//! What a plugin contributes goes through the same paths as anything else: its tools are
//! registry tools named `plugin__<p>__<tool>` (risk = max(declared, inferred) unless the host
//! trusts it), its servers are MCP servers named `plugin_<p>_<s>` (never with sampling), and its
//! code calls tools through [`WasmAgent::call_tool`] with an origin, which can ask and never
//! bypasses a rule.

use super::agent::WasmAgent;
use crate::ext::{skill_from_json, skill_json, Scope, Skill};
use crate::json::to_text;
use crate::registry::names::{plugin_part, plugin_tool_name};
use js_sys::Function;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// The scope of items a plugin (`Some(name)`) or the host (`None`) adds.
fn scope_of(plugin: Option<&str>, trusted: bool) -> Scope {
    match plugin {
        Some(name) => Scope::Plugin {
            plugin: plugin_part(name),
            trusted,
        },
        None => Scope::Host,
    }
}

/// A listing entry: the record without its body (`bodyChars` tells its size).
fn listed(skill: &Skill) -> Value {
    let mut value = skill_json(skill);
    if let Some(map) = value.as_object_mut() {
        map.remove("body");
    }
    value
}

impl WasmAgent {
    /// Adds parsed records for the host or for plugin `plugin` (all or nothing); returns the
    /// collisions.
    fn add_skills(&self, args: &Value) -> Result<Value, String> {
        let Some(Value::Array(records)) = args.get("records") else {
            return Err("\"records\" must be an array".into());
        };
        let plugin = args.get("plugin").and_then(Value::as_str);
        let trusted = args.get("trusted") == Some(&Value::Bool(true));
        let scope = scope_of(plugin, trusted);
        let mut skills = Vec::new();
        for (i, record) in records.iter().enumerate() {
            skills.push(
                skill_from_json(record, scope.clone()).map_err(|e| format!("skills[{i}]: {e}"))?,
            );
        }
        Ok(self.runtime().with_agent(|agent| {
            let mut collisions = Vec::new();
            for skill in skills {
                for c in agent.skills_mut().insert(skill) {
                    collisions.push(Value::from(c.message));
                }
            }
            agent.refresh_skill_tools();
            Value::Array(collisions)
        }))
    }

    /// Removes exactly plugin `plugin`'s tools, servers, skills and commands.
    fn remove_plugin(&self, plugin: &str) -> Value {
        let part = plugin_part(plugin);
        let prefix = format!("plugin_{part}_");
        for (server, _) in self.runtime().servers() {
            if server.starts_with(&prefix) {
                self.runtime().remove_server(&server);
            }
        }
        let removed = self.runtime().with_agent(|agent| {
            let tools = agent.registry_mut().remove_plugin(&part);
            let skills = agent.skills_mut().remove_plugin(&part);
            agent.refresh_skill_tools();
            tools + skills
        });
        self.js_tools()
            .remove_prefixed(&plugin_tool_name(&part, ""));
        Value::from(removed)
    }
}

#[wasm_bindgen]
impl WasmAgent {
    /// Skills, commands and plugins, one entry for the synchronous operations (one export
    /// costs the module less than six). `op` and `args_json`:
    /// - `add` `{records, plugin?, trusted?}`: parsed records (see [`skill_json`]) for the host
    ///   or a plugin, all or nothing (a bad record throws naming its index and field) → the
    ///   collisions' messages;
    /// - `remove` `{name}`: the skill or command `name` reaches → whether there was one;
    /// - `list` `{}`: every item sorted by qualified name, records without bodies;
    /// - `resolve` `{input}`: the qualified name `/name args` reaches, or null (then `run`
    ///   sends the text as written);
    /// - `names` `{plugin, tool}`: `{plugin, tool}` as they appear in names and scopes;
    /// - `removePlugin` `{plugin}`: exactly its tools, servers, skills, commands → how many.
    pub fn extensions(&self, op: &str, args_json: &str) -> Result<String, JsError> {
        let args = crate::json::parse_str(args_json).unwrap_or(Value::Null);
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
        let out = match op {
            "add" => self.add_skills(&args).map_err(|e| JsError::new(&e))?,
            "remove" => Value::from(self.runtime().with_agent(|agent| {
                let removed = agent.skills_mut().remove(text("name")).is_some();
                agent.refresh_skill_tools();
                removed
            })),
            "list" => Value::Array(
                self.runtime()
                    .with_agent(|agent| agent.skills().items().into_iter().map(listed).collect()),
            ),
            "resolve" => self.runtime().with_agent(|agent| {
                let resolved = agent.skills().resolve(text("input"));
                resolved.map_or(Value::Null, |inv| inv.skill.qualified.as_str().into())
            }),
            "names" => json!({
                "plugin": plugin_part(text("plugin")),
                "tool": plugin_tool_name(text("plugin"), text("tool")),
            }),
            "removePlugin" => self.remove_plugin(text("plugin")),
            other => return Err(JsError::new(&format!("unknown operation {other}"))),
        };
        Ok(to_text(&out))
    }

    /// Serves `read_skill_file` for skills the host gave (`read(argsJson) → Promise<result>`,
    /// like a JS tool); the core has already confined `path` to the skill's listed files.
    #[wasm_bindgen(js_name = setSkillFileReader)]
    pub fn set_skill_file_reader(&self, read: Function) {
        self.js_tools()
            .insert(crate::ext::tools::READ_SKILL_FILE, read);
    }
}
