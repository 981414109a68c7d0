//! Reading a config file safely: regular files only (a FIFO would block, `/dev/zero` never
//! ends) and at most [`MAX_CONFIG_BYTES`].

use std::io::Read;
use std::path::Path;

/// The largest config file agentwire reads: 4 MiB, far beyond any real `.mcp.json`.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The text of the config file `path`. Errors name the file: not found, not a regular file
/// (a directory, a FIFO, a device), larger than [`MAX_CONFIG_BYTES`], or not UTF-8.
pub fn read_config(path: &Path) -> Result<String, String> {
    read_capped(path, MAX_CONFIG_BYTES)
}

fn read_capped(path: &Path, cap: u64) -> Result<String, String> {
    let shown = path.display();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Opening a FIFO for reading blocks until a writer comes; non-blocking, it returns at once
    // and the type check below refuses it. (Checking the type before opening would leave a
    // window to swap the file.)
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, nix::libc::O_NONBLOCK);
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read config {shown}: {e}"))?;
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read config {shown}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "cannot read config {shown}: not a regular file ({})",
            kind_of(&metadata)
        ));
    }
    let too_big = || {
        format!(
            "cannot read config {shown}: larger than {cap} bytes ({} MiB), the most a config may be",
            cap / (1024 * 1024)
        )
    };
    if metadata.len() > cap {
        return Err(too_big());
    }
    // The length can change while reading: read one byte past the cap to notice.
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read config {shown}: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read config {shown}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// What a file that is not a regular one is, in words (`a FIFO`, `a device`, …).
pub(crate) fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if metadata.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn devices_fifos_and_directories_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let started = Instant::now();
        for (path, kind) in [
            (Path::new("/dev/zero"), "a device"),
            (fifo.as_path(), "a FIFO"),
            (dir.path(), "a directory"),
        ] {
            let error = read_config(path).unwrap_err();
            assert!(error.contains(&path.display().to_string()), "{error}");
            assert!(
                error.contains(&format!("not a regular file ({kind})")),
                "{error}"
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "nothing blocked"
        );
    }

    #[test]
    fn a_file_over_the_cap_is_refused_and_one_at_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, "x".repeat(100)).unwrap();
        assert_eq!(read_capped(&path, 100).unwrap().len(), 100);
        let error = read_capped(&path, 99).unwrap_err();
        assert!(error.contains("larger than 99 bytes"), "{error}");
        // A file that holds more than its length says (here /proc's, of length 0; elsewhere
        // one growing while read) is caught by reading past the cap, never cut silently.
        let error = read_capped(Path::new("/proc/self/status"), 10).unwrap_err();
        assert!(error.contains("larger than 10 bytes"), "{error}");
        let error = read_config(&dir.path().join("missing.json")).unwrap_err();
        assert!(error.contains("missing.json"), "{error}");
        std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
        assert!(read_config(&path).unwrap_err().contains("not UTF-8"));
    }
}
