//! `WasmAgent`'s MCP resources, prompts and completion (see [`crate::driver::Runtime::mcp`]),
//! behind one entry point so the wasm module carries one promise wrapper for all of them.

use super::agent::WasmAgent;
use crate::driver::McpOp;
use crate::json::{parse_str, to_text};
use js_sys::Promise;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen]
impl WasmAgent {
    /// Runs MCP operation `op` with `args_json` (`{server?, uri?, name?, args?, prompt?,
    /// argument?, value?, context?}`): `resources`, `readResource`, `prompts`, `getPrompt` or
    /// `complete`. Resolves to the result's JSON text (a read's and a prompt's as the server
    /// sent them); rejects with the error's message.
    pub fn mcp(&self, op: String, args_json: &str) -> Promise {
        let runtime = self.runtime().clone();
        let args = parse_str(args_json).unwrap_or(Value::Null);
        future_to_promise(async move {
            let text = |key: &str| args.get(key).and_then(Value::as_str);
            let object = |key: &str| args.get(key).cloned().unwrap_or_else(|| json!({}));
            let (server, field) = (text("server"), |key| text(key).unwrap_or_default());
            let op = match op.as_str() {
                "resources" => McpOp::Resources,
                "prompts" => McpOp::Prompts,
                "readResource" => McpOp::Read(field("uri")),
                "getPrompt" => McpOp::GetPrompt(field("name"), object("args")),
                "complete" => McpOp::Complete {
                    prompt: field("prompt"),
                    argument: field("argument"),
                    value: field("value"),
                    context: object("context"),
                },
                other => return Err(JsError::new(&format!("unknown MCP operation {other}")).into()),
            };
            match runtime.mcp(server, op).await {
                Ok(value) => Ok(JsValue::from_str(&to_text(&value))),
                Err(e) => Err(JsError::new(&e).into()),
            }
        })
    }
}
