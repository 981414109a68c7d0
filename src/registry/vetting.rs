//! Whether the permission gate may rely on an MCP tool's risk.
//!
//! A tool's inferred risk comes from its name, description and annotations: words of the
//! server's own choosing. The gate relies on them (a `read` tool runs unasked) only for a server
//! the host trusts, and only while the tool still is what the server first listed: a tool that
//! appears, is renamed, or changes its description or annotations after the first `tools/list`
//! of a connection (through `notifications/tools/list_changed`) asks, like every tool of a
//! distrusted server, until an override or an allow rule covers it.

use super::{Registry, Risk, ToolSpec};
use serde_json::Value;

/// What a server said about one tool, as first listed on its connection.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Listed {
    name: String,
    description: String,
    annotations: Option<Value>,
}

impl Listed {
    /// What `spec` says about itself (its original MCP name and its full description).
    pub(super) fn of(spec: &ToolSpec) -> Listed {
        Listed {
            name: spec.call_name().to_owned(),
            description: spec.description.clone(),
            annotations: spec.annotations.clone(),
        }
    }
}

impl Registry {
    /// Whether the gate may rely on the risk of MCP tool `spec` of `server`: the user fixed it
    /// (an override), or the server is not distrusted and the tool is as first listed.
    pub(super) fn risk_is_trusted(&self, server: &str, spec: &ToolSpec) -> bool {
        if self
            .overrides
            .for_mcp_tool(server, spec.call_name())
            .is_some()
        {
            return true;
        }
        if self.overrides.is_distrusted(server) {
            return false;
        }
        match self.first_listings.get(server) {
            Some(first) => first.contains(&Listed::of(spec)),
            None => true,
        }
    }

    /// The least risk a changed tool named `original` (on the server) may now have: what its
    /// first listing on this connection and its last listing (`previous`) weighed. A server
    /// cannot lower a tool's risk by re-annotating it.
    pub(super) fn risk_floor(
        &self,
        server: &str,
        original: &str,
        previous: &[(String, Risk)],
    ) -> Risk {
        let first = self.first_listings.get(server).into_iter().flatten();
        let first = first.filter(|l| l.name == original).map(|l| {
            self.overrides
                .mcp_risk(server, &l.name, &l.description, l.annotations.as_ref())
        });
        let before = previous
            .iter()
            .filter(|(n, _)| n == original)
            .map(|(_, r)| *r);
        first.chain(before).max().unwrap_or(Risk::Read)
    }
}
