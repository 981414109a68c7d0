//! The private temporary folder of a confined process: made fresh (mode 0700), given as
//! `TMPDIR`, the one place outside the workspace it may write; removed with what it holds on drop.

use std::path::{Path, PathBuf};

/// A fresh folder only one confined process (tree) writes to; removed on drop.
#[derive(Debug)]
pub struct PrivateTmp(PathBuf);

impl PrivateTmp {
    /// Makes `agentwire-<what>-<random>` in the system's temporary folder.
    pub fn new(what: &str) -> std::io::Result<PrivateTmp> {
        use std::os::unix::fs::DirBuilderExt;
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let path = std::env::temp_dir().join(format!("agentwire-{what}-{name}"));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(PrivateTmp(path))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
