//! Small JSON stores in the user's state directory: files only their owner can read, replaced
//! whole by a rename (a crash never leaves half a file), changed under a lock (two agentwire
//! processes writing at once keep each other's entries).

use std::path::{Path, PathBuf};

/// The directory of agentwire's stores: `$AGENTWIRE_STATE_DIR`, else
/// `$XDG_STATE_HOME/agentwire`, else `~/.local/state/agentwire`; `None` without any of them.
pub fn state_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    var("AGENTWIRE_STATE_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_STATE_HOME").map(|d| PathBuf::from(d).join("agentwire")))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".local/state/agentwire")))
}

/// Runs `change`, a read, modify and write of `path`, holding an exclusive lock on the sibling
/// `<path>.lock` (a file of its own, because `path` itself is replaced by a rename on every
/// write). `what` names the store in errors.
pub fn locked<T>(
    path: &Path,
    what: &str,
    change: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut lock_name = path.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock_path = PathBuf::from(lock_name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let lock = options
        .open(&lock_path)
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|e| format!("cannot lock the {what} ({}): {e}", lock_path.display()))?;
    let outcome = change();
    // Closing the file releases the lock.
    drop(lock);
    outcome
}

/// Replaces `path` with `bytes`: written to a private temporary file beside it, synced, then
/// renamed over it. `what` names the store in errors.
pub fn replace(path: &Path, bytes: &[u8], what: &str) -> Result<(), String> {
    let shown = path.display();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut temp_name = path.as_os_str().to_owned();
    temp_name.push(format!(".tmp{}", std::process::id()));
    let temp = PathBuf::from(temp_name);
    write_private(&temp, bytes)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            format!("cannot write the {what} {shown}: {e}")
        })
}

/// Writes `bytes` to a new file only its owner can read (on Unix).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}
