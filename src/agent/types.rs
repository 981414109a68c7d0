//! What the agent loop asks of its host, what it accepts back, and how it is configured.

use crate::json::quoted;
use crate::model::ModelRequest;
use crate::model::ToolDefinition;
use crate::registry::{Risk, ToolSource};
use crate::tool_search::ToolSearchConfig;
use serde_json::{json, Value};
use std::fmt;
use std::time::Duration;

/// Default system prompt.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful assistant. Use the tools you are \
given when they help; answer plainly when they do not.";

/// Limits and prompt of the agent loop.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentConfig {
    /// System prompt sent with every model request.
    pub system_prompt: String,
    /// Most model calls one run may make (default 20).
    pub max_steps: u32,
    /// A run stops when the model makes the same call (same tool, same arguments) this many
    /// times (default 3); the last repetition is not executed.
    pub max_identical_calls: u32,
    /// Characters of tool output one run may feed to the model in total (default 200 000).
    pub output_budget_chars: usize,
    /// Characters of output shown in `tool_end` events (default 200).
    pub preview_chars: usize,
    /// Deferred tool loading (default `auto` at 3,000 estimated tokens, bridge); read at each
    /// conversation's first model request.
    pub tool_search: ToolSearchConfig,
    /// The context window and compaction (default: window unknown, compact at 80%).
    pub context: crate::context::ContextConfig,
    /// How often `Stop` (a child's `SubagentStop`) hooks may continue one run (default
    /// [`DEFAULT_MAX_STOP_CONTINUATIONS`]); past it the run ends with its answer and a notice.
    pub max_stop_continuations: u32,
}

/// Default bound on a run's `Stop`-hook continuations: enough for a hook that sends the model
/// back a few times ("the tests still fail"), and well under the default step limit (20), so a
/// hook that never lets go (one ignoring `stop_hook_active`) costs at most 8 more model calls
/// and the run still ends with its answer rather than the step limit's error.
pub const DEFAULT_MAX_STOP_CONTINUATIONS: u32 = 8;

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            system_prompt: DEFAULT_SYSTEM_PROMPT.to_owned(),
            max_steps: 20,
            max_identical_calls: 3,
            output_budget_chars: 200_000,
            preview_chars: 200,
            tool_search: ToolSearchConfig::default(),
            context: crate::context::ContextConfig::default(),
            max_stop_continuations: DEFAULT_MAX_STOP_CONTINUATIONS,
        }
    }
}

/// One tool call for the host to perform.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolInvocation {
    /// Id to report the result under ([`crate::agent::Agent::handle_tool_result`]).
    pub call_id: String,
    /// Model-facing tool name.
    pub name: String,
    /// Arguments, a JSON object.
    pub arguments: Value,
    /// Where to run it: a built-in tool, or MCP server `server` under `original_name`.
    pub target: ToolSource,
    /// How long the host should wait before reporting [`ToolFailure::Timeout`].
    pub timeout: Duration,
}

impl ToolInvocation {
    /// `{"callId", "name", "arguments", "target": {"kind": "builtin"} | {"kind": "mcp",
    /// "server", "originalName"}, "timeoutMs"}`.
    pub fn to_value(&self) -> Value {
        let target = match &self.target {
            ToolSource::Mcp {
                server,
                original_name,
            } => json!({"kind": "mcp", "server": server, "originalName": original_name}),
            _ => json!({"kind": "builtin"}),
        };
        json!({
            "callId": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "target": target,
            "timeoutMs": u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// A call the policy wants the user to approve.
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    /// The call's id, for [`crate::agent::Agent::handle_approval`].
    pub call_id: String,
    /// Model-facing tool name.
    pub name: String,
    /// The arguments the model chose.
    pub arguments: Value,
    /// The tool's risk.
    pub risk: Risk,
    /// The subagent that made the call (`None`: the main agent), so the prompt can say who
    /// asks.
    pub agent: Option<String>,
}

/// Something the host must do for the loop to make progress.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Action {
    /// Call the model and report with [`crate::agent::Agent::handle_model_response`].
    CallModel(ModelRequest),
    /// Run these calls (concurrently if there are several) and report each result with
    /// [`crate::agent::Agent::handle_tool_result`].
    CallTools(Vec<ToolInvocation>),
    /// Ask the user and answer with [`crate::agent::Agent::handle_approval`].
    RequestApproval(ApprovalRequest),
    /// Rank the deferred tools for a `tool_search` with the host's searcher and answer with
    /// [`crate::agent::Agent::handle_search_result`] (only after
    /// [`crate::agent::Agent::set_host_search`]).
    SearchTools(SearchRequest),
    /// Run these hooks (all at once, each under its timeout) and answer with
    /// [`crate::agent::Agent::handle_hook_runs`].
    RunHooks(crate::agent::HookRequest),
}

/// A `tool_search` for the host's searcher (for example embeddings).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchRequest {
    /// The call's id, for [`crate::agent::Agent::handle_search_result`].
    pub call_id: String,
    /// The model's query.
    pub query: String,
    /// Most results wanted.
    pub limit: usize,
    /// The deferred tools to rank (live), in registry order.
    pub catalog: Vec<ToolDefinition>,
}

/// The user's answer to an approval request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Approval {
    /// Run this call.
    Yes,
    /// Do not run it; the model is told the user declined.
    No,
    /// Run it, and run this tool without asking for the rest of the session.
    Always,
}

impl Approval {
    /// Reads `yes`/`y`, `no`/`n`, `always`/`a` (case-insensitive).
    pub fn parse(text: &str) -> Result<Approval, String> {
        // A table rather than match arms on a lowercased copy: no allocation, less code.
        const ANSWERS: [(&str, &str, Approval); 3] = [
            ("yes", "y", Approval::Yes),
            ("no", "n", Approval::No),
            ("always", "a", Approval::Always),
        ];
        let answer = text.trim();
        for (word, letter, approval) in ANSWERS {
            if answer.eq_ignore_ascii_case(word) || answer.eq_ignore_ascii_case(letter) {
                return Ok(approval);
            }
        }
        Err(format!(
            "unknown approval answer {text}: expected yes, no or always",
            text = quoted(text)
        ))
    }
}

/// Why a tool call produced no result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolFailure {
    /// The call failed (transport error, server gone, protocol error...).
    Error(String),
    /// The call took longer than its timeout.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// The user interrupted the call (Ctrl-C, SIGTERM); audited as `interrupted`.
    Interrupted(String),
}

/// A misuse of the agent by its host; the agent's state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentError {
    /// `start_run` while a run is active.
    RunActive,
    /// An input that needs an active run, without one.
    NoRun,
    /// A model response while the loop is not waiting for one.
    NotAwaitingModel,
    /// A tool result for a call that is not running (unknown, finished, or cancelled).
    UnknownCall(String),
    /// An approval for a call that is not waiting for one.
    NotAwaitingApproval(String),
    /// `compact` on a conversation without a user message.
    NothingToCompact,
    /// `resume_paused` on a conversation with no pending call.
    NothingPaused,
    /// Hook runs for a call that is not waiting for that event's hooks.
    NotAwaitingHooks(String),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::RunActive => f.write_str("a run is already active"),
            AgentError::NoRun => f.write_str("no run is active"),
            AgentError::NotAwaitingModel => {
                f.write_str("the agent is not waiting for a model response")
            }
            AgentError::UnknownCall(id) => {
                write!(f, "no tool call {id} is running", id = quoted(id))
            }
            AgentError::NothingToCompact => f.write_str("there is no conversation to compact"),
            AgentError::NothingPaused => {
                f.write_str("the conversation has no paused run (no call waits for a decision)")
            }
            AgentError::NotAwaitingHooks(id) => {
                write!(
                    f,
                    "tool call {id} is not waiting for hooks",
                    id = quoted(id)
                )
            }
            AgentError::NotAwaitingApproval(id) => {
                write!(
                    f,
                    "tool call {id} is not waiting for approval",
                    id = quoted(id)
                )
            }
        }
    }
}

impl std::error::Error for AgentError {}

/// Why a direct call (outside the model loop) was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DirectCallError {
    /// No tool has that name.
    UnknownTool(String),
    /// A deny rule matched.
    Denied {
        /// The tool.
        tool: String,
        /// The rule, as `deny <pattern>`.
        rule: String,
    },
    /// The arguments are not a JSON object.
    InvalidArguments(String),
}

impl fmt::Display for DirectCallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DirectCallError::UnknownTool(name) => {
                write!(f, "unknown tool {name}", name = quoted(name))
            }
            DirectCallError::Denied { tool, rule } => {
                write!(
                    f,
                    "tool {tool} is denied by permission rule `{rule}`",
                    tool = quoted(tool)
                )
            }
            DirectCallError::InvalidArguments(tool) => {
                write!(
                    f,
                    "arguments for tool {tool} must be a JSON object",
                    tool = quoted(tool)
                )
            }
        }
    }
}

impl std::error::Error for DirectCallError {}

/// What a finished direct call produced, as the model would have seen it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectCallResult {
    /// The output as text, cut to the tool's limit.
    pub text: String,
    /// Whether the text was cut.
    pub truncated: bool,
    /// Whether the call failed or the tool reported an error.
    pub is_error: bool,
}
