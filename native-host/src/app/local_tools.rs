//! The built-in tools, as the runtime sees them: registry entries plus a [`LocalTools`] adapter.

use crate::extensions::session::SkillDirs;
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
    skill_dirs: SkillDirs,
}

impl BuiltinTools {
    /// All built-in tools, confined to `workspace`.
    pub fn new(workspace: Workspace) -> Self {
        BuiltinTools {
            tools: builtin_tools(workspace),
            context: ToolContext::default(),
            skill_dirs: SkillDirs::default(),
        }
    }

    /// Also passes these host environment variables to bash (by name; unset ones are skipped).
    pub fn with_bash_env(mut self, names: Vec<String>) -> Self {
        self.context.bash_env = names;
        self
    }

    /// Confines bash as `sandbox` says.
    pub fn with_sandbox(mut self, sandbox: crate::tools::sandbox_policy::SandboxSettings) -> Self {
        self.context.sandbox = sandbox;
        self
    }

    /// Serves `read_skill_file` from these folders.
    pub fn with_skill_dirs(mut self, dirs: SkillDirs) -> Self {
        self.skill_dirs = dirs;
        self
    }

    /// Reads `<skill dir>/<path>`; the core has already checked that `path` is one of the
    /// files the skill ships (a listing of regular files, symlinks left out), and the read
    /// stays inside the folder as it was resolved at discovery, never blocking.
    fn read_skill_file(&self, arguments: &Value) -> ToolOutput {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str).unwrap_or("");
        let Some(dir) = self.skill_dirs.borrow().get(text("skill")).cloned() else {
            return ToolOutput::error(format!("no skill named {:?} with files", text("skill")));
        };
        match crate::extensions::read::read_skill_file(&dir, text("path")) {
            Ok(read) => ToolOutput::text(read.text),
            Err(error) => ToolOutput::error(error),
        }
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
            if name == agentwire::ext::tools::READ_SKILL_FILE {
                return self.read_skill_file(&arguments);
            }
            match self.tools.iter().find(|t| t.name() == name) {
                Some(tool) => tool.execute(arguments, &self.context).await,
                None => ToolOutput::error(format!("no built-in tool named {name:?}")),
            }
        })
    }

    fn call_for<'a>(
        &'a self,
        source: &'a str,
        name: &'a str,
        arguments: Value,
    ) -> LocalBoxFuture<'a, ToolOutput> {
        let grant =
            crate::tools::sandbox_policy::plugin_data_grant(source, &|var| std::env::var_os(var));
        match (name, grant) {
            // A plugin's snippets keep `${CLAUDE_PLUGIN_DATA}` (and nothing else of the
            // denied state directory) under the sandbox.
            ("bash", Some(dir)) => Box::pin(async move {
                let mut context = self.context.clone();
                context.sandbox.grants.push(dir);
                match self.tools.iter().find(|t| t.name() == name) {
                    Some(tool) => tool.execute(arguments, &context).await,
                    None => ToolOutput::error(format!("no built-in tool named {name:?}")),
                }
            }),
            _ => self.call(name, arguments),
        }
    }
}
