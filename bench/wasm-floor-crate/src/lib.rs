//! The fixed cost of the npm package's stack, without agentwire: parse JSON, await a JS
//! promise, build and print JSON, and format an error. Everything the runtime module adds on
//! top of this is agentwire's own code.

use js_sys::{Function, Promise};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

/// Parses `text`, hands it to `ask` (a JS function returning a promise of JSON text), and
/// resolves to the answer with the question under `"seen"`.
#[wasm_bindgen]
pub fn roundtrip(text: String, ask: Function) -> Promise {
    future_to_promise(async move {
        let question: Value = serde_json::from_str(&text)
            .map_err(|e| JsError::new(&format!("the question is not JSON: {e}")))?;
        let pending: Promise = ask
            .call1(&JsValue::NULL, &JsValue::from_str(&question.to_string()))?
            .into();
        let answer = JsFuture::from(pending).await?.as_string().unwrap_or_default();
        let mut answer: Value = serde_json::from_str(&answer)
            .map_err(|e| JsError::new(&format!("the answer is not JSON: {e}")))?;
        answer["seen"] = question;
        Ok(JsValue::from_str(&answer.to_string()))
    })
}
