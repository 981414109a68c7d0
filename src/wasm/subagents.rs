//! The npm package's subagents: `agents`, `maxAgentDepth` and `agentTokenBudget` of the agent
//! options, read into the runtime (see `crate::subagent`).

use super::agent::JsRuntime;
use crate::subagent::{agent_set_from_json, DEFAULT_MAX_DEPTH, DEFAULT_TOKEN_BUDGET};
use serde_json::{Map, Value};
use wasm_bindgen::JsError;

/// Sets the runtime's agents and limits from `options`; without `agents`, no `Agent` tool.
pub(super) fn configure(runtime: &JsRuntime, options: &Map<String, Value>) -> Result<(), JsError> {
    let Some(list) = options.get("agents").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let set = agent_set_from_json(list).map_err(|e| JsError::new(&e))?;
    let count =
        |key: &str, default: u64| options.get(key).and_then(Value::as_u64).unwrap_or(default);
    let depth =
        u32::try_from(count("maxAgentDepth", u64::from(DEFAULT_MAX_DEPTH))).unwrap_or(u32::MAX);
    runtime.set_agents(set);
    runtime.set_subagent_limits(depth, count("agentTokenBudget", DEFAULT_TOKEN_BUDGET));
    Ok(())
}
