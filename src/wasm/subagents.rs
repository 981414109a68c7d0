//! The npm package's subagents: `agents`, `maxAgentDepth` and `agentTokenBudget` of the agent
//! options, read into the runtime (see `crate::subagent`), and the models their definitions
//! name (`models`). The JS layer has the `ext` module
//! read `agents` first (`agentSetRecord`: checks, precedence, the `Agent` tool's catalog), so
//! `agents` arrives here as that module's record and the runtime module carries no parsing.

use super::agent::{JsRuntime, WasmAgent};
use crate::subagent::{
    agent_tool, definition_from_record, AgentSet, DEFAULT_MAX_DEPTH, DEFAULT_TOKEN_BUDGET,
};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Sets the runtime's agents and limits from `options`; without `agents`, no `Agent` tool.
pub(super) fn configure(runtime: &JsRuntime, options: &Map<String, Value>) -> Result<(), JsError> {
    let Some(record) = options.get("agents").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let agents = record["agents"].as_array().map_or(&[][..], Vec::as_slice);
    let set = AgentSet::from_resolved(agents.iter().map(definition_from_record).collect());
    let description = record["description"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let spec = agent_tool(description, record["schema"].clone());
    let count =
        |key: &str, default: u64| options.get(key).and_then(Value::as_u64).unwrap_or(default);
    let depth =
        u32::try_from(count("maxAgentDepth", u64::from(DEFAULT_MAX_DEPTH))).unwrap_or(u32::MAX);
    runtime.set_agents_with_tool(set, Some(spec));
    runtime.set_subagent_limits(depth, count("agentTokenBudget", DEFAULT_TOKEN_BUDGET));
    Ok(())
}

#[wasm_bindgen]
impl WasmAgent {
    /// The models agents may name (`names[i]` is `models[i]`, each `complete(requestJson) →
    /// Promise<responseJson>` like the agent's own): a definition's `model` picks one; absent or
    /// `inherit`, the child runs on the agent's model. A name none of them has fails the child's
    /// start naming the agent (the JS layer refuses such definitions up front).
    #[wasm_bindgen(js_name = setAgentModels)]
    pub fn set_agent_models(&self, names: Vec<String>, models: js_sys::Array) {
        use crate::driver::ModelBackend;
        use std::rc::Rc;
        let named: Vec<(String, Rc<dyn ModelBackend>)> = names
            .into_iter()
            .zip(models.iter())
            .map(|(name, f)| {
                let model: Rc<dyn ModelBackend> =
                    Rc::new(super::backends::JsModel::new(f.unchecked_into()));
                (name, model)
            })
            .collect();
        self.runtime().set_model_resolver(Some(Rc::new(move |def| {
            let name = def.model.as_deref().unwrap_or("inherit");
            if name == "inherit" {
                return Ok(None);
            }
            match named.iter().find(|(n, _)| n == name) {
                Some((_, model)) => Ok(Some(Rc::clone(model))),
                None => Err(format!(
                    "unknown model {}: not one of the agent's models",
                    crate::json::quoted(name)
                )),
            }
        })));
    }
}
