//! What a host plugs into the runtime: a model, its own tools, and a user interface.

use crate::agent::{Approval, ApprovalRequest, UiEvent};
use crate::audit::AuditRecord;
use crate::content::ToolOutput;
use crate::json::quoted;
use crate::model::{ModelRequest, ModelResponse};
use futures::future::LocalBoxFuture;
use serde_json::Value;

/// What a model streams before its turn is complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelStream<'s> {
    /// A piece of the answer text.
    Text(&'s str),
    /// A piece of the model's visible reasoning (`reasoning_content`), for models that send it
    /// (DeepSeek, Qwen, ...). Never part of the answer or the history.
    Reasoning(&'s str),
}

/// A model: the mock model, an OpenAI-compatible endpoint, a JS object, ...
pub trait ModelBackend {
    /// Completes one request. `on_stream` receives text (and reasoning) as it streams in
    /// (backends that do not stream may call it once or never); the returned response is
    /// authoritative.
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>>;

    /// The model's name, for answers that report it (sampling); `None` when unknown.
    fn model_name(&self) -> Option<String> {
        None
    }
}

/// The host's own tools (file tools and bash natively, JS functions in the npm package).
pub trait LocalTools {
    /// Runs tool `name`. Failures are `ToolOutput::error`, never panics. The runtime enforces
    /// the tool's timeout by racing this future against the clock.
    fn call<'a>(&'a self, name: &'a str, arguments: Value) -> LocalBoxFuture<'a, ToolOutput>;

    /// Runs tool `name` for a shell snippet of a command from `source` (`user`, `project`,
    /// `plugin:<p>`), as the core reported it: a host may give the call that extension's own
    /// folders (a plugin's data folder in a sandbox). By default, the same as [`LocalTools::call`].
    fn call_for<'a>(
        &'a self,
        source: &'a str,
        name: &'a str,
        arguments: Value,
    ) -> LocalBoxFuture<'a, ToolOutput> {
        let _ = source;
        self.call(name, arguments)
    }
}

/// A host without tools of its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoLocalTools;

impl LocalTools for NoLocalTools {
    fn call<'a>(&'a self, name: &'a str, _arguments: Value) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            ToolOutput::error(format!("no local tool named {name}", name = quoted(name)))
        })
    }
}

/// Whoever watches a run: renders events, answers approvals, keeps the audit trail.
pub trait RunObserver {
    /// A UI event of the run (`step_start`, `tool_start`, `done`, ...).
    fn on_event(&self, event: &UiEvent);
    /// Text streaming from the model before its turn is complete.
    fn on_text_delta(&self, _text: &str) {}
    /// Reasoning streaming from the model (for models that show it), before its text.
    fn on_reasoning_delta(&self, _text: &str) {}
    /// Whether [`approve`](RunObserver::approve) can get an answer for `request` here; when
    /// not, a run that needs one pauses (`paused` event) and continues later with
    /// [`crate::driver::Runtime::resume`].
    fn can_approve(&self, _request: &ApprovalRequest) -> bool {
        true
    }
    /// A tool call needs the user's approval.
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval>;
    /// An audit record (one per tool call).
    fn on_audit(&self, _record: &AuditRecord) {}
    /// A notice from the runtime itself (a server's tools were refreshed, a server died, ...).
    fn on_notice(&self, _message: &str) {}
    /// Something an MCP server reported, as a UI event: `server_log` (`server`, `level`,
    /// `logger`, `data`), `tools_changed` (`server`, `tools`), `resource_updated` (`server`,
    /// `uri`).
    fn on_server_event(&self, _event: &Value) {}
}

impl ModelBackend for crate::model::MockModel {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        let response = crate::model::MockModel::complete(self, &request);
        Box::pin(async move { Ok(response) })
    }

    fn model_name(&self) -> Option<String> {
        Some("agentwire-mock".into())
    }
}
