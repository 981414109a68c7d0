//! The command line, as clap sees it.

use crate::config::settings::Settings;
use crate::config::tool_search::{parse_mode, SearchMode};
use crate::os::sandbox::Mode;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// agentwire: an agent runtime that speaks MCP.
///
/// With no command on a terminal, starts an interactive session.
#[derive(Debug, Parser)]
#[command(name = "agentwire", version, about, long_about = None)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub common: CommonOptions,
    /// What to do; none starts the interactive session.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one agent turn on PROMPT and print each step and the answer; with `--resume ID`
    /// (or `--continue`) and `--approve`/`--reject`, continue a paused run instead.
    Run {
        /// What to ask (none when continuing a paused run).
        #[arg(required_unless_present_any = ["approve", "reject"])]
        prompt: Option<String>,
    },
    /// Inspect and call MCP servers directly.
    Mcp {
        /// What to do with them.
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Trust a workspace (default: the current directory), so its `.mcp.json` is used; or
    /// revoke that, or list the workspaces you answered for.
    Trust {
        /// The directory to trust.
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Forget the answer for DIR: its `.mcp.json` is refused again (and an interactive
        /// session asks).
        #[arg(long, conflicts_with = "list")]
        revoke: bool,
        /// List the trusted and declined workspaces.
        #[arg(long)]
        list: bool,
    },
    /// List or show the skills and commands found (`~/.claude`, the project, plugins).
    Skills {
        /// What to do with them.
        #[command(subcommand)]
        command: SkillsCommand,
    },
    /// List the subagents the `Agent` tool offers (`~/.claude/agents`, `.codex/agents`, the
    /// project's, plugins', the built-in one).
    Agents {
        /// What to do with them.
        #[command(subcommand)]
        command: AgentsCommand,
    },
    /// List the plugins found, or check a plugin folder.
    Plugins {
        /// What to do with them.
        #[command(subcommand)]
        command: PluginsCommand,
    },
    /// List the hooks found (settings files, plugins), where each comes from and whether it
    /// will run.
    Hooks {
        /// What to do with them.
        #[command(subcommand)]
        command: HooksCommand,
    },
    /// Report what this machine can enforce: the `bash` sandbox's kernel features (Landlock,
    /// seccomp, mount namespaces), the mode a run would use and its deny list.
    Doctor,
    /// List, show or delete the saved sessions of this workspace.
    Sessions {
        /// What to do with them.
        #[command(subcommand)]
        command: SessionsCommand,
    },
    /// Show the instruction files that load (CLAUDE.md, AGENTS.md, rules, AGENTWIRE.md): from
    /// where, in which order, their size; `--json` for the full record.
    Instructions,
    /// List every tool the agent can use (with how each is loaded and what it costs).
    Tools {
        /// Search the tools instead of listing them.
        #[command(subcommand)]
        command: Option<ToolsCommand>,
    },
}

/// `agentwire sessions …`.
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// This workspace's sessions, newest first: id, age, entries, first request.
    List,
    /// One session's transcript, entry by entry.
    Show {
        /// The session id (`sessions list` shows them).
        id: String,
    },
    /// Delete a session.
    Rm {
        /// The session id.
        id: String,
    },
}

/// `agentwire skills …`.
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Every skill and command: name, source, description, warnings, collisions.
    List,
    /// One skill or command: its fields, body size, bundled files.
    Show {
        /// Its name (`plugin:name` for a plugin's).
        name: String,
    },
}

/// `agentwire hooks …`.
#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Every hook: event, matcher, command or URL, source, and whether it will run.
    List,
}

/// `agentwire agents …`.
#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Every agent: name, source, file, tools, model, limits, warnings, problems.
    List,
}

/// `agentwire plugins …`.
#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// Every plugin found: what it contributes, whether it loaded and why not.
    List,
    /// Check the plugin in DIR (default: the current directory); exit 1 on an error.
    Validate {
        /// The plugin's folder.
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Treat warnings (unknown fields, ignored features) as errors.
        #[arg(long)]
        strict: bool,
    },
}

/// `agentwire tools …`.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Rank the MCP tools (deferred and direct alike) for QUERY, as `tool_search` would.
    Search {
        /// What to look for; `-` reads one query per line from stdin and answers each with one
        /// JSON line.
        query: String,
        /// Most tools listed per query.
        #[arg(long, default_value_t = crate::cli::commands::SEARCH_LIMIT, value_name = "N")]
        limit: usize,
    },
}

/// `agentwire mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List the configured servers, their status and their tools.
    List,
    /// Call one tool of one server (your own call: deny rules apply, nothing asks).
    Call {
        /// Server name, as in the config.
        server: String,
        /// Tool name on that server (as the server names it, or namespaced).
        tool: String,
        /// Arguments as a JSON object.
        #[arg(default_value = "{}")]
        args: String,
    },
    /// List the resources and resource templates of every server (or of SERVER).
    Resources {
        /// Only this server.
        server: Option<String>,
    },
    /// Read one resource of a server.
    Read {
        /// Server name, as in the config.
        server: String,
        /// The resource's URI.
        uri: String,
    },
    /// List the prompts of every server (or of SERVER), with their arguments.
    Prompts {
        /// Only this server.
        server: Option<String>,
    },
    /// Get one prompt of a server, filled in with ARGS (`name=value`, or positional).
    Prompt {
        /// Server name, as in the config.
        server: String,
        /// The prompt's name.
        name: String,
        /// Its arguments: `name=value`, or values in the prompt's declared order.
        args: Vec<String>,
    },
    /// Authorize an http server with OAuth now (browser if needed) and keep its token, so
    /// later runs need nobody.
    Login {
        /// Server name, as in the config.
        server: String,
    },
    /// Forget the OAuth tokens kept for an http server (its next connection authorizes anew).
    Logout {
        /// Server name, as in the config.
        server: String,
    },
}

/// Options for every command.
#[derive(Debug, Args)]
pub struct CommonOptions {
    /// MCP config file (Claude-compatible `.mcp.json`); default `./.mcp.json` when present.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Machine-readable output: NDJSON events for `run`, JSON for `mcp` and `tools`.
    #[arg(long, global = true)]
    pub json: bool,
    /// Allow tools matching PATTERN without asking (`name`, `mcp__server`, `mcp__server__*`, `*`).
    #[arg(long, global = true, value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// Always ask before tools matching PATTERN.
    #[arg(long, global = true, value_name = "PATTERN")]
    pub ask: Vec<String>,
    /// Never run tools matching PATTERN.
    #[arg(long, global = true, value_name = "PATTERN")]
    pub deny: Vec<String>,
    /// Approve every tool call that would ask.
    #[arg(long, short = 'y', global = true)]
    pub yes: bool,
    /// Append one JSON line per tool call to FILE (off by default).
    #[arg(long, global = true, value_name = "FILE")]
    pub audit: Option<PathBuf>,
    /// Ask MCP servers for log messages at LEVEL and above (`debug`, `info`, `notice`,
    /// `warning`, `error`, ...) and show them: on stderr, or as `server_log` events with `--json`.
    #[arg(long, global = true, value_name = "LEVEL", value_parser = crate::app::render::parse_log_level)]
    pub log_level: Option<String>,
    /// Most model calls in one run.
    #[arg(long, global = true, default_value_t = 20, value_name = "N")]
    pub max_steps: u32,
    /// How deep subagents may nest (`Agent` tool): 1 (default) lets the model start children
    /// that start none; 0 removes the tool.
    #[arg(long, global = true, default_value_t = agentwire::subagent::DEFAULT_MAX_DEPTH, value_name = "N")]
    pub max_agent_depth: u32,
    /// Root for the file tools (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Model: `mock`, or a model name for the OpenAI-compatible endpoint.
    #[arg(long, global = true, env = "AGENTWIRE_MODEL", value_name = "MODEL")]
    pub model: Option<String>,
    /// Use the current directory's `.mcp.json` for this run even though the workspace is not
    /// trusted (nothing is remembered; `agentwire trust` remembers).
    #[arg(long, global = true)]
    pub trust_workspace: bool,
    /// Pass the host's environment variable NAME to the `bash` tool (repeatable; bash otherwise
    /// gets only PATH, HOME, LANG and a few more, never API keys or tokens).
    #[arg(
        long = "bash-env",
        global = true,
        env = "AGENTWIRE_BASH_ENV",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub bash_env: Vec<String>,
    /// Load the plugin in DIR (a folder with `.claude-plugin/plugin.json`, `skills/`,
    /// `commands/`, `.mcp.json`); repeatable; loads under `--bare` too.
    #[arg(long = "plugin-dir", global = true, value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// Discover no skills, commands or plugins (`~/.claude`, the project's `.claude`); only
    /// `--plugin-dir` ones load.
    #[arg(long, global = true)]
    pub bare: bool,
    /// Base URL of an OpenAI-compatible API.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Defer MCP tool definitions behind `tool_search`: `auto` (when they cost more than the
    /// threshold), `on`, `off`. Default: `AGENTWIRE_TOOL_SEARCH` (`auto|on|off|auto:TOKENS`),
    /// else auto.
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_mode)]
    pub tool_search: Option<SearchMode>,
    /// `auto` defers when the MCP definitions exceed this many estimated tokens (default 3000,
    /// or 10% of the context window when smaller).
    #[arg(long, global = true, value_name = "TOKENS")]
    pub tool_search_threshold: Option<u64>,
    /// The model's context window in tokens, when known (it lowers `auto`'s threshold).
    #[arg(long, global = true, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Confine `bash` by the kernel: `read-only`, `workspace-write` (the default where the
    /// kernel has Landlock; else `"sandbox"` in the user config file) or `off`.
    #[arg(long, global = true, env = "AGENTWIRE_SANDBOX", value_name = "MODE", value_parser = Mode::parse)]
    pub sandbox: Option<Mode>,
    /// Let sandboxed commands use the network (off by default inside the sandbox).
    #[arg(long, global = true)]
    pub sandbox_network: bool,
    /// Also keep PATH unreadable, inside the sandbox and by the file tools (repeatable; added to
    /// `~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.config/gcloud`, the state directory and the
    /// `--config` file).
    #[arg(long = "sandbox-deny", global = true, value_name = "PATH")]
    pub sandbox_deny: Vec<PathBuf>,
    /// With the network off, still let sandboxed commands connect to HOST:PORT over TCP
    /// (repeatable; the kernel checks the port, not the host).
    #[arg(long = "sandbox-allow", global = true, value_name = "HOST:PORT", value_parser = crate::os::sandbox::HostPort::parse)]
    pub sandbox_allow: Vec<crate::os::sandbox::HostPort>,
    /// Run `bash` without asking while the sandbox contains it (kernel-enforced, network off);
    /// deny rules still refuse it. Never the default.
    #[arg(long, global = true)]
    pub auto_approve_sandboxed: bool,
    /// Continue the latest session of this workspace (`run` and the interactive session).
    #[arg(
        long = "continue",
        short = 'c',
        global = true,
        conflicts_with = "resume"
    )]
    pub continue_latest: bool,
    /// Continue session ID (`agentwire sessions list` shows them).
    #[arg(long, global = true, value_name = "ID")]
    pub resume: Option<String>,
    /// Keep nothing on disk: the conversation lives only as long as the process.
    #[arg(long, global = true, conflicts_with_all = ["continue_latest", "resume"])]
    pub no_session_persistence: bool,
    /// Compact the conversation when a request passes PCT percent of the context window
    /// (default 80; needs a known window: `--context-window` or a model in the table).
    #[arg(long, global = true, value_name = "PCT", value_parser = clap::value_parser!(u8).range(10..=100))]
    pub compact_at: Option<u8>,
    /// Never compact automatically (`/compact` still does).
    #[arg(long, global = true)]
    pub no_compact: bool,
    /// With `--resume` of a paused run: approve the pending call CALL_ID (repeatable).
    #[arg(long, global = true, value_name = "CALL_ID")]
    pub approve: Vec<String>,
    /// With `--resume` of a paused run: reject the pending call CALL_ID (repeatable).
    #[arg(long, global = true, value_name = "CALL_ID")]
    pub reject: Vec<String>,
    /// Load no instruction files (CLAUDE.md, AGENTS.md, CLAUDE.local.md, .claude/rules,
    /// AGENTWIRE.md); `--bare` skips them too.
    #[arg(long, global = true)]
    pub no_instructions: bool,
    /// Most bytes of instructions in the system prompt (default 32768); more is cut with a note.
    #[arg(long, global = true, value_name = "BYTES")]
    pub instructions_budget: Option<usize>,
    /// Read hooks from FILE too (Claude Code's settings format), as your own (repeatable).
    #[arg(long = "settings", global = true, value_name = "FILE")]
    pub settings_files: Vec<PathBuf>,
}

impl CommonOptions {
    /// The run's settings, as the application takes them. Every option is named here, so a new
    /// one does not compile until it is given to the application (or deliberately not).
    pub fn settings(&self) -> Settings {
        let CommonOptions {
            config,
            json,
            allow,
            ask,
            deny,
            yes,
            audit,
            log_level,
            max_steps,
            max_agent_depth,
            workspace,
            model,
            trust_workspace,
            bash_env,
            plugin_dirs,
            bare,
            base_url,
            tool_search,
            tool_search_threshold,
            context_window,
            sandbox,
            sandbox_network,
            sandbox_deny,
            sandbox_allow,
            auto_approve_sandboxed,
            continue_latest,
            resume,
            no_session_persistence,
            compact_at,
            no_compact,
            approve,
            reject,
            no_instructions,
            instructions_budget,
            settings_files,
        } = self;
        Settings {
            config: config.clone(),
            json: *json,
            allow: allow.clone(),
            ask: ask.clone(),
            deny: deny.clone(),
            yes: *yes,
            audit: audit.clone(),
            log_level: log_level.clone(),
            max_steps: *max_steps,
            max_agent_depth: *max_agent_depth,
            workspace: workspace.clone(),
            model: model.clone(),
            trust_workspace: *trust_workspace,
            bash_env: bash_env.clone(),
            plugin_dirs: plugin_dirs.clone(),
            bare: *bare,
            base_url: base_url.clone(),
            tool_search: *tool_search,
            tool_search_threshold: *tool_search_threshold,
            context_window: *context_window,
            sandbox: *sandbox,
            sandbox_network: *sandbox_network,
            sandbox_deny: sandbox_deny.clone(),
            sandbox_allow: sandbox_allow.clone(),
            auto_approve_sandboxed: *auto_approve_sandboxed,
            session: crate::config::settings::SessionSettings {
                continue_latest: *continue_latest,
                resume: resume.clone(),
                no_persistence: *no_session_persistence,
                compact_at: *compact_at,
                no_compact: *no_compact,
                approve: approve.clone(),
                reject: reject.clone(),
            },
            no_instructions: *no_instructions,
            instructions_budget: *instructions_budget,
            settings_files: settings_files.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_carry_every_option_as_given() {
        let cli = Cli::try_parse_from([
            "agentwire",
            "--config",
            "c.json",
            "--json",
            "--allow",
            "a",
            "--ask",
            "b",
            "--deny",
            "c",
            "--yes",
            "--audit",
            "audit.log",
            "--log-level",
            "debug",
            "--max-steps",
            "7",
            "--workspace",
            "w",
            "--model",
            "m",
            "--trust-workspace",
            "--bash-env",
            "X,Y",
            "--plugin-dir",
            "p",
            "--bare",
            "--base-url",
            "http://127.0.0.1:1",
            "--tool-search",
            "on",
            "--tool-search-threshold",
            "11",
            "--context-window",
            "12",
        ])
        .expect("the options parse");
        let s = cli.common.settings();
        assert_eq!(s.config, Some(PathBuf::from("c.json")));
        assert!(s.json && s.yes && s.trust_workspace && s.bare);
        assert_eq!(
            (s.allow, s.ask, s.deny),
            (vec!["a".into()], vec!["b".into()], vec!["c".into()])
        );
        assert_eq!(s.audit, Some(PathBuf::from("audit.log")));
        assert_eq!(s.log_level.as_deref(), Some("debug"));
        assert_eq!(s.max_steps, 7);
        assert_eq!(s.workspace, Some(PathBuf::from("w")));
        assert_eq!(s.model.as_deref(), Some("m"));
        assert_eq!(s.bash_env, ["X", "Y"]);
        assert_eq!(s.plugin_dirs, [PathBuf::from("p")]);
        assert_eq!(s.base_url.as_deref(), Some("http://127.0.0.1:1"));
        assert_eq!(s.tool_search, Some(SearchMode::On));
        assert_eq!(s.tool_search_threshold, Some(11));
        assert_eq!(s.context_window, Some(12));
        assert_eq!(s.sandbox, None);
        assert!(!s.sandbox_network);
    }

    #[test]
    fn sandbox_options_reach_the_sandbox_with_the_config_file_denied() {
        let cli = Cli::try_parse_from([
            "agentwire",
            "--config",
            "/p/.mcp.json",
            "--sandbox",
            "read-only",
            "--sandbox-network",
            "--sandbox-deny",
            "/extra",
        ])
        .expect("the options parse");
        let caps = crate::os::sandbox::Capabilities {
            landlock_abi: 7,
            seccomp: true,
            mount_namespace: true,
        };
        let (s, line) = crate::app::sandbox_setup::sandbox_settings(
            &cli.common.settings(),
            &Default::default(),
            &caps,
        );
        assert_eq!(s.mode, Mode::ReadOnly);
        assert!(s.network);
        assert!(s.deny_read.contains(&PathBuf::from("/p/.mcp.json")));
        assert!(s.deny_read.contains(&PathBuf::from("/extra")));
        assert!(
            line.starts_with("sandbox: read-only (network on)"),
            "{line}"
        );
        assert!(Cli::try_parse_from(["agentwire", "--sandbox", "loose"]).is_err());
    }

    #[test]
    fn the_allow_list_and_the_user_file_reach_the_sandbox_and_the_flag_wins() {
        use crate::app::sandbox_setup::{sandbox_settings, uncontained};
        use crate::config::user_sandbox::UserSandbox;
        use crate::os::sandbox::HostPort;
        let caps = crate::os::sandbox::Capabilities {
            landlock_abi: 7,
            seccomp: true,
            mount_namespace: true,
        };
        let parse = |args: &[&str]| {
            let mut all = vec!["agentwire"];
            all.extend_from_slice(args);
            Cli::try_parse_from(all).map(|cli| cli.common.settings())
        };
        let user = UserSandbox {
            mode: Some(Mode::ReadOnly),
            allow: vec![HostPort::parse("[::1]:9000").unwrap()],
            deny: vec![PathBuf::from("/from-user")],
            ..UserSandbox::default()
        };
        let options = parse(&["--sandbox-allow", "localhost:5432"]).unwrap();
        let (s, line) = sandbox_settings(&options, &user, &caps);
        assert_eq!(s.mode, Mode::ReadOnly);
        assert!(!s.network);
        assert_eq!(s.allow.len(), 2);
        assert!(s.deny_read.contains(&PathBuf::from("/from-user")));
        assert!(
            line.ends_with(
                "TCP still allowed to [::1]:9000, localhost:5432 (the kernel checks the ports, \
                 not the hosts)"
            ),
            "{line}"
        );
        assert_eq!(
            uncontained(&s, &caps).as_deref(),
            Some("TCP ports are allowed")
        );
        let options = parse(&["--sandbox", "workspace-write"]).unwrap();
        let (s, _) = sandbox_settings(&options, &UserSandbox::default(), &caps);
        assert_eq!(uncontained(&s, &caps), None);
        let (s, _) = sandbox_settings(&options, &user, &caps);
        assert_eq!(s.mode, Mode::WorkspaceWrite);
        let user_network = UserSandbox {
            network: Some(true),
            ..UserSandbox::default()
        };
        let (s, _) = sandbox_settings(&options, &user_network, &caps);
        assert!(s.network);
        assert_eq!(uncontained(&s, &caps).as_deref(), Some("the network is on"));
        let mut off = s.clone();
        off.mode = Mode::Off;
        assert_eq!(
            uncontained(&off, &caps).as_deref(),
            Some("the sandbox is off")
        );
        let (s, _) = sandbox_settings(&options, &UserSandbox::default(), &caps);
        let weak = crate::os::sandbox::Capabilities {
            mount_namespace: false,
            ..caps
        };
        assert!(uncontained(&s, &weak).unwrap().contains(".git/hooks"));
        assert!(parse(&["--sandbox-allow", "nope"]).is_err());
    }
}
