//! Kernel confinement of local MCP servers that ask for it (`"sandbox"` in their `.mcp.json`
//! entry): the same rules as `bash` (deny list, workspace, protected paths, no capabilities),
//! in the mode the entry names, with the network on unless it says otherwise.
//!
//! agentwire reads one MCP config per run (the user's `--config` or the project's
//! `.mcp.json`), so a project entry never overrides a user's; and everything an entry can ask
//! for is stricter than the default for servers, which is unconfined.

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
