//! Small helpers for talking to JS: global functions, calls that may throw, promises.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: milliseconds since the page or process started, monotonic.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub(crate) fn performance_now() -> f64;

    /// `setTimeout(callback, ms, id)`: `callback(id)` runs once after `ms`; the handle is a
    /// number in browsers and an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(callback: &Function, ms: f64, id: u32) -> JsValue;

    /// `clearTimeout(handle)`.
    #[wasm_bindgen(js_name = clearTimeout)]
    pub(crate) fn clear_timeout(handle: &JsValue);

    /// `String(value)`; it throws only for objects whose `toString` throws.
    #[wasm_bindgen(catch, js_name = String)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

/// A readable text for whatever JS threw or rejected with: an `Error`'s message, a string as
/// is, anything else through `String(value)`.
pub(crate) fn error_text(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    if let Some(text) = value.as_string() {
        return text;
    }
    js_string(value).unwrap_or_else(|_| "a value that cannot be shown".into())
}

/// Awaits a value that may be a promise (a plain value counts as already resolved).
pub(crate) async fn settle(value: JsValue) -> Result<JsValue, String> {
    let promise = match value.dyn_into::<Promise>() {
        Ok(promise) => promise,
        Err(plain) => Promise::resolve(&plain),
    };
    JsFuture::from(promise).await.map_err(|e| error_text(&e))
}

/// Reads a settled value that must be a string (the JS layer always hands JSON text back).
pub(crate) fn expect_string(value: JsValue, what: &str) -> Result<String, String> {
    value
        .as_string()
        .ok_or_else(|| format!("{what} did not return a string"))
}

/// Calls `f(arg)`; a throw becomes `Err` with the thrown message.
pub(crate) fn call1(f: &Function, arg: &JsValue) -> Result<JsValue, String> {
    f.call1(&JsValue::NULL, arg).map_err(|e| error_text(&e))
}
