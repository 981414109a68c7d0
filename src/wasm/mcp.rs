//! `WasmAgent`'s MCP resources, prompts and completion (see [`crate::driver::Runtime`]), behind
//! one entry point so the wasm module carries one promise wrapper for all of them.

use super::agent::WasmAgent;
use crate::json::{parse_str, to_text};
use js_sys::Promise;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen]
impl WasmAgent {
    /// Runs MCP operation `op` with `args_json` (`{server?, uri?, name?, args?, prompt?,
    /// argument?, value?, context?}`): `resources`, `readResource`, `prompts`, `getPrompt` or
    /// `complete`. Resolves to the result's JSON text; rejects with the error's message.
    pub fn mcp(&self, op: String, args_json: &str) -> Promise {
        let runtime = self.runtime().clone();
        let args = parse_str(args_json).unwrap_or(Value::Null);
        future_to_promise(async move {
            let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
            let object = |key: &str| args.get(key).cloned().unwrap_or_else(|| json!({}));
            let server = args.get("server").and_then(Value::as_str);
            let result = match op.as_str() {
                "resources" => runtime.resources(server).await,
                "prompts" => runtime.prompts(server).await.map(Value::from),
                "readResource" => runtime
                    .read_resource(text("server"), text("uri"))
                    .await
                    .map(|output| {
                        let contents = output.content.iter();
                        json!({"contents": contents.map(|b| b.to_value()["resource"].take()).collect::<Vec<_>>()})
                    }),
                "getPrompt" => runtime.get_prompt(text("server"), text("name"), object("args")).await,
                "complete" => runtime
                    .complete(text("server"), text("prompt"), text("argument"), text("value"), object("context"))
                    .await
                    .map(Value::from),
                other => Err(format!("unknown MCP operation {other}")),
            };
            match result {
                Ok(value) => Ok(JsValue::from_str(&to_text(&value))),
                Err(e) => Err(JsError::new(&e).into()),
            }
        })
    }
}
