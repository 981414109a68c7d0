//! Built-in tools: files (confined to a workspace), search, bash, a calculator and canned weather.
//!
//! Every tool has a name, a description, a JSON Schema for its arguments, a risk class (`read`,
//! `write`, `execute` or `network`) for the permission gate, and an `execute` that never fails
//! outright: problems come back as `ToolOutput::error` with a message for the model.
//!
//! Tools hold the [`Workspace`] they were built with; the per-call [`ToolContext`] carries
//! limits. Dropping an `execute` future cancels the call (bash kills its process group).

mod args;
mod arith;
mod bash;
mod calculator;
mod fs_read;
mod fs_write;
mod protected;
mod read_guard;
mod safe_open;
pub mod sandbox_policy;
mod search;
mod weather;
mod workspace;

#[cfg(test)]
mod tests;

pub use protected::Protected;
pub use workspace::Workspace;

use agentwire::content::ToolOutput;
use agentwire::model::ToolDefinition;
use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

/// Risk class of tools that only read.
pub const RISK_READ: &str = "read";
/// Risk class of tools that change files.
pub const RISK_WRITE: &str = "write";
/// Risk class of tools that run programs.
pub const RISK_EXECUTE: &str = "execute";
/// Risk class of tools that reach the network.
pub const RISK_NETWORK: &str = "network";

/// Per-call limits for built-in tools.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolContext {
    /// bash timeout when the call gives no `timeout_ms`.
    pub bash_default_timeout: Duration,
    /// Largest `timeout_ms` a bash call may ask for; larger values are capped to this.
    pub bash_max_timeout: Duration,
    /// Output budget in bytes for bash (stdout plus stderr), list_directory, glob and grep.
    /// read_file pages by lines and has its own, larger cap.
    pub max_output_bytes: usize,
    /// Names of the host's environment variables that bash gets on top of
    /// [`crate::transport::stdio::INHERITED_ENV`] (`--bash-env`); everything else stays out of its reach.
    pub bash_env: Vec<String>,
    /// How bash is confined by the kernel.
    pub sandbox: sandbox_policy::SandboxSettings,
}

impl Default for ToolContext {
    fn default() -> Self {
        ToolContext {
            bash_default_timeout: Duration::from_secs(30),
            bash_max_timeout: Duration::from_secs(600),
            max_output_bytes: 30 * 1024,
            bash_env: Vec::new(),
            sandbox: sandbox_policy::SandboxSettings::off(),
        }
    }
}

/// A tool implemented by the host.
#[async_trait]
pub trait BuiltinTool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &'static str;
    /// What it does, for the model.
    fn description(&self) -> &'static str;
    /// JSON Schema of its arguments.
    fn input_schema(&self) -> Value;
    /// Risk class: `read`, `write`, `execute` or `network`.
    fn risk(&self) -> &'static str;
    /// Runs the tool. Bad arguments and failures are `ToolOutput::error`, never a panic.
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolOutput;

    /// Name, description and schema as the model layer wants them.
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            input_schema: self.input_schema(),
        }
    }
}

/// Every built-in tool, file tools confined to `workspace`.
pub fn builtin_tools(workspace: Workspace) -> Vec<Box<dyn BuiltinTool>> {
    vec![
        Box::new(fs_read::ReadFile::new(workspace.clone())),
        Box::new(fs_write::WriteFile::new(workspace.clone())),
        Box::new(fs_write::EditFile::new(workspace.clone())),
        Box::new(fs_read::ListDirectory::new(workspace.clone())),
        Box::new(search::Glob::new(workspace.clone())),
        Box::new(search::Grep::new(workspace.clone())),
        Box::new(bash::Bash::new(workspace)),
        Box::new(calculator::Calculator),
        Box::new(weather::GetWeather),
    ]
}

/// The tool called `name` in `tools`.
pub fn find_tool<'a>(tools: &'a [Box<dyn BuiltinTool>], name: &str) -> Option<&'a dyn BuiltinTool> {
    tools.iter().find(|t| t.name() == name).map(|t| t.as_ref())
}

/// Runs blocking file-system work off the async thread; a panic inside becomes an error result.
async fn blocking<F>(work: F) -> ToolOutput
where
    F: FnOnce() -> Result<ToolOutput, String> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(out)) => out,
        Ok(Err(msg)) => ToolOutput::error(msg),
        Err(e) => ToolOutput::error(format!("internal error in tool: {e}")),
    }
}
