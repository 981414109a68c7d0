//! The sandbox of a run: the mode asked for (by default workspace-write where the kernel has
//! Landlock), the deny list, and the line that says at start what is and is not enforced.

use crate::config::settings::Settings;
use crate::os::sandbox::{Capabilities, Mode};
use crate::tools::sandbox_policy::{self, SandboxSettings};

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
pub fn sandbox_settings(options: &Settings, caps: &Capabilities) -> (SandboxSettings, String) {
    let mode = options.sandbox.unwrap_or_else(|| default_mode(caps));
    let mut deny_read = sandbox_policy::default_deny(&|name| std::env::var_os(name));
    deny_read.extend(options.config.iter().cloned());
    deny_read.extend(options.sandbox_deny.iter().cloned());
    let settings = SandboxSettings {
        mode,
        network: options.sandbox_network,
        deny_read,
        grants: Vec::new(),
    };
    (settings, start_line(mode, options.sandbox_network, caps))
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
