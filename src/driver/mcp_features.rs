//! `McpClient` commands beyond tools: resources, prompts, completion and logging.

use super::client::{Completion, McpClient};
use crate::content::ToolOutput;
use crate::mcp::{read_resource_result, ListKind, RequestError, SessionError};
use serde_json::{json, Value};

impl McpClient {
    /// Lists every entry of `kind` across pages; refused when the server did not declare the
    /// capability.
    pub async fn list(&self, kind: ListKind) -> Result<Vec<Value>, RequestError> {
        match self.command(|s, now| s.list(now, kind)).await? {
            Completion::Tools(result) => result,
            Completion::Value(Err(e)) | Completion::Tool(Err(e)) => Err(e),
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
        match self
            .command(|s, now| s.feature_request(now, method, params))
            .await?
        {
            Completion::Value(result) => result,
            _ => Err(RequestError::InvalidResult(format!(
                "unexpected completion for {method}"
            ))),
        }
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
