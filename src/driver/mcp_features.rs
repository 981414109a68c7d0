//! `McpClient` commands beyond tools: resources, prompts, completion and logging.

use super::client::{Completion, McpClient};
use crate::content::ToolOutput;
use crate::mcp::{read_resource_result, ListKind, RequestError, SessionError};
use serde_json::{json, Value};

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
    /// capability.
    pub async fn list(&self, kind: ListKind) -> Result<Vec<Value>, RequestError> {
        match self.ask(Ask::List(kind)).await? {
            Value::Array(items) => Ok(items),
            _ => Err(RequestError::InvalidResult("unexpected completion".into())),
        }
    }

    /// Sends an optional-feature request (see
    /// [`ClientSession::feature_request`](crate::mcp::ClientSession::feature_request)).
    pub async fn feature_request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, RequestError> {
        self.ask(Ask::Request(method, params)).await
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

/// A session refusal, as the error a command reports.
pub(super) fn refused(error: SessionError) -> RequestError {
    match error {
        SessionError::Closed(reason) => RequestError::Closed(reason),
        other => RequestError::Refused(other.to_string()),
    }
}
