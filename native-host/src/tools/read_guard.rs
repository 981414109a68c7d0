//! The readers that walk (`grep`, `glob`, `list_directory`) kept out of the places holding
//! secrets ([`super::protected`]): the starting directory and its ancestors are checked, every
//! entry of the walk is pruned when it is one of those places (or a link to one), and `grep`
//! reads each file through a descriptor that is checked again (regular, not a secret) and
//! never blocks on a FIFO swapped in after the walk.

use super::protected::{Id, Snapshot};
use super::Workspace;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

impl Workspace {
    /// The secret places as they are now, with `real` (where a walk for `path` starts, already
    /// resolved) refused when it or one of its ancestors is one of them.
    pub(crate) fn read_guard(&self, path: &str, real: &Path) -> Result<Snapshot, String> {
        let guard = self.protected().read_snapshot();
        for ancestor in real.ancestors() {
            if let Ok(meta) = std::fs::metadata(ancestor) {
                guard.check_id(path, Id::of_metadata(&meta))?;
            }
        }
        Ok(guard)
    }
}

/// Whether the walk must leave `path` out: it is one of the places holding secrets, or a link
/// into one. (The walk does not enter a pruned folder, so an ordinary entry needs only its own
/// identity checked; a link may lead anywhere, so all of where it leads is.)
pub(crate) fn is_secret(guard: &Snapshot, path: &Path) -> bool {
    let Ok(own) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !own.file_type().is_symlink() {
        return guard.holds(Id::of_metadata(&own));
    }
    match std::fs::canonicalize(path) {
        Ok(target) => target.ancestors().any(|dir| {
            std::fs::metadata(dir).is_ok_and(|meta| guard.holds(Id::of_metadata(&meta)))
        }),
        // A dangling link reads nothing.
        Err(_) => false,
    }
}

/// The contents of the regular file at `path` when it is at most `max` bytes and not a secret
/// place; `None` otherwise (unreadable, too large, not a regular file, or a secret).
pub(crate) fn read_checked(guard: &Snapshot, path: &Path, max: u64) -> Option<Vec<u8>> {
    let file = File::options()
        .read(true)
        .custom_flags(libc_flags())
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > max || guard.holds(Id::of_metadata(&meta)) {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte more than the bound tells a file that grew since the stat.
    file.take(max + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max).then_some(bytes)
}

/// Never block on a FIFO, never leak into children, never become a controlling terminal.
fn libc_flags() -> i32 {
    (nix::fcntl::OFlag::O_NONBLOCK | nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NOCTTY)
        .bits()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Protected;
    use std::os::unix::fs::symlink;

    /// A folder with a secret place `keys/` (holding `id`) and an ordinary file beside it.
    fn fixture() -> (tempfile::TempDir, Snapshot) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("keys")).unwrap();
        std::fs::write(root.join("keys/id"), "secret").unwrap();
        std::fs::write(root.join("plain"), "12345").unwrap();
        let guard = Protected::default()
            .unreadable(&root.join("keys"))
            .read_snapshot();
        (dir, guard)
    }

    #[test]
    fn reads_a_regular_file_up_to_the_bound_and_nothing_larger() {
        let (dir, guard) = fixture();
        let plain = dir.path().join("plain");
        assert_eq!(
            read_checked(&guard, &plain, 5).as_deref(),
            Some(&b"12345"[..])
        );
        assert_eq!(read_checked(&guard, &plain, 4), None);
        assert_eq!(read_checked(&guard, &dir.path().join("missing"), 5), None);
        assert_eq!(read_checked(&guard, dir.path(), 5), None, "a directory");
    }

    #[test]
    fn a_file_longer_than_its_stat_said_is_refused_not_cut() {
        // procfs reports 0 bytes for a file with content: the same as a file that grew after
        // the stat. Reading one byte past the bound is what tells it; a cut copy is never given.
        let (_dir, guard) = fixture();
        let status = Path::new("/proc/self/status");
        assert_eq!(std::fs::metadata(status).unwrap().len(), 0);
        assert_eq!(read_checked(&guard, status, 16), None);
        let whole = read_checked(&guard, status, 1 << 20).expect("under the bound it is read");
        assert!(whole.len() > 16);
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let (dir, guard) = fixture();
        let fifo = dir.path().join("pipe");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        // Without O_NONBLOCK the open would wait for a writer forever (the test would hang).
        assert_eq!(read_checked(&guard, &fifo, 5), None);
    }

    #[test]
    fn the_secret_place_and_links_into_it_are_secret_nothing_else_is() {
        let (dir, guard) = fixture();
        let root = dir.path();
        symlink(root.join("keys/id"), root.join("to-id")).unwrap();
        symlink(root.join("keys"), root.join("to-keys")).unwrap();
        symlink(root.join("plain"), root.join("to-plain")).unwrap();
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        assert!(is_secret(&guard, &root.join("keys")));
        assert!(is_secret(&guard, &root.join("to-id")));
        assert!(is_secret(&guard, &root.join("to-keys")));
        assert!(!is_secret(&guard, &root.join("plain")));
        assert!(!is_secret(&guard, &root.join("to-plain")));
        assert!(!is_secret(&guard, &root.join("dangling")));
        assert!(!is_secret(&guard, &root.join("missing")));
    }

    #[test]
    fn a_file_that_is_a_secret_place_is_not_read_by_any_name() {
        let (dir, _) = fixture();
        let root = dir.path();
        let guard = Protected::default()
            .config_file(&root.join("plain"))
            .read_snapshot();
        symlink(root.join("plain"), root.join("to-plain")).unwrap();
        std::fs::hard_link(root.join("plain"), root.join("hard")).unwrap();
        for name in ["plain", "to-plain", "hard"] {
            assert_eq!(read_checked(&guard, &root.join(name), 100), None, "{name}");
        }
        assert!(read_checked(&guard, &root.join("keys/id"), 100).is_some());
    }
}
