//! Skills, prompt commands and JS plugins on [`WasmAgent`]. The runtime module holds no skill
//! set (feature `skill-set` off): the JS layer keeps an agent's skills in the on-demand `ext`
//! module and answers the agent's [`SkillHost`] questions from there ([`JsSkillHost`]); the
//! gate, run grants, origins and audit stay here.
//!
//! What a plugin contributes goes through the same paths as anything else: its tools are
//! registry tools named `plugin__<p>__<tool>` (risk = max(declared, inferred) unless the host
//! trusts it), its servers are MCP servers named `plugin_<p>_<s>` (never with sampling), and its
//! code calls tools through [`WasmAgent::call_tool`] with an origin, which can ask and never
//! bypasses a rule.

use super::agent::WasmAgent;
use crate::ext::{check_from_json, Activation, Expansion, SkillHost, SkillTools};
use crate::json::{parse_str, to_text};
use crate::registry::names::{plugin_part, plugin_tool_name};
use js_sys::Function;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// A [`SkillHost`] behind `ask(op, argsJson) → answerJson`, called synchronously (the JS layer
/// answers from the `ext` module's `SkillBook.op`). A throw or a non-string answer becomes
/// `{"error"}`: a refusal for the model or the user, never a panic.
struct JsSkillHost(Function);

impl JsSkillHost {
    fn ask(&self, op: &str, args: &Value) -> Value {
        let answer = self.0.call2(
            &JsValue::NULL,
            &JsValue::from_str(op),
            &JsValue::from_str(&to_text(args)),
        );
        match answer.ok().and_then(|v| v.as_string()) {
            Some(text) => parse_str(&text).unwrap_or(Value::Null),
            None => json!({ "error": "the skill host failed" }),
        }
    }
}

impl SkillHost for JsSkillHost {
    fn tools(&self, catalog_chars: usize) -> SkillTools {
        SkillTools::from_json(&self.ask("tools", &json!({ "chars": catalog_chars })))
    }

    fn activate(&self, name: &str, arguments: &str) -> Result<Activation, String> {
        let args = json!({ "name": name, "arguments": arguments });
        Activation::from_json(&self.ask("activate", &args))
    }

    fn check_file(&self, skill: &str, path: &str) -> Result<(), String> {
        check_from_json(&self.ask("file", &json!({ "skill": skill, "path": path })))
    }

    fn expand(&self, input: &str) -> Option<Result<Expansion, String>> {
        Expansion::from_json(&self.ask("expand", &json!({ "input": input })))
    }

    #[cfg(feature = "mcp-skills")]
    fn served_remotely(&self, name: &str) -> bool {
        // The book answers `{server, uri}` for a skill an MCP server serves.
        self.ask("served", &json!({ "name": name })).is_object()
    }
}

impl WasmAgent {
    /// Removes exactly plugin `plugin`'s tools and servers (its skills and commands are the
    /// JS layer's, in the `ext` module) → how many tools.
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
            agent.refresh_skill_tools();
            tools
        });
        self.js_tools()
            .remove_prefixed(&plugin_tool_name(&part, ""));
        Value::from(removed)
    }
}

#[wasm_bindgen]
impl WasmAgent {
    /// Plugins and skills, one entry for the synchronous operations. `op` and `args_json`:
    /// - `names` `{plugin, tool}`: `{plugin, tool}` as they appear in names and scopes;
    /// - `removePlugin` `{plugin}`: exactly its tools and servers → how many tools;
    /// - `refresh` `{}`: rebuilds the skill tools from the skill host now (after the JS layer
    ///   changed the skills; a run start does it too).
    pub fn extensions(&self, op: &str, args_json: &str) -> Result<String, JsError> {
        let args = crate::json::parse_str(args_json).unwrap_or(Value::Null);
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
        let out = match op {
            "names" => json!({
                "plugin": plugin_part(text("plugin")),
                "tool": plugin_tool_name(text("plugin"), text("tool")),
            }),
            "removePlugin" => self.remove_plugin(text("plugin")),
            "refresh" => {
                self.runtime()
                    .with_agent(|agent| agent.refresh_skill_tools());
                Value::Null
            }
            other => return Err(JsError::new(&format!("unknown operation {other}"))),
        };
        Ok(to_text(&out))
    }

    /// Sets where the agent's skills come from (`ask(op, argsJson) → answerJson`, synchronous;
    /// see [`JsSkillHost`]), or removes it (`undefined`: no skills).
    #[wasm_bindgen(js_name = setSkillHost)]
    pub fn set_skill_host(&self, ask: Option<Function>) {
        self.runtime().with_agent(|agent| {
            agent.set_skill_host(ask.map(|f| Box::new(JsSkillHost(f)) as Box<dyn SkillHost>));
            agent.refresh_skill_tools();
        });
    }

    /// Serves `read_skill_file` for skills the host gave, and `activate_skill` of skills MCP
    /// servers serve (`read(argsJson) → Promise<result>`, like a JS tool); the core has already
    /// confined `path` to the skill's listed files.
    #[wasm_bindgen(js_name = setSkillFileReader)]
    pub fn set_skill_file_reader(&self, read: Function) {
        // A server skill's activation too (`{name}`): the JS layer reads and the book verifies
        // its SKILL.md (the Skills extension; the agent hands only those to the host).
        self.js_tools()
            .insert(crate::ext::tools::ACTIVATE_SKILL, read.clone());
        self.js_tools()
            .insert(crate::ext::tools::READ_SKILL_FILE, read);
    }
}
