//! Which MCP servers to start: the config file's, or the GitHub fallback when there is none.

use crate::config::project_config::ConfigChoice;
use crate::os::config_file::read_config;
use agentwire::config::{
    McpConfig, ServerConfig, ServerTransport, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT,
};
use agentwire::fallback::{
    choose_github_server, token_from_env, FallbackInputs, GithubServerChoice,
};
use agentwire::mcp::ProtocolChoice;
use std::path::Path;

/// The servers to start and what to tell the user about them.
pub struct ServerPlan {
    /// Servers in config order.
    pub servers: Vec<ServerConfig>,
    /// Config warnings and fallback notices.
    pub notices: Vec<String>,
    /// Whether `github` is the real server chosen by the fallback (so a failure falls back to
    /// the mock).
    pub github_fallback_is_real: bool,
    /// Whether the servers come from a project's `.mcp.json` (the gate then does not rely on
    /// their own tool descriptions).
    pub project_scoped: bool,
}

/// Why a user's or project's server may not have `name`: the `plugin_` prefix (after the
/// squeezing MCP tool names get, any case) is how tools and audit records are attributed to a
/// plugin, so only a plugin's own servers may carry it.
pub fn reserved_server_name(name: &str) -> Option<String> {
    let part = agentwire::registry::names::server_part(name).to_ascii_lowercase();
    part.starts_with("plugin_").then(|| {
        format!(
            "server {name:?}: the \"plugin_\" server-name prefix is reserved for plugins' own \
             servers (their tools and audit records are attributed by it); rename the server"
        )
    })
}

fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Whether `program` is on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| is_executable(&dir.join(program))))
        .unwrap_or(false)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The `github` entry the fallback policy picks: real with a token and npx, else the mock.
pub fn github_fallback() -> (ServerConfig, Option<String>, bool) {
    let inputs = FallbackInputs {
        token: token_from_env(env_lookup),
        can_spawn: true,
        npx_available: on_path("npx"),
    };
    let choice = choose_github_server(&inputs);
    let notice = choice.notice();
    match choice {
        GithubServerChoice::Real { command, args, env } => {
            // npx may download the package on first use: give it longer than a normal start.
            let mut server = server(
                "github",
                ServerTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd: None,
                },
            );
            server.startup_timeout = DEFAULT_STARTUP_TIMEOUT * 2;
            (server, Some(notice), true)
        }
        _ => (mock_github(), Some(notice), false),
    }
}

/// The built-in mock GitHub server as a config entry.
pub fn mock_github() -> ServerConfig {
    server("github", ServerTransport::Mock)
}

fn server(name: &str, transport: ServerTransport) -> ServerConfig {
    // The built-in mock speaks the legacy era only: probing it would only cost a round trip.
    let protocol = match transport {
        ServerTransport::Mock => ProtocolChoice::Legacy,
        _ => ProtocolChoice::Auto,
    };
    ServerConfig {
        name: name.to_owned(),
        protocol,
        disabled: false,
        sampling: false,
        tasks: false,
        skills: false,
        timeout: DEFAULT_TIMEOUT,
        startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        transport,
        risk: None,
        tool_risk: Vec::new(),
        sandbox: None,
        tool_search: Default::default(),
    }
}

/// Reads the config `choice` picked, else plans the GitHub fallback. A broken config is an
/// error naming the file, server and field.
pub fn plan(choice: &ConfigChoice) -> Result<ServerPlan, String> {
    let Some(path) = &choice.file else {
        let (github, notice, real) = github_fallback();
        return Ok(ServerPlan {
            servers: vec![github],
            notices: notice.into_iter().collect(),
            github_fallback_is_real: real,
            project_scoped: false,
        });
    };
    let shown = path.display().to_string();
    let text = read_config(path)?;
    let config = McpConfig::parse(&shown, &text, &env_lookup).map_err(|e| e.to_string())?;
    if let Some(problem) = config
        .servers
        .iter()
        .find_map(|s| reserved_server_name(&s.name))
    {
        return Err(format!("{shown}: {problem}"));
    }
    let notices = config
        .warnings
        .iter()
        .map(|w| format!("{shown}: {w}"))
        .collect();
    Ok(ServerPlan {
        servers: config.servers,
        notices,
        github_fallback_is_real: false,
        project_scoped: choice.project_scoped,
    })
}

#[cfg(test)]
mod tests {
    use super::reserved_server_name;

    #[test]
    fn only_names_that_would_read_as_a_plugins_server_are_reserved() {
        for name in [
            "plugin_evil_srv",
            "plugin_x",
            "Plugin_Evil_srv",
            "plugin.evil.srv",
            "__plugin__evil",
            "plugin evil",
        ] {
            let problem = reserved_server_name(name).unwrap_or_default();
            assert!(problem.contains(&format!("{name:?}")), "{name}: {problem}");
            assert!(problem.contains("reserved for plugins"), "{problem}");
        }
        for name in ["plugin", "plugins", "my_plugin_x", "github", "plugin-evil"] {
            assert_eq!(reserved_server_name(name), None, "{name}");
        }
    }
}
