//! Opening a workspace file without a window for a swapped-in symlink, and only if it is a
//! regular file.
//!
//! [`Workspace::resolve`] gives the canonical path (symlinks inside the workspace already
//! followed). That path is then opened component by component from the workspace root with
//! `openat(…, O_NOFOLLOW)`: a directory or file replaced by a symlink in the meantime makes the
//! open fail (`ELOOP`/`ENOTDIR`) instead of leading out. The final file is checked twice, before
//! opening (`fstatat` without following) and on the descriptor (`fstat`), and opened with
//! `O_NONBLOCK`, so a FIFO or a device is refused without blocking. Writers also refuse a file
//! with more than one hard link: the other name may be outside the workspace. Reading through a
//! hard link cannot be told apart from reading the file itself and is allowed (documented).
//!
//! One code path for every kernel: `openat2(RESOLVE_BENEATH)` would give the same guarantee on
//! Linux 5.6+, the walk gives it everywhere.

use super::protected::Id;
use super::Workspace;
use nix::errno::Errno;
use nix::fcntl::{openat, AtFlags, OFlag};
use nix::sys::stat::{fstat, fstatat, mkdirat, FileStat, Mode, SFlag};
use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

/// What the caller will do with the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read an existing file.
    Read,
    /// Read and rewrite an existing file in place.
    Edit,
    /// Create it (and missing parent directories) or overwrite it.
    Write,
}

/// An opened workspace file.
#[derive(Debug)]
pub(crate) struct Opened {
    /// The open file (read-only, read-write or write-only as asked).
    pub(crate) file: File,
    /// Its canonical path, for messages.
    pub(crate) real: PathBuf,
    /// Whether [`Access::Write`] created it.
    pub(crate) created: bool,
    /// Its size when opened.
    pub(crate) len: u64,
}

impl Access {
    /// The verb of error messages.
    fn verb(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Edit => "edit",
            Access::Write => "write",
        }
    }
}

/// Why a swap is the likely cause of an error while walking.
fn walk_error(path: &str, access: Access, errno: Errno) -> String {
    match errno {
        Errno::ELOOP | Errno::ENOTDIR => format!(
            "path {path:?} changed while it was being opened (a symlink appeared on the way); \
             refused"
        ),
        other => format!("cannot {} {path:?}: {}", access.verb(), other.desc()),
    }
}

/// The kind of a file that is not a regular one, in words, for a refusal.
fn kind(stat: &FileStat) -> &'static str {
    match SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT {
        SFlag::S_IFDIR => "a directory",
        SFlag::S_IFIFO => "a FIFO (named pipe)",
        SFlag::S_IFSOCK => "a socket",
        // Devices, and a symlink swapped in after the walk.
        _ => "not a regular file",
    }
}

fn is_regular(stat: &FileStat) -> bool {
    SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
}

/// Refuses what is not a regular file, and for writers a file with other hard links.
fn check(path: &str, stat: &FileStat, access: Access) -> Result<(), String> {
    if !is_regular(stat) {
        let what = kind(stat);
        let hint = if what == "a directory" {
            "; use list_directory to see its entries"
        } else {
            "; the file tools only work on regular files"
        };
        return Err(format!("{path:?} is {what}{hint}"));
    }
    if access != Access::Read && stat.st_nlink > 1 {
        return Err(format!(
            "{path:?} has {} hard links; changing it would also change the other names, which \
             may be outside the workspace, so it is refused",
            stat.st_nlink
        ));
    }
    Ok(())
}

/// Flags of the final open: never follow a symlink swapped in after the checks, never block on
/// a FIFO swapped in (the `fstat` then refuses it), never leak into children, never become a
/// controlling terminal.
fn open_flags(access: Access) -> OFlag {
    let base = OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC | OFlag::O_NOCTTY;
    match access {
        Access::Read => base | OFlag::O_RDONLY,
        Access::Edit => base | OFlag::O_RDWR,
        // No O_TRUNC: the file is checked first and emptied by the caller.
        Access::Write => base | OFlag::O_WRONLY | OFlag::O_CREAT,
    }
}

/// Flags of each directory of the walk: a directory, never through a symlink, never leaked.
fn dir_flags() -> OFlag {
    OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
}

/// The identity of the open directory `dir`, refused when it is a protected place.
fn checked_id(
    guard: &super::protected::Snapshot,
    path: &str,
    access: Access,
    dir: &OwnedFd,
) -> Result<Id, String> {
    let id = Id::of(&fstat(dir).map_err(|e| walk_error(path, access, e))?);
    guard.check_id(path, id)?;
    Ok(id)
}

impl Workspace {
    /// Opens the regular file `path` (as the model gave it) inside the workspace for `access`,
    /// with no window between the check and the open.
    pub(crate) fn open_file(&self, path: &str, access: Access) -> Result<Opened, String> {
        let real = self.resolve(path)?;
        let rel = real
            .strip_prefix(self.root())
            .map_err(|_| format!("path {path:?} is outside the workspace"))?;
        let mut names: Vec<&Path> = Vec::new();
        for component in rel.components() {
            match component {
                Component::Normal(name) => names.push(Path::new(name)),
                // A canonical path has none of these; refuse rather than interpret them.
                _ => return Err(format!("path {path:?} cannot be opened safely")),
            }
        }
        let Some(file_name) = names.pop() else {
            return Err(format!(
                "{path:?} is the workspace directory; use list_directory to see its entries"
            ));
        };
        // Every directory of the walk, and the file, is checked against the protected places
        // (for readers, those holding secrets), starting with the root's own ancestors (the
        // workspace may be inside one).
        let guard = match access {
            Access::Read => self.protected().read_snapshot(),
            Access::Edit | Access::Write => self.protected().snapshot(),
        };
        for ancestor in self.root().ancestors() {
            if let Ok(meta) = std::fs::metadata(ancestor) {
                guard.check_id(path, Id::of_metadata(&meta))?;
            }
        }
        let mut guard = Some(guard);
        let dir_flags = dir_flags();
        let mut dir: OwnedFd = nix::fcntl::open(self.root(), dir_flags, Mode::empty())
            .map_err(|e| walk_error(path, access, e))?;
        let mut dir_id = match &guard {
            Some(guard) => Some(checked_id(guard, path, access, &dir)?),
            None => None,
        };
        for name in names {
            let below = match (&guard, dir_id) {
                (Some(guard), Some(id)) => guard.step(path, id, name.as_os_str())?,
                _ => Vec::new(),
            };
            let next = match openat(&dir, name, dir_flags, Mode::empty()) {
                Err(Errno::ENOENT) if access == Access::Write => {
                    match mkdirat(&dir, name, Mode::from_bits_truncate(0o777)) {
                        Ok(()) | Err(Errno::EEXIST) => {}
                        Err(e) => {
                            return Err(format!(
                                "cannot create the directory of {path:?}: {}",
                                e.desc()
                            ))
                        }
                    }
                    openat(&dir, name, dir_flags, Mode::empty())
                }
                other => other,
            };
            dir = next.map_err(|e| walk_error(path, access, e))?;
            if let Some(guard) = &mut guard {
                let id = checked_id(guard, path, access, &dir)?;
                guard.entered(id, below);
                dir_id = Some(id);
            }
        }
        if let (Some(guard), Some(id)) = (&guard, dir_id) {
            guard.step(path, id, file_name.as_os_str())?;
        }
        // A missing file is an error for readers and editors when they open it, below.
        let before = match fstatat(&dir, file_name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(stat),
            Err(Errno::ENOENT) => None,
            Err(e) => return Err(walk_error(path, access, e)),
        };
        if let (Some(guard), Some(stat)) = (&guard, &before) {
            guard.check_id(path, Id::of(stat))?;
        }
        if let Some(stat) = &before {
            check(path, stat, access)?;
        }
        let fd = openat(
            &dir,
            file_name,
            open_flags(access),
            Mode::from_bits_truncate(0o666),
        )
        .map_err(|e| walk_error(path, access, e))?;
        let stat = fstat(&fd).map_err(|e| walk_error(path, access, e))?;
        if let Some(guard) = &guard {
            guard.check_id(path, Id::of(&stat))?;
        }
        check(path, &stat, access)?;
        Ok(Opened {
            file: File::from(fd),
            real,
            created: before.is_none(),
            len: u64::try_from(stat.st_size).unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The races these flags close are too narrow to hit reliably in a test (the swapper tests
    /// in `tools::tests::special_files` hit them now and then), so the flags are checked too.
    #[test]
    fn the_final_open_never_follows_never_blocks_and_never_leaks() {
        let hardening = OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC | OFlag::O_NOCTTY;
        let modes = [
            (Access::Read, OFlag::O_RDONLY),
            (Access::Edit, OFlag::O_RDWR),
            (Access::Write, OFlag::O_WRONLY | OFlag::O_CREAT),
        ];
        for (access, mode) in modes {
            assert_eq!(open_flags(access), hardening | mode, "{access:?}");
        }
        assert_eq!(
            dir_flags().bits(),
            (OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC).bits()
        );
    }
}
