//! Read-only bind mounts in a private mount namespace: how paths inside a writable hierarchy
//! are kept read-only (Landlock can only grant, never carve an exception out of a grant).

use super::Plan;
use nix::mount::{mount, MsFlags};
use nix::sched::{unshare, CloneFlags};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;

/// The mounts to make, as C strings prepared in the parent.
pub(super) struct Mounts {
    read_only: Vec<CString>,
    pinned: Vec<CString>,
}

impl Mounts {
    pub(super) fn new(plan: &Plan) -> io::Result<Mounts> {
        let c = |paths: &[std::path::PathBuf]| -> io::Result<Vec<CString>> {
            paths
                .iter()
                .filter(|p| p.symlink_metadata().is_ok())
                .map(|p| CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other))
                .collect()
        };
        Ok(Mounts {
            read_only: c(&plan.read_only_mounts)?,
            pinned: c(&plan.pinned)?,
        })
    }

    fn is_empty(&self) -> bool {
        self.read_only.is_empty() && self.pinned.is_empty()
    }

    /// In the child: a private mount namespace with the bind mounts.
    pub(super) fn apply(&self) -> io::Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let none: Option<&str> = None;
        unshare(CloneFlags::CLONE_NEWNS)?;
        // Nothing mounted here propagates back to the host's namespace.
        mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)?;
        for path in &self.pinned {
            mount(
                Some(path.as_c_str()),
                path.as_c_str(),
                none,
                MsFlags::MS_BIND,
                none,
            )?;
        }
        for path in &self.read_only {
            let target = path.as_c_str();
            mount(
                Some(target),
                target,
                none,
                MsFlags::MS_BIND | MsFlags::MS_REC,
                none,
            )?;
            let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY;
            mount(none, target, none, flags, none)?;
        }
        Ok(())
    }
}
