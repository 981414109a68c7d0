//! `WasmAgent`'s MCP resources, prompts and completion: one exchange with one server per call
//! ([`crate::driver::McpClient::exchange`]). The JS layer gathers lists across servers, builds
//! params, shapes results and words errors, so the wasm module carries none of that.

use super::agent::WasmAgent;
use crate::driver::NOT_CONNECTED;
use crate::json::{parse_str, to_text};
use crate::mcp::read_resource_result;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen]
impl WasmAgent {
    /// Runs `method` on `server` with `params_json` (ignored for lists): resolves to a list
    /// method's entries across pages (`resources/list`, `resources/templates/list`,
    /// `prompts/list`) or another method's raw result, as JSON text (a `resources/read`
    /// result once its contents read as tool content do). Rejects with why (`the server is not
    /// connected`, the session's refusal of a method the server does not offer, the error).
    pub fn mcp(&self, server: String, method: String, params_json: &str) -> Promise {
        let params = parse_str(params_json).unwrap_or_default();
        // The client is looked up here, so the promise's body is the exchange alone.
        let Some(client) = self.runtime().client(&server) else {
            return Promise::reject(&JsError::new(NOT_CONNECTED).into());
        };
        future_to_promise(async move {
            let result = client.exchange(&method, params).await;
            let checked =
                result
                    .map_err(|e| e.to_string())
                    .and_then(|value| match method.as_str() {
                        "resources/read" => read_resource_result(&value).map(|_| value),
                        _ => Ok(value),
                    });
            match checked {
                Ok(value) => Ok(JsValue::from_str(&to_text(&value))),
                Err(e) => Err(JsError::new(&e).into()),
            }
        })
    }
}
