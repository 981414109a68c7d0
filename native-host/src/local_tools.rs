//! The built-in tools, as the runtime sees them: registry entries plus a [`LocalTools`] adapter.

use crate::tools::{builtin_tools, BuiltinTool, ToolContext, Workspace};
use agentwire::content::ToolOutput;
use agentwire::driver::LocalTools;
use agentwire::registry::{Registry, Risk, ToolSpec};
use futures::future::LocalBoxFuture;
use serde_json::Value;
use std::time::Duration;

/// The host's built-in tools with their per-call limits.
pub struct BuiltinTools {
    tools: Vec<Box<dyn BuiltinTool>>,
    context: ToolContext,
}

impl BuiltinTools {
    /// All built-in tools, confined to `workspace`.
    pub fn new(workspace: Workspace) -> Self {
        BuiltinTools {
            tools: builtin_tools(workspace),
            context: ToolContext::default(),
        }
    }

    /// Also passes these host environment variables to bash (by name; unset ones are skipped).
    pub fn with_bash_env(mut self, names: Vec<String>) -> Self {
        self.context.bash_env = names;
        self
    }

    /// Registers every tool in `registry`; returns the names that could not be registered.
    pub fn register(&self, registry: &mut Registry) -> Vec<String> {
        let mut problems = Vec::new();
        for tool in &self.tools {
            let risk = Risk::parse(tool.risk()).unwrap_or(Risk::Execute);
            let mut spec =
                ToolSpec::builtin(tool.name(), tool.description(), tool.input_schema(), risk);
            if tool.name() == "bash" {
                // bash enforces its own (per-call) timeout; the runtime's is only a backstop.
                spec = spec.with_timeout(self.context.bash_max_timeout + Duration::from_secs(5));
            }
            if let Err(error) = registry.register_builtin(spec) {
                problems.push(error.to_string());
            }
        }
        problems
    }
}

impl LocalTools for BuiltinTools {
    fn call<'a>(&'a self, name: &'a str, arguments: Value) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match self.tools.iter().find(|t| t.name() == name) {
                Some(tool) => tool.execute(arguments, &self.context).await,
                None => ToolOutput::error(format!("no built-in tool named {name:?}")),
            }
        })
    }
}
