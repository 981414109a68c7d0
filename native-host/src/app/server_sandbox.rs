//! Kernel confinement of local MCP servers that ask for it (`"sandbox"` in their `.mcp.json`
//! entry): the same rules as `bash` (deny list, workspace, protected paths, no capabilities),
//! in the mode the entry names, with the network on unless it says otherwise.
//!
//! agentwire reads one MCP config per run (the user's `--config` or the project's
//! `.mcp.json`), so a project entry never overrides a user's. A project's entry is also held
//! to the user's own sandbox (the mode and network `bash` runs under, [`clamp_servers`]):
//! it may ask for less, never for more. So is every plugin's entry, whoever installed it.

use crate::os::sandbox::{Capabilities, Mode, Plan, PrivateTmp};
use crate::tools::sandbox_policy::{self, SandboxSettings};
use crate::tools::Workspace;
use agentwire::config::{ServerConfig, ServerSandbox};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The run's deny list and workspace, set once the run knows them (servers start on the
    /// run's one thread).
    static BASE: RefCell<Option<(SandboxSettings, Workspace)>> = const { RefCell::new(None) };
}

/// The sandbox a project's entry asking for `asked` gets under the user's `floor` (the run's
/// `bash` settings): `None` when `asked` is already no looser, else `asked` narrowed to the
/// floor (read-only when `bash` is, the network off when `bash` has it off). A floor of
/// [`Mode::Off`] confines nothing, so it narrows nothing.
pub fn clamp(asked: ServerSandbox, floor: &SandboxSettings) -> Option<ServerSandbox> {
    let most = match floor.mode {
        Mode::Off => return None,
        Mode::ReadOnly => ServerSandbox {
            read_only: true,
            network: floor.network,
        },
        Mode::WorkspaceWrite => ServerSandbox {
            read_only: false,
            network: floor.network,
        },
    };
    if asked.at_least_as_strict_as(&most) {
        return None;
    }
    Some(ServerSandbox {
        read_only: asked.read_only || most.read_only,
        network: asked.network && most.network,
    })
}

/// Whose config a server came from, as far as the sandbox clamp cares.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Origin {
    /// The user's own config (`--config`, or the GitHub fallback): never narrowed.
    User,
    /// A project's `.mcp.json`.
    Project,
    /// A plugin (`plugin_<p>_<s>`, a prefix only plugins' servers may carry), whoever
    /// installed it: its author, not the user, wrote the entry.
    Plugin,
}

fn origin(server: &ServerConfig, project_scoped: bool) -> Origin {
    if crate::app::servers::reserved_server_name(&server.name).is_some() {
        return Origin::Plugin;
    }
    if project_scoped {
        Origin::Project
    } else {
        Origin::User
    }
}

/// Narrows the sandbox every entry that is not the user's own asks for to the user's `floor`
/// (see [`clamp`]): a plugin's servers always, a project's `.mcp.json` entries when the run
/// reads it (`project_scoped`). Returns one warning per entry narrowed, naming the server, whose
/// entry it is, what it asked for and what it gets. Entries asking for no sandbox run
/// unconfined, as a user's do.
pub fn clamp_servers<'a>(
    servers: impl IntoIterator<Item = &'a mut ServerConfig>,
    project_scoped: bool,
    floor: &SandboxSettings,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for server in servers {
        let whose = match origin(server, project_scoped) {
            Origin::User => continue,
            Origin::Project => "the project's .mcp.json",
            Origin::Plugin => "its plugin",
        };
        let Some(asked) = server.sandbox else {
            continue;
        };
        let Some(narrowed) = clamp(asked, floor) else {
            continue;
        };
        warnings.push(format!(
            "warning: server {}: {whose} asks for the sandbox {}, looser than yours ({}); it \
             runs {}",
            server.name,
            describe(asked),
            describe_settings(floor),
            describe(narrowed),
        ));
        server.sandbox = Some(narrowed);
    }
    warnings
}

/// `workspace-write with the network on`, as the warnings say it.
fn describe(sandbox: ServerSandbox) -> String {
    let mode = if sandbox.read_only {
        Mode::ReadOnly
    } else {
        Mode::WorkspaceWrite
    };
    let net = if sandbox.network { "on" } else { "off" };
    format!("{} with the network {net}", mode.as_str())
}

fn describe_settings(settings: &SandboxSettings) -> String {
    let net = if settings.network { "on" } else { "off" };
    format!("{} with the network {net}", settings.mode.as_str())
}

/// Records the run's sandbox settings (for their deny list) and workspace.
pub fn set_base(settings: &SandboxSettings, workspace: &Workspace) {
    BASE.with(|base| *base.borrow_mut() = Some((settings.clone(), workspace.clone())));
}

/// The settings for a server asking for `asked`: the run's deny list (else the default one
/// and the current directory as workspace), the entry's mode and network, and a plugin's own
/// data folder for its servers (`plugin_<p>_<s>`).
fn settings_for(name: &str, asked: &ServerSandbox) -> Result<(SandboxSettings, Workspace), String> {
    let (mut settings, workspace) = match BASE.with(|base| base.borrow().clone()) {
        Some(base) => base,
        None => (
            SandboxSettings {
                deny_read: sandbox_policy::default_deny(&|name| std::env::var_os(name)),
                ..SandboxSettings::default()
            },
            Workspace::current().map_err(|e| format!("workspace (current directory): {e}"))?,
        ),
    };
    settings.mode = if asked.read_only {
        Mode::ReadOnly
    } else {
        Mode::WorkspaceWrite
    };
    settings.network = asked.network;
    settings.allow.clear();
    settings.grants.clear();
    if let Some(plugin) = name
        .strip_prefix("plugin_")
        .and_then(|rest| rest.split('_').next())
    {
        let source = format!("plugin:{plugin}");
        settings
            .grants
            .extend(sandbox_policy::plugin_data_grant(&source, &|var| {
                std::env::var_os(var)
            }));
    }
    Ok((settings, workspace))
}

/// The rules and private `TMPDIR` for `server`, `None` when it asks for no sandbox or this
/// kernel has no Landlock (then it runs unconfined and a notice says so). Errors name the
/// server.
pub fn confinement(
    server: &ServerConfig,
    caps: &Capabilities,
) -> Result<Option<(Plan, Arc<PrivateTmp>)>, String> {
    let Some(asked) = &server.sandbox else {
        return Ok(None);
    };
    if !caps.files() {
        crate::errln!(
            "warning: server {}: no Landlock on this kernel, so its \"sandbox\" is not enforced",
            server.name
        );
        return Ok(None);
    }
    let (settings, workspace) = settings_for(&server.name, asked)?;
    let tmp = PrivateTmp::new("server").map_err(|e| {
        format!(
            "server {}: sandbox: cannot make a temporary folder: {e}",
            server.name
        )
    })?;
    let mut plan = sandbox_policy::plan(&settings, &workspace, tmp.path());
    if !caps.mount_namespace {
        plan.read_only_mounts.clear();
        plan.pinned.clear();
    }
    Ok(Some((plan, Arc::new(tmp))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire::config::McpConfig;

    fn asked(read_only: bool, network: bool) -> ServerSandbox {
        ServerSandbox { read_only, network }
    }

    fn floor(mode: Mode, network: bool) -> SandboxSettings {
        SandboxSettings {
            mode,
            network,
            ..SandboxSettings::default()
        }
    }

    #[test]
    fn an_entry_no_looser_than_the_users_sandbox_is_left_as_it_asks() {
        let ww_offline = floor(Mode::WorkspaceWrite, false);
        assert_eq!(clamp(asked(true, false), &ww_offline), None);
        assert_eq!(clamp(asked(false, false), &ww_offline), None);
        let ww_online = floor(Mode::WorkspaceWrite, true);
        for entry in [
            asked(false, true),
            asked(true, true),
            asked(false, false),
            asked(true, false),
        ] {
            assert_eq!(clamp(entry, &ww_online), None, "{entry:?}");
            // With the sandbox off the user confines nothing: an entry only tightens.
            assert_eq!(clamp(entry, &floor(Mode::Off, false)), None, "{entry:?}");
        }
        assert_eq!(clamp(asked(true, true), &floor(Mode::ReadOnly, true)), None);
    }

    #[test]
    fn a_looser_entry_is_narrowed_to_the_users_mode_and_network() {
        // The network: on in the entry, off for the user's bash.
        let ww_offline = floor(Mode::WorkspaceWrite, false);
        assert_eq!(
            clamp(asked(false, true), &ww_offline),
            Some(asked(false, false))
        );
        assert_eq!(
            clamp(asked(true, true), &ww_offline),
            Some(asked(true, false))
        );
        // The mode: workspace-write in the entry, read-only for the user, each network kept
        // where the user allows it.
        assert_eq!(
            clamp(asked(false, true), &floor(Mode::ReadOnly, true)),
            Some(asked(true, true))
        );
        assert_eq!(
            clamp(asked(false, false), &floor(Mode::ReadOnly, true)),
            Some(asked(true, false))
        );
        assert_eq!(
            clamp(asked(false, true), &floor(Mode::ReadOnly, false)),
            Some(asked(true, false))
        );
    }

    #[test]
    fn each_narrowed_project_entry_is_warned_about_by_name() {
        let text = r#"{"mcpServers": {
            "docs": {"command": "x", "sandbox": "workspace-write"},
            "calm": {"command": "x", "sandbox": {"mode": "read-only", "network": false}},
            "open": {"command": "x"}
        }}"#;
        let mut config = McpConfig::parse(".mcp.json", text, &|_| None).unwrap();
        let warnings = clamp_servers(&mut config.servers, true, &floor(Mode::ReadOnly, false));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            warnings[0],
            "warning: server docs: the project's .mcp.json asks for the sandbox \
             workspace-write with the network on, looser than yours (read-only with the \
             network off); it runs read-only with the network off"
        );
        let by_name = |name: &str| {
            config
                .servers
                .iter()
                .find(|s| s.name == name)
                .unwrap()
                .sandbox
        };
        assert_eq!(by_name("docs"), Some(asked(true, false)));
        assert_eq!(by_name("calm"), Some(asked(true, false)));
        // Asking for no sandbox is the servers' default, unconfined, as a user's entry.
        assert_eq!(by_name("open"), None);
    }

    #[test]
    fn a_plugins_entry_is_narrowed_in_every_run_and_the_users_own_never() {
        let text = r#"{"mcpServers": {
            "mine": {"command": "x", "sandbox": "workspace-write"},
            "plugin_kit_build": {"command": "x", "sandbox": "workspace-write"},
            "PLUGIN_Kit_Shout": {"command": "x", "sandbox": "workspace-write"}
        }}"#;
        let strict = floor(Mode::ReadOnly, false);
        for project_scoped in [false, true] {
            let mut config = McpConfig::parse("servers.json", text, &|_| None).unwrap();
            let warnings = clamp_servers(&mut config.servers, project_scoped, &strict);
            let sandbox = |name: &str| {
                config
                    .servers
                    .iter()
                    .find(|s| s.name == name)
                    .unwrap()
                    .sandbox
            };
            assert_eq!(sandbox("plugin_kit_build"), Some(asked(true, false)));
            assert_eq!(sandbox("PLUGIN_Kit_Shout"), Some(asked(true, false)));
            let by_plugin = warnings
                .iter()
                .filter(|w| w.contains(": its plugin asks for"));
            assert_eq!(by_plugin.count(), 2, "{warnings:?}");
            // The user's own file (`--config`) is the user's word; a project's is not.
            let mine = if project_scoped {
                Some(asked(true, false))
            } else {
                Some(asked(false, true))
            };
            assert_eq!(sandbox("mine"), mine);
            assert_eq!(
                warnings.len(),
                2 + usize::from(project_scoped),
                "{warnings:?}"
            );
        }
    }
}
