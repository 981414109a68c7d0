//! Deferred tool loading for JS: the `toolSearch` and `defer` options, the host searcher, and
//! what `agent.tools()` says about loading.

use super::agent::WasmAgent;
use super::js::{error_text, expect_string, settle};
use crate::agent::Agent;
use crate::driver::ToolSearcher;
use crate::json::strings;
use crate::model::ToolDefinition;
use crate::tool_search::{
    estimate_tokens, Defer, Reveal, ServerDefer, ToolSearchConfig, ToolSearchMode, ToolSession,
    DEFAULT_THRESHOLD_TOKENS,
};
use js_sys::Function;
use serde_json::{Map, Value};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn tokens(obj: &Map<String, Value>, key: &str) -> Option<u32> {
    obj.get(key)
        .and_then(Value::as_u64)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// `toolSearch` (`{mode, threshold?, reveal?, limit?, alwaysLoad?}`, checked by the JS layer)
/// and `contextWindow` of the agent options; absent fields keep the core's defaults.
pub(super) fn config_from(options: &Map<String, Value>) -> ToolSearchConfig {
    let mut config = ToolSearchConfig {
        context_window: tokens(options, "contextWindow"),
        ..ToolSearchConfig::default()
    };
    let Some(Value::Object(search)) = options.get("toolSearch") else {
        return config;
    };
    let threshold_tokens = tokens(search, "threshold").unwrap_or(DEFAULT_THRESHOLD_TOKENS);
    config.mode = match search.get("mode").and_then(Value::as_str) {
        Some("on") => ToolSearchMode::On,
        Some("off") => ToolSearchMode::Off,
        _ => ToolSearchMode::Auto { threshold_tokens },
    };
    // The JS layer accepts only "bridge" and "append": no second check (and error text) here.
    if search.get("reveal").and_then(Value::as_str) == Some("append") {
        config.reveal = Reveal::Append;
    }
    if let Some(limit) = search.get("limit").and_then(Value::as_u64) {
        config.limit = u8::try_from(limit).unwrap_or(u8::MAX);
    }
    config.always_load = strings(search.get("alwaysLoad"));
    config
}

/// A server's `defer` (`true`, `false` or `"auto"`) and `alwaysLoad` from its connect options,
/// when either was given.
pub(super) fn server_defer(options: &Map<String, Value>) -> Option<ServerDefer> {
    let defer = match options.get("defer") {
        Some(Value::Bool(true)) => Defer::Always,
        Some(Value::Bool(false)) => Defer::Never,
        _ => Defer::Auto,
    };
    let always_load = strings(options.get("alwaysLoad"));
    (defer != Defer::Auto || !always_load.is_empty()).then_some(ServerDefer { defer, always_load })
}

/// Estimated tokens of the `tools` the next model request carries.
pub(super) fn request_tokens(agent: &Agent) -> u64 {
    let registry = agent.registry();
    let tools = match agent.tool_session() {
        Some(session) => session.request_tools(registry),
        None => ToolSession::start(registry, &agent.config().tool_search).request_tools(registry),
    };
    tools.iter().map(|t| u64::from(estimate_tokens(t))).sum()
}

/// A searcher behind `search(query, limit) → Promise<namesJson>`. The JS layer reads the
/// catalog from `tools()` (the tools marked deferred, with their definitions, servers and
/// server-side names), so the runtime passes no second description of it; names outside the
/// live catalog are dropped from the answer anyway (`tool_search::rank`).
fn js_searcher(search: Function) -> ToolSearcher {
    Rc::new(
        move |query: String, _catalog: Vec<ToolDefinition>, limit: usize| {
            let search = search.clone();
            Box::pin(async move {
                let returned = search
                    .call2(
                        &JsValue::NULL,
                        &JsValue::from_str(&query),
                        &JsValue::from_f64(limit as f64),
                    )
                    .map_err(|e| error_text(&e))?;
                let text = expect_string(settle(returned).await?, "the tool searcher")?;
                match crate::json::parse_str(&text) {
                    Ok(value @ Value::Array(_)) => Ok(strings(Some(&value))),
                    _ => Err("the tool searcher did not return an array of names".to_owned()),
                }
            })
        },
    )
}

#[wasm_bindgen]
impl WasmAgent {
    /// Sets the host's `tool_search` ranking (`search(query, limit) → Promise<namesJson>`), or removes it (`undefined`). The runtime module has no lexical
    /// index: this ranking is the answer (the JS layer ranks with the search module).
    #[wasm_bindgen(js_name = setToolSearcher)]
    pub fn set_tool_searcher(&self, search: Option<Function>) {
        self.runtime().set_tool_searcher(search.map(js_searcher));
    }

    /// Estimated tokens of the tool definitions the next model request carries.
    #[wasm_bindgen(js_name = requestTokens)]
    pub fn request_tokens(&self) -> f64 {
        self.runtime().with_agent(|agent| request_tokens(agent)) as f64
    }
}
