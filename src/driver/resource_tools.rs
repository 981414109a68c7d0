//! The two built-in tools that let the model use MCP resources: `list_mcp_resources` and
//! `read_mcp_resource`. Both are `read` risk and go through the gate, audit and truncation like
//! every tool; they are registered only once some server offers resources.

use super::mcp_runtime::RESOURCE_LISTS;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::content::ToolOutput;
use crate::json::to_text;
use crate::registry::{Risk, ToolSpec};
use futures::future::{ready, LocalBoxFuture};
use futures::FutureExt;
use serde_json::Value;

/// Name of the tool that lists resources.
pub const LIST_RESOURCES_TOOL: &str = "list_mcp_resources";
/// Name of the tool that reads one resource.
pub const READ_RESOURCE_TOOL: &str = "read_mcp_resource";

/// Names, descriptions and input schemas, as JSON text: parsed once at registration, which
/// costs the wasm build less than building the values in code.
const SPECS: &str = concat!(
    r#"[["list_mcp_resources","List the resources (and resource templates) that MCP servers offer: URIs, names, descriptions. Optionally only those of one server.","#,
    r#"{"type":"object","properties":{"server":{"type":"string","description":"MCP server name"}}}],"#,
    r#"["read_mcp_resource","Read one resource of an MCP server by its URI.","#,
    r#"{"type":"object","properties":{"server":{"type":"string","description":"MCP server name"},"uri":{"type":"string"}},"required":["server","uri"]}]]"#
);

/// The resource tools' specs (a plain loop: no iterator adapter instances in the wasm build).
fn specs() -> Vec<ToolSpec> {
    let mut specs = Vec::new();
    if let Ok(Value::Array(listed)) = crate::json::parse_str(SPECS) {
        for s in &listed {
            let text = |i: usize| s[i].as_str().unwrap_or_default();
            specs.push(ToolSpec::builtin(
                text(0),
                text(1),
                s[2].clone(),
                Risk::Read,
            ));
        }
    }
    specs
}

/// A list as compact JSON text.
fn list_text(items: &[Value]) -> String {
    let mut text = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&to_text(item));
    }
    text.push(']');
    text
}

/// Whether `name` is one of the resource tools.
pub fn is_resource_tool(name: &str) -> bool {
    name == LIST_RESOURCES_TOOL || name == READ_RESOURCE_TOOL
}

impl<C: Clock> Runtime<C> {
    /// Registers the resource tools once any connected server offers resources (a name taken
    /// by a host tool is left to the host).
    pub(super) fn offer_resource_tools(&self) {
        let offered = self
            .server_names()
            .iter()
            .filter_map(|name| self.client(name))
            .any(|client| client.offers("resources/list"));
        if !offered {
            return;
        }
        self.with_agent(|agent| {
            for spec in specs() {
                if agent.registry().get(&spec.name).is_none() {
                    let _ = agent.registry_mut().register_builtin(spec);
                }
            }
        });
    }

    /// Runs a resource tool; failures are error results the model can read. (The
    /// runtime's futures, mapped: no async body of its own in the wasm build.)
    pub(super) fn call_resource_tool<'a>(
        &'a self,
        name: &str,
        arguments: &'a Value,
    ) -> LocalBoxFuture<'a, ToolOutput> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        if name == LIST_RESOURCES_TOOL {
            // The text `to_text` gives `resources()`'s object, without building that object.
            let listed = self.gather(text("server"), &RESOURCE_LISTS);
            return Box::pin(listed.map(|listed| match listed.as_deref() {
                Ok([resources, templates]) => ToolOutput::text(format!(
                    r#"{{"resources":{},"resourceTemplates":{}}}"#,
                    list_text(resources),
                    list_text(templates)
                )),
                Ok(_) => ToolOutput::error(String::new()),
                Err(why) => ToolOutput::error(why.clone()),
            }));
        }
        match (text("server"), text("uri")) {
            (Some(server), Some(uri)) => Box::pin(
                self.read_resource(server, uri)
                    .map(|read| read.unwrap_or_else(ToolOutput::error)),
            ),
            _ => {
                let why = "read_mcp_resource needs string \"server\" and \"uri\"";
                Box::pin(ready(ToolOutput::error(why.to_owned())))
            }
        }
    }
}
