//! Small JSON stores in the user's state directory: files only their owner can read, replaced
//! whole by a rename (a crash never leaves half a file), changed under a lock (two agentwire
//! processes writing at once keep each other's entries).

use std::path::{Path, PathBuf};

/// The largest store agentwire reads: 1 MiB, thousands of entries. A larger file is refused
/// (its JSON tree would cost tens of times its size in memory) and left as it is.
pub const MAX_STORE_BYTES: u64 = 1024 * 1024;

/// The directory of agentwire's stores: `$AGENTWIRE_STATE_DIR`, else
/// `$XDG_STATE_HOME/agentwire`, else `~/.local/state/agentwire`; `None` without any of them.
pub fn state_dir() -> Option<PathBuf> {
    state_dir_from(&|name| std::env::var_os(name))
}

/// [`state_dir`] with the variables looked up by `lookup`.
pub fn state_dir_from(lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let var = |name: &str| lookup(name).filter(|v| !v.is_empty());
    var("AGENTWIRE_STATE_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_STATE_HOME").map(|d| PathBuf::from(d).join("agentwire")))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".local/state/agentwire")))
}

/// The text of the store `path`; `None` when there is no such file. Opened without blocking
/// (a FIFO planted there is refused at once), regular files only, at most [`MAX_STORE_BYTES`],
/// UTF-8. Errors name the file and say it is left as it is: a caller never replaces a store it
/// could not read. `what` names the store in errors.
pub fn read(path: &Path, what: &str) -> Result<Option<String>, String> {
    read_capped(path, what, MAX_STORE_BYTES)
}

fn read_capped(path: &Path, what: &str, cap: u64) -> Result<Option<String>, String> {
    use std::io::Read;
    let shown = path.display();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC | nix::libc::O_NOCTTY,
    );
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read the {what} {shown}: {e}")),
    };
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "cannot read the {what} {shown}: not a regular file ({}); left as it is",
            crate::os::config_file::kind_of(&metadata)
        ));
    }
    let too_big = || {
        format!(
            "the {what} {shown} is larger than {cap} bytes, the most a store may be; left as it \
             is (move it away to start afresh)"
        )
    };
    if metadata.len() > cap {
        return Err(too_big());
    }
    // It may grow while being read: one byte past the cap tells.
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("the {what} {shown} is not UTF-8 text; left as it is"))
}

/// Creates the store's directory (and missing parents) private to the user.
fn create_dir(path: &Path) -> Result<(), String> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// Options for a file of the store's own: private, never through a symlink (a planted one
/// fails with `ELOOP`), never blocking on a FIFO, never inherited by children.
fn private_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC);
    }
    options
}

/// Runs `change`, a read, modify and write of `path`, holding an exclusive lock on the sibling
/// `<path>.lock` (a file of its own, because `path` itself is replaced by a rename on every
/// write). The lock file is opened like the store's own files: a symlink or a FIFO planted
/// there is refused. `what` names the store in errors.
pub fn locked<T>(
    path: &Path,
    what: &str,
    change: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    create_dir(path)?;
    let mut lock_name = path.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock_path = PathBuf::from(lock_name);
    let mut options = private_options();
    options.create(true).truncate(false);
    let lock = options
        .open(&lock_path)
        .and_then(|file| match file.metadata() {
            Ok(meta) if meta.is_file() => Ok(file),
            Ok(meta) => Err(std::io::Error::other(format!(
                "not a regular file ({})",
                crate::os::config_file::kind_of(&meta)
            ))),
            Err(e) => Err(e),
        })
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|e| format!("cannot lock the {what} ({}): {e}", lock_path.display()))?;
    let outcome = change();
    // Closing the file releases the lock.
    drop(lock);
    outcome
}

/// Replaces `path` with `bytes`: written to a new private temporary file beside it (created
/// exclusively, so nothing planted under its name is written through), synced, then renamed
/// over it. `what` names the store in errors.
pub fn replace(path: &Path, bytes: &[u8], what: &str) -> Result<(), String> {
    let shown = path.display();
    create_dir(path)?;
    let (temp, file) =
        create_temp(path).map_err(|e| format!("cannot write the {what} {shown}: {e}"))?;
    write_all(file, bytes)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            format!("cannot write the {what} {shown}: {e}")
        })
}

/// Most names tried for the temporary file before giving up.
const TEMP_ATTEMPTS: u32 = 64;

/// A new file `<path>.tmp<pid>.<n>`, created with `O_EXCL` (it did not exist, not even as a
/// symlink); a taken name moves on to the next `n`.
fn create_temp(path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut options = private_options();
    options.create_new(true);
    let mut last = None;
    for attempt in 0..TEMP_ATTEMPTS {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".tmp{}.{attempt}", std::process::id()));
        let temp = PathBuf::from(name);
        match options.open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

fn write_all(mut file: std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_at_the_cap_is_read_one_byte_more_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "x".repeat(10)).unwrap();
        assert_eq!(
            read_capped(&path, "store", 10).unwrap().as_deref(),
            Some("xxxxxxxxxx")
        );
        let error = read_capped(&path, "store", 9).unwrap_err();
        assert!(error.contains("larger than 9 bytes"), "{error}");
        assert!(error.contains("left as it is"), "{error}");
        assert_eq!(read(&dir.path().join("absent"), "store"), Ok(None));
        std::fs::write(&path, b"\xff").unwrap();
        let error = read(&path, "store").unwrap_err();
        assert!(error.contains("not UTF-8"), "{error}");
        assert!(error.contains(&path.display().to_string()), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn names_taken_by_planted_files_are_skipped_and_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let temp_name = |n: u32| {
            dir.path()
                .join(format!("s.json.tmp{}.{n}", std::process::id()))
        };
        for n in 0..2 {
            std::os::unix::fs::symlink(&victim, temp_name(n)).unwrap();
        }
        replace(&path, b"new", "store").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!temp_name(2).exists(), "the temporary file was renamed");
        // Every name taken: the write fails, naming the store, and nothing changes.
        for n in 2..TEMP_ATTEMPTS {
            std::os::unix::fs::symlink(&victim, temp_name(n)).unwrap();
        }
        let error = replace(&path, b"newer", "store").unwrap_err();
        assert!(error.starts_with("cannot write the store "), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_and_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/s.json");
        locked(&path, "store", || replace(&path, b"{}", "store")).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("a/b/s.json.lock")), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_file_that_is_a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let lock = dir.path().join("s.json.lock");
        nix::unistd::mkfifo(&lock, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(locked(&path, "store", || Ok(()))));
        let error = result
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the lock blocked")
            .unwrap_err();
        assert!(error.contains("s.json.lock"), "{error}");
        // With no reader, a non-blocking open for writing fails (ENXIO) before any check.
        assert!(error.starts_with("cannot lock the store"), "{error}");
    }
}
