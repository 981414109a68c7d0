//! Append-only private files (session transcripts): created `0600` in a `0700` directory,
//! never opened through a symlink or a FIFO, one whole line per `write`.
//!
//! Why one `write` per line: a `kill -9` can stop the process between two system calls but not
//! inside one, so the file then ends with complete lines or with one line cut short, which the
//! reader skips. There is no `fsync`: a crash of the process loses nothing the kernel accepted;
//! only a power loss can lose the last lines.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// The largest transcript read back: 256 MiB.
pub const MAX_APPEND_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Creates `dir` and its missing parents, each new one `0700`, and makes `dir` itself `0700`.
pub fn private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let metadata = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    if !metadata.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("cannot make {} private: {e}", dir.display()))?;
        }
    }
    Ok(())
}

fn options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC);
    }
    options
}

fn regular(file: &File, path: &Path) -> Result<(), String> {
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !metadata.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    Ok(())
}

/// A new private file at `path` (refused when something is there already), open for appending.
pub fn create_new(path: &Path) -> Result<File, String> {
    let file = options()
        .append(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    regular(&file, path)?;
    Ok(file)
}

/// The existing file `path`, open for appending after its first `keep` bytes (the rest, a line
/// cut short by a crash, is dropped so the next line starts on a line of its own).
pub fn reopen(path: &Path, keep: u64) -> Result<File, String> {
    let file = options()
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    regular(&file, path)?;
    let len = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    if len > keep {
        file.set_len(keep)
            .map_err(|e| format!("cannot repair {}: {e}", path.display()))?;
    }
    drop(file);
    let file = options()
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    regular(&file, path)?;
    Ok(file)
}

/// Appends `line` (newline included) with one `write` call.
pub fn append_line(file: &mut File, line: &str) -> std::io::Result<()> {
    let written = file.write(line.as_bytes())?;
    if written < line.len() {
        // A short write (disk full, a signal): finish it, so the line is whole or absent.
        file.write_all(&line.as_bytes()[written..])?;
    }
    Ok(())
}

/// The text of `path`: regular files only, never through a symlink or blocking on a FIFO, at
/// most [`MAX_APPEND_FILE_BYTES`], UTF-8. `None` when there is no such file.
pub fn read(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC,
    );
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    regular(&file, path)?;
    let mut bytes = Vec::new();
    file.take(MAX_APPEND_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_APPEND_FILE_BYTES {
        return Err(format!(
            "{} is larger than {MAX_APPEND_FILE_BYTES} bytes; left as it is",
            path.display()
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            // A character cut by a crash in the last line: that line is torn anyway, and the
            // reader skips it; keep what is valid.
            if !bytes[valid..].contains(&b'\n') {
                bytes.truncate(valid);
                return Ok(Some(String::from_utf8(bytes).unwrap_or_default()));
            }
            Err(format!(
                "{}: not UTF-8 at byte {valid}; left as it is",
                path.display()
            ))
        }
    }
}
