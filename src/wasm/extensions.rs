//! Skills, prompt commands and JS plugins on [`WasmAgent`]. Skills arrive already parsed (the
//! record of [`crate::ext::skill_json`]; the parsers live in the `ext` module), so this module
//! only places them: host items in [`Scope::Host`], a plugin's in its own namespace.
//!
//! What a plugin contributes goes through the same paths as anything else: its tools are
//! registry tools named `plugin__<p>__<tool>` (risk = max(declared, inferred) unless the host
//! trusts it), its servers are MCP servers named `plugin_<p>_<s>` (never with sampling), and its
//! code calls tools through [`WasmAgent::call_gated`], which can ask and never bypasses a rule.

use super::agent::{attach, limits_from, parse_object, resolve_json, WasmAgent};
use super::backends::JsObserver;
use super::transport::{JsTransport, Probe};
use crate::driver::NotRun;
use crate::ext::{skill_from_json, skill_json, Scope, Skill};
use crate::json::to_text;
use crate::registry::names::{plugin_part, plugin_server_name, plugin_tool_name};
use crate::registry::{Risk, ToolSpec};
use js_sys::{Function, Promise};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

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

#[wasm_bindgen]
impl WasmAgent {
    /// Adds parsed skills and commands (`records_json`: an array of records) for the host, or
    /// for plugin `plugin` (`trusted`: whether their `allowed-tools` grants count). All or
    /// nothing: a bad record throws naming its index and field, and nothing is added. Returns
    /// the collisions as a JSON array of `{name, winner, shadowed, message}`.
    #[wasm_bindgen(js_name = addSkills)]
    pub fn add_skills(
        &self,
        records_json: &str,
        plugin: Option<String>,
        trusted: bool,
    ) -> Result<String, JsError> {
        let records = match crate::json::parse_str(records_json) {
            Ok(Value::Array(list)) => list,
            _ => return Err(JsError::new("the skills must be a JSON array")),
        };
        let scope = scope_of(plugin.as_deref(), trusted);
        let skills = records
            .iter()
            .enumerate()
            .map(|(i, record)| {
                skill_from_json(record, scope.clone()).map_err(|e| format!("skills[{i}]: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| JsError::new(&e))?;
        let collisions: Vec<Value> = self.runtime().with_agent(|agent| {
            let found = skills
                .into_iter()
                .flat_map(|skill| agent.skills_mut().insert(skill))
                .map(|c| json!({"name": c.name, "winner": c.winner, "shadowed": c.shadowed, "message": c.message}))
                .collect();
            agent.refresh_skill_tools();
            found
        });
        Ok(to_text(&Value::Array(collisions)))
    }

    /// Removes the skill or command `qualified` reaches; false when none.
    #[wasm_bindgen(js_name = removeSkill)]
    pub fn remove_skill(&self, qualified: &str) -> bool {
        self.runtime().with_agent(|agent| {
            let removed = agent.skills_mut().remove(qualified).is_some();
            agent.refresh_skill_tools();
            removed
        })
    }

    /// Every skill and command, sorted by qualified name, as a JSON array of records without
    /// their bodies.
    pub fn skills(&self) -> String {
        let items: Vec<Value> = self
            .runtime()
            .with_agent(|agent| agent.skills().items().into_iter().map(listed).collect());
        to_text(&Value::Array(items))
    }

    /// The qualified name `/name args` in `input` reaches, or `undefined` when it names no
    /// skill or command (what `run` would then send to the model as written).
    #[wasm_bindgen(js_name = resolveCommand)]
    pub fn resolve_command(&self, input: &str) -> Option<String> {
        self.runtime().with_agent(|agent| {
            agent
                .skills()
                .resolve(input)
                .map(|inv| inv.skill.qualified.clone())
        })
    }

    /// Registers tool `spec_json` of plugin `plugin` as `plugin__<plugin>__<tool>` (see
    /// [`WasmAgent::register_tool`] for the spec); returns the registered name. Unless
    /// `trusted`, the declared risk only counts when it is not lower than the name suggests.
    #[wasm_bindgen(js_name = registerPluginTool)]
    pub fn register_plugin_tool(
        &self,
        plugin: &str,
        spec_json: &str,
        execute: Function,
        trusted: bool,
    ) -> Result<String, JsError> {
        let spec = parse_object(spec_json, "the tool")?;
        let text = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or_default();
        let risk = Risk::parse(text("risk")).map_err(|e| JsError::new(&e))?;
        let schema = spec
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        let limits = self
            .runtime()
            .with_agent(|agent| limits_from(&spec, agent.registry().limits_for("")));
        let tool = ToolSpec::builtin(text("name"), text("description"), schema, risk)
            .with_timeout(limits.timeout)
            .with_max_output_chars(limits.max_output_chars);
        let name = self
            .runtime()
            .with_agent(|agent| {
                agent
                    .registry_mut()
                    .register_plugin_tool(plugin, tool, trusted)
            })
            .map_err(|e| JsError::new(&e.to_string()))?;
        self.js_tools().insert(&name, execute);
        Ok(name)
    }

    /// The model-facing names plugin `plugin`'s tool `tool` and server `server` get:
    /// `{tool, server, plugin}` JSON (`plugin` as it appears in names and scopes).
    #[wasm_bindgen(js_name = pluginNames)]
    pub fn plugin_names(plugin: &str, tool: &str, server: &str) -> String {
        to_text(&json!({
            "plugin": plugin_part(plugin),
            "tool": plugin_tool_name(plugin, tool),
            "server": plugin_server_name(plugin, server),
        }))
    }

    /// Connects plugin `plugin`'s MCP server `server` as `plugin_<plugin>_<server>` (see
    /// [`WasmAgent::connect`]); sampling is never offered to a plugin's server.
    #[wasm_bindgen(js_name = connectPluginServer)]
    pub fn connect_plugin_server(
        &self,
        plugin: &str,
        server: &str,
        transport: JsValue,
        options_json: &str,
    ) -> Promise {
        let runtime = Rc::clone(self.runtime());
        let name = plugin_server_name(plugin, server);
        let mut options = parse_object(options_json, "the connect options").unwrap_or_default();
        options.remove("sampling");
        future_to_promise(async move {
            let probe = Rc::new(RefCell::new(Probe::default()));
            let transport = JsTransport::new(transport, Rc::clone(&probe));
            resolve_json(attach(runtime, name, options, transport, probe).await)
        })
    }

    /// Removes exactly plugin `plugin`'s tools, servers, skills and commands; returns the
    /// counts as `{tools, servers, skills}` JSON.
    #[wasm_bindgen(js_name = removePlugin)]
    pub fn remove_plugin(&self, plugin: &str) -> String {
        let part = plugin_part(plugin);
        let prefix = format!("plugin_{part}_");
        let servers: Vec<String> = self
            .runtime()
            .servers()
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| name.starts_with(&prefix))
            .collect();
        for server in &servers {
            self.runtime().remove_server(server);
        }
        let tool_prefix = plugin_tool_name(&part, "");
        let (tools, skills) = self.runtime().with_agent(|agent| {
            let names: Vec<String> = agent
                .registry()
                .tools()
                .iter()
                .filter(|t| t.plugin() == Some(part.as_str()) && t.server().is_none())
                .map(|t| t.name.clone())
                .collect();
            agent.registry_mut().remove_plugin(&part);
            let skills = agent.skills_mut().remove_plugin(&part);
            agent.refresh_skill_tools();
            (names, skills)
        });
        for name in &tools {
            debug_assert!(name.starts_with(&tool_prefix));
            self.js_tools().remove(name);
        }
        to_text(&json!({"tools": tools.len(), "servers": servers.len(), "skills": skills}))
    }

    /// Calls tool `name` for `origin` (`plugin:<p>`) through the whole gate: a deny rule
    /// refuses, an ask rule or a risky tool asks `approve` (none: declined). Resolves like
    /// [`WasmAgent::call_tool`]; rejects when the gate refused or the user declined.
    #[wasm_bindgen(js_name = callGated)]
    pub fn call_gated(
        &self,
        name: String,
        args_json: &str,
        origin: String,
        emit: Function,
        approve: Option<Function>,
    ) -> Promise {
        let runtime = Rc::clone(self.runtime());
        let arguments = crate::json::parse_str(args_json);
        future_to_promise(async move {
            let arguments =
                arguments.map_err(|e| JsError::new(&format!("arguments are not JSON: {e}")))?;
            let observer = JsObserver::new(emit, approve);
            match runtime
                .call_gated(&name, arguments, &origin, &observer)
                .await
            {
                Ok(output) => resolve_json(super::agent::direct_output_value(output)),
                Err(NotRun::Refused(error)) => Err(JsError::new(&error.to_string()).into()),
                Err(other) => Err(JsError::new(&other.to_string()).into()),
            }
        })
    }

    /// Serves `read_skill_file` for skills the host gave (`read(argsJson) → Promise<result>`,
    /// like a JS tool); the core has already confined `path` to the skill's listed files.
    #[wasm_bindgen(js_name = setSkillFileReader)]
    pub fn set_skill_file_reader(&self, read: Function) {
        self.js_tools()
            .insert(crate::ext::tools::READ_SKILL_FILE, read);
    }
}
