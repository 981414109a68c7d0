//! Which paths a sandboxed `bash` may read and write, per [`Mode`]: the policy that
//! [`crate::os::sandbox`] enforces.
//!
//! Landlock only grants, so "everything but the deny list" is built by splitting: every folder
//! on the way from `/` to a denied path may be listed, each of its other entries is readable as
//! a whole, and the denied path gets no rule. Symlinks are never given a rule (the kernel checks
//! where they lead). Writes inside the workspace are a grant on the whole workspace; the paths
//! in it that would become code run later are kept read-only by bind mounts instead.

use super::Workspace;
use crate::os::sandbox::{HostPort, Mode, Plan};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Paths below the home folder whose contents a sandboxed command may not read.
pub const HOME_DENY: &[&str] = &[".ssh", ".aws", ".gnupg", ".config/gcloud"];

/// Paths in the workspace that would turn a write into code run (or trusted) later: git's
/// hooks and config (`core.hooksPath`, filters), MCP servers, Claude Code and agentwire settings.
pub const WORKSPACE_PROTECTED: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".mcp.json",
    ".claude",
    ".agentwire",
];

/// Devices any command may write.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
];

/// How `bash` is confined.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// The mode.
    pub mode: Mode,
    /// Whether the network is allowed (`--sandbox-network`).
    pub network: bool,
    /// With the network off, TCP destinations still allowed (`--sandbox-allow`); the kernel
    /// checks their ports only.
    pub allow: Vec<HostPort>,
    /// Paths never readable: [`default_deny`] plus the files named by `--config`.
    pub deny_read: Vec<PathBuf>,
    /// Folders read and written whatever the deny list and the mode say: a plugin's own data
    /// folder, for that plugin's command snippets only (empty for every other call).
    pub grants: Vec<PathBuf>,
}

impl SandboxSettings {
    /// No confinement: today's behaviour.
    pub fn off() -> SandboxSettings {
        SandboxSettings {
            mode: Mode::Off,
            network: true,
            allow: Vec::new(),
            deny_read: Vec::new(),
            grants: Vec::new(),
        }
    }
}

/// The default deny list for this user: [`HOME_DENY`] below `$HOME` and the state directory.
pub fn default_deny(lookup: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut deny = Vec::new();
    if let Some(home) = lookup("HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        deny.extend(HOME_DENY.iter().map(|p| home.join(p)));
    }
    deny.extend(crate::os::private_file::state_dir_from(lookup));
    deny
}

/// The data folder (`${CLAUDE_PLUGIN_DATA}`, `<state dir>/plugins/<p>`) that the snippets of a
/// command from `source` may use: `Some` only for `plugin:<p>` with a plugin name as plugins
/// are named (lowercase letters, digits, `-`) whose folder exists as a real folder, not a link.
pub fn plugin_data_grant(
    source: &str,
    lookup: &dyn Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    let name = source.strip_prefix("plugin:")?;
    let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    if name.is_empty() || !name.chars().all(plain) || name.starts_with('-') {
        return None;
    }
    let dir = crate::os::private_file::state_dir_from(lookup)?
        .join("plugins")
        .join(name);
    dir.symlink_metadata()
        .is_ok_and(|m| m.is_dir())
        .then_some(dir)
}

/// The plan for one call in `workspace`, with `tmp` as its private temporary folder.
pub fn plan(settings: &SandboxSettings, workspace: &Workspace, tmp: &Path) -> Plan {
    let denied: Vec<PathBuf> = settings
        .deny_read
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut tcp_ports: Vec<u16> = settings.allow.iter().map(|a| a.port).collect();
    tcp_ports.sort_unstable();
    tcp_ports.dedup();
    let mut plan = Plan {
        network: settings.network,
        tcp_ports,
        ..Plan::default()
    };
    split_reads(Path::new("/"), &denied, &mut plan);
    plan.write.push(tmp.to_path_buf());
    for grant in &settings.grants {
        plan.read.push(grant.clone());
        plan.write.push(grant.clone());
    }
    plan.write_files = WRITABLE_DEVICES.iter().map(PathBuf::from).collect();
    if settings.mode == Mode::WorkspaceWrite {
        let root = workspace.root();
        plan.write.push(root.to_path_buf());
        plan.read_only_mounts = WORKSPACE_PROTECTED.iter().map(|p| root.join(p)).collect();
        // A renamed `.git` would leave its hooks' mount behind, under the new name.
        plan.pinned = vec![root.join(".git")];
    }
    plan
}

/// Grants reading `dir` whole when no denied path is below it, nothing when it is denied, and
/// otherwise listing it and recursing into its entries.
fn split_reads(dir: &Path, denied: &[PathBuf], plan: &mut Plan) {
    if denied.iter().any(|d| d == dir) {
        return;
    }
    if !denied.iter().any(|d| d.starts_with(dir)) {
        plan.read.push(dir.to_path_buf());
        return;
    }
    plan.list_only.push(dir.to_path_buf());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => split_reads(&path, denied, plan),
            Ok(kind) if kind.is_symlink() => {}
            Ok(_) if denied.contains(&path) => {}
            Ok(_) => plan.read.push(path),
            Err(_) => {}
        }
    }
}
