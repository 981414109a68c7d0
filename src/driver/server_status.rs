//! What the runtime keeps of each configured MCP server: its status, client, events and last
//! log lines.

use super::client::McpClient;
use std::collections::VecDeque;

/// The state of one configured MCP server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connected, with this many tools registered.
    Connected {
        /// Tools registered from this server.
        tools: usize,
    },
    /// Could not connect, or died; the reason names the culprit.
    Failed {
        /// Why.
        reason: String,
    },
    /// Disabled in the configuration.
    Disabled,
}

impl ServerStatus {
    /// `"connected"`, `"failed"` or `"disabled"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerStatus::Connected { .. } => "connected",
            ServerStatus::Failed { .. } => "failed",
            ServerStatus::Disabled => "disabled",
        }
    }
}

/// One configured server as the runtime holds it.
pub(super) struct Server {
    /// Its client while connected.
    pub(super) client: Option<McpClient>,
    /// What its session reports (notifications, a closed connection), not yet applied.
    pub(super) events: Option<super::EventStream>,
    /// Connected, failed or disabled.
    pub(super) status: ServerStatus,
    /// Its last log lines and notices.
    pub(super) log: VecDeque<String>,
}
