//! The assembled application: runtime, servers, built-in tools, model and the terminal view.

pub mod agent_models;
pub mod connect;
pub mod instructions;
pub mod local_tools;
pub mod render;
pub mod sandbox_setup;
pub mod server_sandbox;
pub mod servers;
pub mod session_attach;
pub mod sessions;

use crate::app::connect::{connect_all, describe, last_stderr, workspace_root, StderrTails};
use crate::app::local_tools::BuiltinTools;
use crate::app::render::{Format, Terminal};
use crate::app::servers::{mock_github, plan};
use crate::config::project_config::{choose_config, TrustPrompt, PROJECT_CONFIG};
use crate::config::settings::Settings;
use crate::extensions::discover::project_plugin_roots;
use crate::extensions::hook_runner::HookProcesses;
use crate::extensions::session::Extensions;
use crate::model::{ModelChoice, ModelOverrides, ModelSettings};
use crate::os::clock::TokioClock;
use crate::tools::{Protected, Workspace};
use agentwire::agent::{Agent, AgentConfig};
use agentwire::config::ServerConfig;
use agentwire::driver::{ModelBackend, Runtime};
use agentwire::fallback::after_real_failure;
use agentwire::hooks::HookContext;
use agentwire::mcp::Root;
use agentwire::policy::Policy;
use agentwire::registry::{Registry, Risk, RiskOverrides};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::rc::Rc;
use std::sync::Mutex;

/// Everything a command needs.
pub struct App {
    /// The runtime with its servers connected.
    pub runtime: Runtime<TokioClock>,
    /// The terminal view (events, approvals, audit).
    pub terminal: Terminal,
    /// The configured servers this app started (for what the runtime does not know, such as
    /// their OAuth settings).
    pub servers: Vec<ServerConfig>,
    /// Stderr tails of stdio servers.
    pub tails: Mutex<StderrTails>,
    /// Output format.
    pub format: Format,
    /// The skills, commands and plugins found (re-discovered by `/reload`).
    pub extensions: RefCell<Extensions>,
    /// Where the conversation is kept, once a session is attached (`/resume` switches it).
    pub sessions: RefCell<Option<crate::app::sessions::SessionStore>>,
    /// The instruction files loaded (`None` under `--bare` or `--no-instructions`).
    pub instructions: RefCell<Option<crate::extensions::instructions::SessionInstructions>>,
    /// Whether `SessionStart` fired (then `SessionEnd` fires at shutdown).
    session_started: std::cell::Cell<bool>,
    /// Whether the conversation continues a stored session (`--continue`, `--resume`): its
    /// `SessionStart` then says `resume`, not `startup`.
    pub resumed: std::cell::Cell<bool>,
}

/// What every hook input says about the session: a fresh id and the working directory.
fn hook_context(cwd: &std::path::Path) -> HookContext {
    let mut bytes = [0u8; 16];
    let _ = getrandom::fill(&mut bytes);
    HookContext {
        session_id: bytes.iter().map(|b| format!("{b:02x}")).collect(),
        transcript_path: None,
        cwd: cwd.display().to_string(),
        permission_mode: "default".into(),
    }
}

/// Which servers to connect.
pub enum ServerSelection<'a> {
    /// Every enabled server.
    All,
    /// Only this one (for `mcp call`).
    Only(&'a str),
}

fn policy(options: &Settings) -> Result<Policy, String> {
    Policy::from_lists(&options.allow, &options.ask, &options.deny).map_err(|e| e.to_string())
}

/// The risk settings of the config; a project's servers are distrusted (the gate asks for their
/// tools unless an override or an allow rule covers them).
fn overrides(servers: &[ServerConfig], project_scoped: bool) -> Result<RiskOverrides, String> {
    let mut overrides = RiskOverrides::new();
    for server in servers {
        if project_scoped {
            overrides.distrust_server(&server.name);
        }
        if let Some(risk) = &server.risk {
            overrides.set_server(&server.name, Risk::parse(risk)?);
        }
        for (tool, risk) in &server.tool_risk {
            overrides.set_tool(&server.name, tool, Risk::parse(risk)?);
        }
    }
    Ok(overrides)
}

/// The model the options and environment ask for: an OpenAI-compatible endpoint when a key is
/// configured, otherwise the mock model (with a notice saying why).
fn model(options: &Settings) -> Result<(Rc<dyn ModelBackend>, Option<String>), String> {
    let overrides = ModelOverrides {
        model: options.model.clone(),
        base_url: options.base_url.clone(),
        ..ModelOverrides::default()
    };
    let choice = ModelSettings::from_env(|name| std::env::var(name).ok(), &overrides)?;
    let description = match &choice {
        ModelChoice::OpenAi(settings) => Some(format!("model: {}", settings.describe())),
        _ => None,
    };
    let (backend, notice) = choice.into_backend()?;
    Ok((backend, notice.or(description)))
}

/// Opens the audit log for appending. A new file is created owner-only (0600, like the token
/// store): tool arguments can be sensitive even after redaction. An existing file keeps its
/// mode, so a log the user made readable, or tighter, stays as it is.
pub fn open_audit_log(path: &std::path::Path) -> Result<std::fs::File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let shown = path.display();
    // Without blocking (a FIFO would wait for a reader forever), then regular files only: a
    // FIFO or a device is not a record.
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC | nix::libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match std::fs::metadata(path) {
            // A FIFO with no reader fails the open itself (ENXIO): say what it is.
            Ok(meta) if !meta.is_file() => format!(
                "cannot open audit log {shown}: not a regular file ({})",
                crate::os::config_file::kind_of(&meta)
            ),
            _ => format!("cannot open audit log {shown}: {e}"),
        })?;
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok(file),
        Ok(meta) => Err(format!(
            "cannot open audit log {shown}: not a regular file ({})",
            crate::os::config_file::kind_of(&meta)
        )),
        Err(e) => Err(format!("cannot open audit log {shown}: {e}")),
    }
}

impl App {
    /// Builds the runtime, registers built-in tools and connects the selected servers, printing
    /// notices and one status line per server to stderr (unless `quiet`). A project's
    /// `.mcp.json` is used only in a trusted workspace; `prompt` says whether to ask.
    pub async fn start(
        options: &Settings,
        selection: ServerSelection<'_>,
        quiet: bool,
        prompt: TrustPrompt,
    ) -> Result<App, String> {
        let format = if options.json {
            Format::Json
        } else {
            Format::Human
        };
        let choice = choose_config(options, prompt, project_plugin_roots).await?;
        // Said even when quiet: the user must learn why the project's servers are missing.
        if let Some(refusal) = &choice.refusal {
            eprintln!("{refusal}");
        }
        let plan = plan(&choice)?;
        let mut servers = plan.servers;
        let extensions =
            Extensions::discover(&options.plugin_dirs, options.bare, options.trust_workspace);
        // A plugin's servers run beside the config's, under names only the plugin owns.
        servers.extend(extensions.plugin_servers());
        if let ServerSelection::Only(name) = selection {
            if !servers.iter().any(|s| s.name == name) {
                let known: Vec<_> = servers.iter().map(|s| s.name.as_str()).collect();
                let untrusted = match choice.refusal {
                    Some(_) => format!("; {PROJECT_CONFIG} was not used (untrusted workspace)"),
                    None => String::new(),
                };
                return Err(format!(
                    "no MCP server named {name:?} (configured: {}){untrusted}",
                    known.join(", ")
                ));
            }
            servers.retain(|s| s.name == name);
        }
        let mut registry = Registry::new();
        let mut risk = overrides(&servers, plan.project_scoped)?;
        // A plugin's server is the plugin author's, not the user's (a user's plugin too): like
        // a project's `.mcp.json` servers, the gate does not rely on what their tools say
        // about themselves; the user's own allow rules still run them unasked.
        for server in extensions.distrusted_servers() {
            risk.distrust_server(&server);
        }
        registry.set_overrides(risk);
        for server in &servers {
            let mut limits = registry.limits_for(&server.name);
            limits.timeout = server.timeout;
            registry.set_server_limits(&server.name, limits);
        }
        let workspace = match &options.workspace {
            Some(dir) => {
                Workspace::new(dir).map_err(|e| format!("workspace {}: {e}", dir.display()))?
            }
            None => {
                Workspace::current().map_err(|e| format!("workspace (current directory): {e}"))?
            }
        };
        // The file tools never write what would run or be trusted later, whatever the
        // workspace holds: the user's places, and the files this command line names.
        let mut protected = Protected::from_env();
        if let Some(config) = &options.config {
            protected = protected.config_file(config);
        }
        if let Some(audit) = &options.audit {
            protected = protected.audit_log(audit);
        }
        for dir in &options.plugin_dirs {
            protected = protected.plugin_dir(dir);
        }
        // What the sandbox keeps from `bash`, the file tools do not read either.
        for path in &options.sandbox_deny {
            protected = protected.unreadable(path);
        }
        let workspace = workspace.protecting(protected);
        // Servers may work in the workspace: it is their one root.
        let roots: Vec<Root> = workspace_root(workspace.root()).into_iter().collect();
        let caps = crate::os::sandbox::Capabilities::probe();
        let sandbox = sandbox_setup::run_sandbox(options, &caps)?;
        server_sandbox::set_base(&sandbox.settings, &workspace);
        // No entry but the user's own gets a looser sandbox than the user's `bash`: not a
        // project's `.mcp.json` (when read), and not a plugin's, whoever installed the plugin.
        for warning in
            server_sandbox::clamp_servers(&mut servers, plan.project_scoped, &sandbox.settings)
        {
            crate::errln!("{warning}");
        }
        let sandbox_mode = sandbox.settings.mode.as_str();
        let tools = BuiltinTools::new(workspace)
            .with_bash_env(options.bash_env.clone())
            .with_sandbox(sandbox.settings.clone())
            .with_skill_dirs(extensions.skill_dirs.clone());
        for problem in tools.register(&mut registry) {
            crate::errln!("warning: {problem}");
        }
        let mut config = AgentConfig {
            max_steps: options.max_steps,
            tool_search: crate::config::tool_search::resolve(
                options.tool_search,
                options.tool_search_threshold,
                options.context_window,
                |name| std::env::var(name).ok(),
            )?,
            ..AgentConfig::default()
        };
        for server in &servers {
            config
                .tool_search
                .set_server(&server.name, server.tool_search.clone());
        }
        let (model, model_notice) = model(options)?;
        config.context = session_attach::context_config(options, model.model_name().as_deref());
        let mut agent = Agent::new(registry, policy(options)?, config);
        extensions.install(&mut agent);
        let instructions = instructions::load(options);
        if let Some(instructions) = &instructions {
            instructions::install(&mut agent, instructions);
        }
        let hooks = crate::extensions::hooks::load_hooks(&extensions, &options.settings_files);
        agent.set_hooks(hooks.set.clone(), hook_context(extensions.cwd()));
        let runtime = Runtime::new(agent, model, Rc::new(tools), TokioClock);
        let hook_audit = match &options.audit {
            Some(path) => Some(open_audit_log(path)?),
            None => None,
        };
        let processes = HookProcesses::new(extensions.cwd().to_path_buf(), hook_audit);
        runtime.set_hook_runner(Some(processes.runner()));
        let mut agent_files = crate::extensions::agents::agent_files(&extensions);
        let provider =
            agent_models::session_provider(options.model.as_deref(), options.base_url.as_deref());
        agent_models::check_models(&mut agent_files, provider);
        runtime.set_agents(agent_files.set.clone());
        runtime.set_model_resolver(Some(agent_models::resolver(
            options.base_url.as_deref(),
            provider,
            agent_files.paths.clone(),
        )));
        runtime.set_subagent_limits(
            options.max_agent_depth,
            agentwire::subagent::DEFAULT_TOKEN_BUDGET,
        );

        let audit = match &options.audit {
            Some(path) => Some(open_audit_log(path)?),
            None => None,
        };
        let terminal = Terminal::new(format, Terminal::approval_mode(options.yes, format), audit)
            .with_log_level(options.log_level.as_deref())
            .with_sandbox_mode(sandbox_mode)
            .approving_sandboxed_bash(sandbox.auto_approve);
        let app = App {
            runtime,
            servers: servers.clone(),
            terminal,
            tails: Mutex::new(StderrTails::new()),
            format,
            extensions: RefCell::new(extensions),
            sessions: RefCell::new(None),
            instructions: RefCell::new(instructions),
            session_started: std::cell::Cell::new(false),
            resumed: std::cell::Cell::new(false),
        };
        let say = |line: &str| {
            if !quiet {
                crate::errln!("{line}");
            }
        };
        for notice in plan.notices.iter().chain(model_notice.iter()) {
            say(notice);
        }
        for line in &sandbox.lines {
            say(line);
        }
        app.report_extensions(quiet);
        app.report_instructions(quiet);
        // Said even when quiet, once: the user must learn why the project's hooks stay off.
        for warning in &hooks.warnings {
            eprintln!("warning: {}", crate::os::term_safe::visible(warning));
        }
        if let Some(notice) = &hooks.blocked_notice {
            eprintln!("{notice}");
        }
        if !agent_files.errors.is_empty() {
            say(&format!(
                "agents: {} problems (agentwire agents list)",
                agent_files.errors.len()
            ));
        }
        let progress = !quiet && std::io::stderr().is_terminal();
        for outcome in connect_all(&app.runtime, &servers, &app.tails, progress, &roots).await {
            let fell_back =
                plan.github_fallback_is_real && outcome.name == "github" && outcome.result.is_err();
            if fell_back {
                let reason = outcome.result.as_ref().err().cloned().unwrap_or_default();
                say(&after_real_failure(&reason).notice());
                app.runtime.remove_server("github");
                let mock = [mock_github()];
                for retry in connect_all(&app.runtime, &mock, &app.tails, progress, &roots).await {
                    say(&describe(&retry));
                }
            } else {
                say(&describe(&outcome));
            }
            let skipped = app
                .runtime
                .with_agent(|agent| agent.registry().skipped_tools(&outcome.name).len());
            if skipped > 0 {
                say(&format!(
                    "MCP server {}: {skipped} listed tool entries were not loaded; \
                     `agentwire mcp list` says why",
                    outcome.name
                ));
            }
        }
        app.warn_unmatched_rules(quiet);
        if let Some(level) = &options.log_level {
            for failure in app.runtime.set_log_level(level).await {
                say(&failure);
            }
        }
        Ok(app)
    }

    /// Warns about every allow/ask/deny pattern that matches no tool once the servers are up
    /// (`--deny BASH` matches nothing: names are case-sensitive): on stderr always, and as a
    /// `{"type":"warning"}` event when stdout is a `--json` event stream (not `quiet`).
    fn warn_unmatched_rules(&self, quiet: bool) {
        let warnings: Vec<(String, String)> = self.runtime.with_agent(|agent| {
            agent
                .policy()
                .unmatched_rules(agent.registry().tools())
                .iter()
                .map(|u| (u.rule.to_string(), u.to_string()))
                .collect()
        });
        for (rule, message) in warnings {
            eprintln!("warning: {message}");
            if self.format == Format::Json && !quiet {
                crate::outln!(
                    "{}",
                    serde_json::json!({"type": "warning", "rule": rule, "message": message})
                );
            }
        }
    }

    /// Says on stderr what discovery found (one summary line, unless `quiet` or `--json`), and
    /// always the problems and the plugins left unloaded: the user must learn why an item is
    /// missing.
    fn report_extensions(&self, quiet: bool) {
        let extensions = self.extensions.borrow();
        for problem in &extensions.found.errors {
            eprintln!("warning: {problem}");
        }
        for reason in extensions
            .found
            .plugins
            .iter()
            .filter_map(|p| p.not_loaded.as_ref())
        {
            eprintln!("{reason}");
        }
        for error in extensions
            .plugin_errors
            .iter()
            .chain(&extensions.parsed.errors)
        {
            eprintln!("warning: {error}");
        }
        for collision in &extensions.parsed.collisions {
            eprintln!("warning: {}", collision.message);
        }
        for plugin in &extensions.plugins {
            for warning in &plugin.warnings {
                eprintln!("warning: plugin {}: {warning}", plugin.name);
            }
        }
        let nothing = extensions.found.skills.is_empty()
            && extensions.found.commands.is_empty()
            && extensions.found.plugins.is_empty();
        if !quiet && self.format == Format::Human && !nothing {
            crate::errln!("{}", extensions.summary());
        }
    }

    /// Fires `SessionStart` with `source` (`startup`, `clear`, …; `startup` of a continued
    /// session is `resume`): its hooks' context joins
    /// the next prompt; `SessionEnd` follows at shutdown.
    pub async fn session_start(&self, source: &str) {
        self.session_started.set(true);
        let source = if source == "startup" && self.resumed.get() {
            "resume"
        } else {
            source
        };
        self.runtime.session_start(source, &self.terminal).await;
    }

    /// The last stderr lines of a stdio server.
    pub fn stderr_tail(&self, server: &str, lines: usize) -> Vec<String> {
        last_stderr(&self.tails, server, lines)
    }

    /// Shuts every server down in order (stdin closed, then SIGTERM, then SIGKILL) and waits
    /// for the children to be reaped.
    pub async fn shutdown(&self) {
        if self.session_started.get() {
            self.runtime.session_end("other", &self.terminal).await;
        }
        // First let the connection drivers send what is queued, such as the
        // `notifications/cancelled` of an interrupted call: closing drops unsent messages.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        self.runtime.close();
        // The drivers close their transports on the local executor; give them a moment to run.
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
    }
}
