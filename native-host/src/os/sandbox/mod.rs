//! Kernel confinement for a child process: Landlock file and TCP rules, a seccomp filter, and
//! read-only bind mounts in a private mount namespace, all applied in the child after `fork`
//! and before `exec`, so they hold for the command and everything it starts.
//!
//! This module is the mechanism only: which paths may be read or written, and whether the
//! network is reachable, is a [`Plan`] the caller builds (see `tools::sandbox_policy`).
//! Everything that allocates or touches the file system (opening the rule paths, compiling the
//! filter) happens in the parent in [`Prepared::new`]; the child only makes system calls. The
//! filters depend on nothing but the network setting, so they are compiled once per process.

mod capabilities;
mod host_port;
mod landlock_rules;
mod mounts;
mod private_tmp;
mod privileges;
mod seccomp_filter;

pub use capabilities::Capabilities;
pub use host_port::HostPort;
pub use private_tmp::PrivateTmp;

use std::io;
use std::path::PathBuf;

/// How much a sandboxed command may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Reads what the user can (minus the deny list); writes only a private temporary folder.
    ReadOnly,
    /// Also writes inside the workspace, except the paths that would run later.
    #[default]
    WorkspaceWrite,
    /// No confinement.
    Off,
}

impl Mode {
    /// The mode's name as the command line and config files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::WorkspaceWrite => "workspace-write",
            Mode::Off => "off",
        }
    }

    /// The mode named `name`, or an error listing the names.
    pub fn parse(name: &str) -> Result<Mode, String> {
        match name {
            "read-only" => Ok(Mode::ReadOnly),
            "workspace-write" => Ok(Mode::WorkspaceWrite),
            "off" => Ok(Mode::Off),
            other => Err(format!(
                "unknown sandbox mode {other:?} (expected read-only, workspace-write or off)"
            )),
        }
    }

    /// Whether `self` allows no more than `other`.
    pub fn at_least_as_strict_as(self, other: Mode) -> bool {
        self.rank() <= other.rank()
    }

    fn rank(self) -> u8 {
        match self {
            Mode::ReadOnly => 0,
            Mode::WorkspaceWrite => 1,
            Mode::Off => 2,
        }
    }
}

/// What a confined child may touch, as absolute paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Hierarchies whose files may be read and executed and whose folders may be listed.
    pub read: Vec<PathBuf>,
    /// Folders that may be listed, but whose files are not readable through this rule: the
    /// ancestors of a denied path, so the path's siblings stay reachable.
    pub list_only: Vec<PathBuf>,
    /// Hierarchies that may be written (created, changed, removed, renamed within).
    pub write: Vec<PathBuf>,
    /// Single files (devices such as `/dev/null`) that may be opened for writing.
    pub write_files: Vec<PathBuf>,
    /// Existing paths made read-only by a bind mount, whatever `write` says about their parent.
    pub read_only_mounts: Vec<PathBuf>,
    /// Existing folders bind-mounted onto themselves so that they cannot be renamed away (and
    /// a fresh copy with unprotected contents made in their place).
    pub pinned: Vec<PathBuf>,
    /// Whether TCP and non-Unix socket families are allowed.
    pub network: bool,
    /// With the network off, TCP ports that `connect` may still reach (any host: Landlock's
    /// rules are per port); only TCP sockets can then be made.
    pub tcp_ports: Vec<u16>,
}

/// A [`Plan`] turned into kernel objects, ready to apply in a child. Apply it once.
pub struct Prepared {
    ruleset: Option<landlock::RulesetCreated>,
    filters: &'static [seccompiler::BpfProgram],
    mounts: mounts::Mounts,
    privileges: privileges::DropAll,
}

impl Prepared {
    /// Opens the rule paths and compiles the filters. Paths that do not exist are skipped.
    pub fn new(plan: &Plan) -> io::Result<Prepared> {
        Ok(Prepared {
            ruleset: landlock_rules::ruleset(plan)?,
            filters: seccomp_filter::filters(seccomp_filter::Sockets::of(plan))?,
            mounts: mounts::Mounts::new(plan)?,
            privileges: privileges::DropAll::new(),
        })
    }

    /// Confines the calling process. Meant for the child between `fork` and `exec`: it only
    /// makes system calls on what [`Prepared::new`] made. Order matters: the mounts need
    /// `mount` (and root's `CAP_SYS_ADMIN`), which dropping every capability, Landlock and the
    /// filter then take away.
    pub fn apply_in_child(&mut self) -> io::Result<()> {
        self.mounts.apply()?;
        self.privileges.apply()?;
        if let Some(ruleset) = self.ruleset.take() {
            ruleset
                .restrict_self()
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        // restrict_self set no_new_privs; set it again in case Landlock was unavailable, since
        // an unprivileged seccomp filter requires it.
        nix::sys::prctl::set_no_new_privs().map_err(io::Error::from)?;
        for filter in self.filters {
            seccompiler::apply_filter(filter).map_err(|e| io::Error::other(e.to_string()))?;
        }
        Ok(())
    }
}
