//! A model, tools and a run observer made of JS functions.
//!
//! The JS layer wraps the user's objects into functions with a fixed contract (JSON text in,
//! a promise of JSON text out, never a throw it could catch itself), and these adapters turn
//! them into the driver's traits. Anything JS still manages to throw becomes an error result,
//! never a panic.

use super::diagnostics::{Held, Kind};
use super::js::{call1, expect_string, settle};
use crate::agent::{Approval, ApprovalRequest, UiEvent};
use crate::audit::AuditRecord;
use crate::content::ToolOutput;
use crate::driver::{LocalTools, ModelBackend, ModelStream, RunObserver};
use crate::json::{quoted, to_text};
use crate::model::{ModelRequest, ModelResponse};
use futures::future::LocalBoxFuture;
use js_sys::{Function, Reflect};
use serde_json::{json, Value};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A model behind `complete(requestJson) → Promise<responseJson>`; the promise may carry an
/// `abort()` method, called when the runtime stops waiting (an interrupted run).
pub(crate) struct JsModel {
    complete: Function,
}

impl JsModel {
    /// The model behind `complete`.
    pub(crate) fn new(complete: Function) -> Self {
        JsModel { complete }
    }
}

impl ModelBackend for JsModel {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        // Streamed text and reasoning go from the JS model straight to the run's event
        // callback, in JS.
        Box::pin(async move {
            let _held = Held::new(Kind::ModelCall);
            let body = JsValue::from_str(&to_text(&request.to_value()));
            let returned = call1(&self.complete, &body)?;
            // Dropped before it settles (the run was interrupted): the JS side aborts the
            // request (`fetch` and all).
            let mut guard = AbortOnDrop(abort_of(&returned));
            let settled = settle(returned).await;
            guard.0 = None;
            let text = expect_string(settled?, "the model")?;
            let value = crate::json::parse_str(&text)
                .map_err(|e| format!("the model's response is not JSON: {e}"))?;
            ModelResponse::from_value(&value)
        })
    }
}

/// Tools implemented by JS functions `execute(argsJson) → Promise<resultJson>`, where the
/// result is an MCP `CallToolResult`. The promise may carry an `abort()` method, called when
/// the runtime stops waiting (timeout, interrupted run).
#[derive(Default)]
pub(crate) struct JsTools {
    /// By name. A list rather than a map: an agent has a handful of JS tools, and a map keyed
    /// by name with these values would be one more copy of the map code in the wasm module.
    functions: RefCell<Vec<(String, Function)>>,
}

impl JsTools {
    /// Adds or replaces the function behind tool `name`.
    pub(crate) fn insert(&self, name: &str, execute: Function) {
        let mut functions = self.functions.borrow_mut();
        match functions.iter_mut().find(|(n, _)| n == name) {
            Some((_, f)) => *f = execute,
            None => functions.push((name.to_owned(), execute)),
        }
    }

    /// Forgets tool `name`.
    pub(crate) fn remove(&self, name: &str) {
        self.functions.borrow_mut().retain(|(n, _)| n != name);
    }

    /// Forgets every tool whose name starts with `prefix` (a plugin's `plugin__<p>__`).
    pub(crate) fn remove_prefixed(&self, prefix: &str) {
        self.functions
            .borrow_mut()
            .retain(|(n, _)| !n.starts_with(prefix));
    }

    /// The function behind tool `name`.
    fn get(&self, name: &str) -> Option<Function> {
        let functions = self.functions.borrow();
        functions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
    }
}

/// The `abort()` method a pending JS call's promise may carry.
fn abort_of(returned: &JsValue) -> Option<Function> {
    Reflect::get(returned, &JsValue::from_str("abort"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}

/// Calls a pending JS call's `abort()` if the call is dropped before it settles.
struct AbortOnDrop(Option<Function>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(abort) = self.0.take() {
            let _ = abort.call0(&JsValue::NULL);
        }
    }
}

impl LocalTools for JsTools {
    fn call<'a>(&'a self, name: &'a str, arguments: Value) -> LocalBoxFuture<'a, ToolOutput> {
        // Cloned out so no borrow is held while JS runs (it may register tools meanwhile).
        let execute = self.get(name);
        Box::pin(async move {
            let _held = Held::new(Kind::ToolCall);
            let Some(execute) = execute else {
                return ToolOutput::error(format!("no JS tool named {name}", name = quoted(name)));
            };
            let returned = match call1(&execute, &JsValue::from_str(&to_text(&arguments))) {
                Ok(value) => value,
                Err(error) => return ToolOutput::error(format!("tool {name} threw: {error}")),
            };
            let mut guard = AbortOnDrop(abort_of(&returned));
            let settled = settle(returned).await;
            guard.0 = None;
            let text = match settled.and_then(|v| expect_string(v, "the tool")) {
                Ok(text) => text,
                Err(error) => return ToolOutput::error(format!("tool {name} failed: {error}")),
            };
            crate::json::parse_str(&text)
                .map_err(|e| e.to_string())
                .and_then(|v| ToolOutput::from_mcp_result(&v))
                .unwrap_or_else(|e| ToolOutput::error(format!("tool {name} returned {e}")))
        })
    }
}

/// The observer of one run (or one direct call): every event goes to `emit(json)`, approvals
/// to `approve(requestJson) → Promise<"yes"|"no"|"always">`.
pub(crate) struct JsObserver {
    emit: Function,
    approve: Option<Function>,
    /// Whether audit records go to `emit`: only when the host listens (`onAudit`), since
    /// turning each record into JSON text and back costs more than the rest of a tool call.
    audit: bool,
    /// Whether a run that needs an approval pauses (no `approve`, and a session keeps the run).
    pause: bool,
}

impl JsObserver {
    /// An observer over the JS layer's callbacks; without `approve`, every ask is declined;
    /// without `audit`, audit records are not sent.
    pub(crate) fn new(emit: Function, approve: Option<Function>, audit: bool) -> Self {
        JsObserver {
            emit,
            approve,
            audit,
            pause: false,
        }
    }

    /// This observer, pausing runs that need an approval instead of declining it when `on`.
    pub(crate) fn pausing(mut self, on: bool) -> Self {
        self.pause = on && self.approve.is_none();
        self
    }

    fn send(&self, value: &Value) {
        // The JS layer shields the user's callback; a throw here would only lose one event.
        let _ = self
            .emit
            .call1(&JsValue::NULL, &JsValue::from_str(&to_text(value)));
    }
}

impl RunObserver for JsObserver {
    fn on_event(&self, event: &UiEvent) {
        self.send(&event.to_value());
    }

    fn on_text_delta(&self, text: &str) {
        self.send(&json!({"type": "text_delta", "text": text}));
    }

    fn can_approve(&self, _request: &ApprovalRequest) -> bool {
        !self.pause
    }

    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        Box::pin(async move {
            let Some(approve) = &self.approve else {
                return Approval::No;
            };
            let mut body = json!({
                "id": request.call_id,
                "name": request.name,
                "args": request.arguments,
                "risk": request.risk.as_str(),
            });
            if let Some(agent) = &request.agent {
                body["agent"] = agent.as_str().into();
            }
            let answer = match call1(approve, &JsValue::from_str(&to_text(&body))) {
                Ok(returned) => settle(returned).await,
                Err(error) => Err(error),
            };
            match answer {
                Ok(value) => value
                    .as_string()
                    .and_then(|text| Approval::parse(&text).ok())
                    .unwrap_or(Approval::No),
                Err(error) => {
                    self.on_notice(&format!(
                        "onApproval failed ({error}); {} was declined",
                        request.name
                    ));
                    Approval::No
                }
            }
        })
    }

    fn on_audit(&self, record: &AuditRecord) {
        if !self.audit {
            return;
        }
        self.send(&json!({"type": "audit", "record": record.to_value()}));
    }

    fn on_notice(&self, message: &str) {
        self.send(&json!({"type": "notice", "message": message}));
    }

    fn on_server_event(&self, event: &Value) {
        self.send(event);
    }
}
