//! The sandbox of a run: the mode asked for (by default workspace-write where the kernel has
//! Landlock), the deny list, and the line that says at start what is and is not enforced.

use crate::config::settings::Settings;
use crate::config::user_sandbox::{self, UserSandbox};
use crate::os::sandbox::{Capabilities, Mode};
use crate::tools::sandbox_policy::{self, SandboxSettings};

/// The sandbox of one run, as the application wires it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSandbox {
    /// How `bash` is confined.
    pub settings: SandboxSettings,
    /// The lines to say at start.
    pub lines: Vec<String>,
    /// Whether `bash` runs without asking (`--auto-approve-sandboxed`, and contained).
    pub auto_approve: bool,
}

/// The run's sandbox from the options, the user config file and this kernel.
pub fn run_sandbox(options: &Settings, caps: &Capabilities) -> Result<RunSandbox, String> {
    let lookup = |name: &str| std::env::var_os(name);
    let user = match user_sandbox::user_config_path(&lookup) {
        Some(path) => {
            let home = lookup("HOME")
                .filter(|h| !h.is_empty())
                .map(std::path::PathBuf::from);
            user_sandbox::load(&path, home.as_deref())?
        }
        None => UserSandbox::default(),
    };
    let (settings, line) = sandbox_settings(options, &user, caps);
    let mut lines = vec![line];
    let mut auto_approve = false;
    if options.auto_approve_sandboxed {
        match uncontained(&settings, caps) {
            None => {
                auto_approve = true;
                lines.push("sandbox: bash runs without asking (--auto-approve-sandboxed)".into());
            }
            Some(why) => lines.push(format!(
                "sandbox: --auto-approve-sandboxed is not in effect ({why}); bash asks as usual"
            )),
        }
    }
    Ok(RunSandbox {
        settings,
        lines,
        auto_approve,
    })
}

/// Why the sandbox does not contain a `bash` call's effects, if it does not: it is off, the
/// network is on, or the kernel lacks a feature.
pub fn uncontained(settings: &SandboxSettings, caps: &Capabilities) -> Option<String> {
    if settings.mode == Mode::Off {
        return Some("the sandbox is off".into());
    }
    if settings.network {
        return Some("the network is on".into());
    }
    if !settings.allow.is_empty() {
        return Some("TCP ports are allowed".into());
    }
    let gaps = caps.gaps();
    (!gaps.is_empty()).then(|| gaps.join("; "))
}

/// The mode this kernel can enforce for everyday work with `caps`: workspace-write where
/// Landlock exists, else off.
pub fn default_mode(caps: &Capabilities) -> Mode {
    if caps.files() {
        Mode::WorkspaceWrite
    } else {
        Mode::Off
    }
}

/// The sandbox settings of a run, with the line to show at start.
/// The command line wins over the user config file, which wins over [`default_mode`]; the
/// deny lists of both add up, and either can turn the network on.
pub fn sandbox_settings(
    options: &Settings,
    user: &UserSandbox,
    caps: &Capabilities,
) -> (SandboxSettings, String) {
    let mode = options
        .sandbox
        .or(user.mode)
        .unwrap_or_else(|| default_mode(caps));
    let network = options.sandbox_network || user.network.unwrap_or(false);
    let mut deny_read = sandbox_policy::default_deny(&|name| std::env::var_os(name));
    deny_read.extend(options.config.iter().cloned());
    deny_read.extend(options.sandbox_deny.iter().cloned());
    deny_read.extend(user.deny.iter().cloned());
    let mut allow = options.sandbox_allow.clone();
    allow.extend(user.allow.iter().cloned());
    allow.sort();
    allow.dedup();
    let settings = SandboxSettings {
        mode,
        network,
        deny_read,
        grants: Vec::new(),
        allow,
    };
    let mut line = start_line(mode, network, caps);
    if mode != Mode::Off && !network && !settings.allow.is_empty() {
        let list: Vec<String> = settings.allow.iter().map(ToString::to_string).collect();
        line.push_str(&format!(
            "; TCP still allowed to {} (the kernel checks the ports, not the hosts)",
            list.join(", ")
        ));
    }
    (settings, line)
}

/// What the start says: the mode, the network, and every feature the kernel lacks.
pub fn start_line(mode: Mode, network: bool, caps: &Capabilities) -> String {
    if mode == Mode::Off {
        let offer = match default_mode(caps) {
            Mode::Off => " (this kernel has no Landlock)".to_owned(),
            available => format!(" (--sandbox {} is available here)", available.as_str()),
        };
        return format!(
            "sandbox: off: bash can read and write what you can and reach the network{offer}"
        );
    }
    let net = if network { "network on" } else { "network off" };
    let gaps = caps.gaps();
    if gaps.is_empty() {
        format!("sandbox: {} ({net}), enforced by the kernel", mode.as_str())
    } else {
        format!(
            "sandbox: {} ({net}); not enforced here: {}",
            mode.as_str(),
            gaps.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(abi: i32, seccomp: bool, mounts: bool) -> Capabilities {
        Capabilities {
            landlock_abi: abi,
            seccomp,
            mount_namespace: mounts,
        }
    }

    #[test]
    fn the_default_is_workspace_write_only_where_landlock_exists() {
        assert_eq!(default_mode(&caps(1, true, true)), Mode::WorkspaceWrite);
        assert_eq!(default_mode(&caps(7, true, true)), Mode::WorkspaceWrite);
        assert_eq!(default_mode(&caps(0, true, true)), Mode::Off);
    }

    #[test]
    fn the_start_line_names_the_mode_the_network_and_every_gap() {
        let full = caps(7, true, true);
        assert_eq!(
            start_line(Mode::WorkspaceWrite, false, &full),
            "sandbox: workspace-write (network off), enforced by the kernel"
        );
        assert_eq!(
            start_line(Mode::ReadOnly, true, &full),
            "sandbox: read-only (network on), enforced by the kernel"
        );
        assert!(start_line(Mode::Off, false, &full).starts_with("sandbox: off: bash can read"));
        let line = start_line(Mode::WorkspaceWrite, false, &caps(3, false, false));
        assert!(line.contains("not enforced here"), "{line}");
        assert!(line.contains("ABI < 4"), "{line}");
        assert!(line.contains("no seccomp"), "{line}");
        assert!(line.contains(".git/hooks"), "{line}");
        let line = start_line(Mode::ReadOnly, false, &caps(0, true, true));
        assert!(line.contains("no Landlock"), "{line}");
    }
}
