//! What one run is configured with: the plain settings the application is assembled from, built
//! by the CLI from its options (so nothing below the CLI depends on how they are spelled).

use crate::config::tool_search::SearchMode;
use crate::os::sandbox::Mode;
use std::path::PathBuf;

/// The settings of one run, as the command line (or any other front end) gives them.
#[derive(Debug, Clone)]
pub struct Settings {
    /// MCP config file (Claude-compatible `.mcp.json`); default `./.mcp.json` when present.
    pub config: Option<PathBuf>,
    /// Machine-readable output: NDJSON events for `run`, JSON for `mcp` and `tools`.
    pub json: bool,
    /// Allow tools matching PATTERN without asking (`name`, `mcp__server`, `mcp__server__*`, `*`).
    pub allow: Vec<String>,
    /// Always ask before tools matching PATTERN.
    pub ask: Vec<String>,
    /// Never run tools matching PATTERN.
    pub deny: Vec<String>,
    /// Approve every tool call that would ask.
    pub yes: bool,
    /// Append one JSON line per tool call to FILE (off by default).
    pub audit: Option<PathBuf>,
    /// Ask MCP servers for log messages at LEVEL and above (`debug`, `info`, `notice`,
    /// `warning`, `error`, ...) and show them: on stderr, or as `server_log` events with `--json`.
    pub log_level: Option<String>,
    /// Most model calls in one run.
    pub max_steps: u32,
    /// How deep subagents may nest (0: no `Agent` tool).
    pub max_agent_depth: u32,
    /// Root for the file tools (default: the current directory).
    pub workspace: Option<PathBuf>,
    /// Model: `mock`, or a model name for the OpenAI-compatible endpoint.
    pub model: Option<String>,
    /// Use the current directory's `.mcp.json` for this run even though the workspace is not
    /// trusted (nothing is remembered; `agentwire trust` remembers).
    pub trust_workspace: bool,
    /// Pass the host's environment variable NAME to the `bash` tool (repeatable; bash otherwise
    /// gets only PATH, HOME, LANG and a few more, never API keys or tokens).
    pub bash_env: Vec<String>,
    /// Load the plugin in DIR (a folder with `.claude-plugin/plugin.json`, `skills/`,
    /// `commands/`, `.mcp.json`); repeatable; loads under `--bare` too.
    pub plugin_dirs: Vec<PathBuf>,
    /// Discover no skills, commands or plugins (`~/.claude`, the project's `.claude`); only
    /// `--plugin-dir` ones load.
    pub bare: bool,
    /// Base URL of an OpenAI-compatible API.
    pub base_url: Option<String>,
    /// Defer MCP tool definitions behind `tool_search`: `auto` (when they cost more than the
    /// threshold), `on`, `off`. Default: `AGENTWIRE_TOOL_SEARCH` (`auto|on|off|auto:TOKENS`),
    /// else auto.
    pub tool_search: Option<SearchMode>,
    /// `auto` defers when the MCP definitions exceed this many estimated tokens (default 3000,
    /// or 10% of the context window when smaller).
    pub tool_search_threshold: Option<u64>,
    /// The model's context window in tokens, when known (it lowers `auto`'s threshold).
    pub context_window: Option<u64>,
    /// How `bash` is confined; `None`: workspace-write where the kernel has Landlock, else off.
    pub sandbox: Option<Mode>,
    /// Whether sandboxed commands may use the network.
    pub sandbox_network: bool,
    /// Paths added to the sandbox's read deny list.
    pub sandbox_deny: Vec<PathBuf>,
    /// With the network off, TCP destinations sandboxed commands may still reach.
    pub sandbox_allow: Vec<crate::os::sandbox::HostPort>,
    /// Run `bash` without asking when the sandbox contains it (`--auto-approve-sandboxed`).
    pub auto_approve_sandboxed: bool,
    /// Load no instruction files (`CLAUDE.md`, `AGENTS.md`, rules); `bare` skips them too.
    pub no_instructions: bool,
    /// The budget of the instructions block in bytes (default 32 KiB).
    pub instructions_budget: Option<usize>,
    /// Extra settings files (Claude Code format) whose hooks run, as the user's own.
    pub settings_files: Vec<PathBuf>,
    /// Session persistence: continue, resume or none (`--continue`, `--resume`,
    /// `--no-session-persistence`), and compaction (`--compact-at`, `--no-compact`).
    pub session: SessionSettings,
}

/// Which session a run or the REPL keeps its conversation in, and how it compacts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionSettings {
    /// Continue the latest session of this workspace.
    pub continue_latest: bool,
    /// Continue this session.
    pub resume: Option<String>,
    /// Keep nothing on disk.
    pub no_persistence: bool,
    /// Compact at this percentage of the context window (default 80).
    pub compact_at: Option<u8>,
    /// Never compact automatically.
    pub no_compact: bool,
    /// Approve these pending calls of a paused session (`--approve CALL_ID`).
    pub approve: Vec<String>,
    /// Reject these pending calls of a paused session (`--reject CALL_ID`).
    pub reject: Vec<String>,
}
