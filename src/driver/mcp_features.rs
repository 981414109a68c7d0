//! `McpClient` commands beyond tools: resources, prompts, completion and logging.

use super::client::McpClient;
use super::connection::Completion;
use crate::content::ToolOutput;
use crate::mcp::{read_resource_result, ListKind, RequestError};
use futures::FutureExt;
use serde_json::{json, Value};
use std::future::Future;

/// One exchange beyond `tools/call`: a whole paginated list, or one optional-feature request.
pub(super) enum Ask<'a> {
    /// Every entry of a list, across pages.
    List(ListKind),
    /// A request of an optional feature: method and params.
    Request(&'a str, Value),
}

impl McpClient {
    /// Runs `ask`: lists end in an array of entries, requests in their raw result. Lists and
    /// feature requests share this one command (one async body in the wasm build).
    pub(super) async fn ask(&self, ask: Ask<'_>) -> Result<Value, RequestError> {
        let completion = self
            .command(|s, now| match ask {
                Ask::List(kind) => s.list(now, kind),
                Ask::Request(method, params) => s.feature_request(now, method, params),
            })
            .await?;
        match completion {
            Completion::Tools(result) => result.map(Value::Array),
            Completion::Value(result) => result,
            Completion::Tool(result) => result.and(Err(RequestError::InvalidResult(
                "unexpected tool result".into(),
            ))),
        }
    }

    /// Lists every entry of `kind` across pages; refused when the server did not declare the
    /// capability. (A mapped `ask` rather than an `async fn`: no async body of
    /// its own in the wasm build.)
    pub fn list(
        &self,
        kind: ListKind,
    ) -> impl Future<Output = Result<Vec<Value>, RequestError>> + '_ {
        self.ask(Ask::List(kind)).map(|listed| match listed? {
            Value::Array(items) => Ok(items),
            _ => Err(RequestError::InvalidResult("unexpected completion".into())),
        })
    }

    /// Sends an optional-feature request (see
    /// [`ClientSession::feature_request`](crate::mcp::ClientSession::feature_request)).
    pub fn feature_request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> impl Future<Output = Result<Value, RequestError>> + 'a {
        self.ask(Ask::Request(method, params))
    }

    /// One exchange by method name: every entry of the list when `method` is a list method
    /// (`resources/list`, ...; `params` unused), else one optional-feature request's raw result.
    pub fn exchange<'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> impl Future<Output = Result<Value, RequestError>> + 'a {
        self.ask(match ListKind::of_method(method) {
            Some(kind) => Ask::List(kind),
            None => Ask::Request(method, params),
        })
    }

    /// Whether the Skills extension is in use with this server (see
    /// [`ClientSession::skills_negotiated`](crate::mcp::ClientSession::skills_negotiated)).
    #[cfg(feature = "mcp-skills")]
    pub fn skills_negotiated(&self) -> bool {
        self.with_session(|s| s.skills_negotiated())
    }

    /// The MCP extensions in use with this server (see
    /// [`ClientSession::negotiated_extensions`](crate::mcp::ClientSession::negotiated_extensions)).
    pub fn extensions(&self) -> Vec<&'static str> {
        self.with_session(|s| s.negotiated_extensions())
    }

    /// Whether the server declared what `method` needs.
    pub fn offers(&self, method: &str) -> bool {
        self.with_session(|s| s.offers(method))
    }

    /// Reads one resource, normalised like tool output.
    pub async fn read_resource(&self, uri: &str) -> Result<ToolOutput, RequestError> {
        let result = self
            .feature_request("resources/read", json!({"uri": uri}))
            .await?;
        read_resource_result(&result).map_err(RequestError::InvalidResult)
    }
}
