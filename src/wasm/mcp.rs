//! `WasmAgent`'s MCP resources, prompts and completion (see [`crate::driver::Runtime`]).

use super::agent::WasmAgent;
use crate::json::{parse_str, to_text};
use js_sys::Promise;
use serde_json::{json, Value};
use std::future::Future;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// Resolves to the JSON text of the value, or rejects with the error message.
fn promise(work: impl Future<Output = Result<Value, String>> + 'static) -> Promise {
    future_to_promise(async move {
        match work.await {
            Ok(value) => Ok(JsValue::from_str(&to_text(&value))),
            Err(e) => Err(JsError::new(&e).into()),
        }
    })
}

fn object(text: &str) -> Result<Value, String> {
    parse_str(text)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| "arguments must be a JSON object".to_owned())
}

#[wasm_bindgen]
impl WasmAgent {
    /// `{resources, resourceTemplates}` of every server offering them (or of `server`).
    pub fn resources(&self, server: Option<String>) -> Promise {
        let runtime = self.runtime().clone();
        promise(async move { runtime.resources(server.as_deref()).await })
    }

    /// `{contents}` of one resource.
    #[wasm_bindgen(js_name = readResource)]
    pub fn read_resource(&self, server: String, uri: String) -> Promise {
        let runtime = self.runtime().clone();
        promise(async move {
            let output = runtime.read_resource(&server, &uri).await?;
            let contents: Vec<Value> = output
                .content
                .iter()
                .map(|b| b.to_value()["resource"].take())
                .collect();
            Ok(json!({ "contents": contents }))
        })
    }

    /// Every prompt of every server offering them (or of `server`), tagged with `server`.
    pub fn prompts(&self, server: Option<String>) -> Promise {
        let runtime = self.runtime().clone();
        promise(async move { runtime.prompts(server.as_deref()).await.map(Value::from) })
    }

    /// `prompts/get`'s result for prompt `name` of `server` with `args_json` (an object).
    #[wasm_bindgen(js_name = getPrompt)]
    pub fn get_prompt(&self, server: String, name: String, args_json: &str) -> Promise {
        let runtime = self.runtime().clone();
        let arguments = object(args_json);
        promise(async move { runtime.get_prompt(&server, &name, arguments?).await })
    }

    /// Completion values for `argument` of prompt `prompt` on `server`, typed so far as
    /// `value`, with the arguments given so far in `context_json`.
    pub fn complete(
        &self,
        server: String,
        prompt: String,
        argument: String,
        value: String,
        context_json: &str,
    ) -> Promise {
        let runtime = self.runtime().clone();
        let context = object(context_json);
        promise(async move {
            let values = runtime
                .complete(&server, &prompt, &argument, &value, context?)
                .await?;
            Ok(Value::from(values))
        })
    }
}
