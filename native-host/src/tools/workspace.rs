//! The workspace root that file tools are confined to, and path resolution inside it.
//!
//! A path is resolved by canonicalising its longest existing prefix (which resolves symlinks and
//! `..` the way the kernel will) and checking that the result stays under the canonical root.
//! The part that does not exist yet may not contain `..` and may not start with a dangling
//! symlink, so a later create cannot be redirected outside. The file tools then open the
//! resolved path without following any symlink (`safe_open`), so a directory swapped for a
//! symlink between the check and the use makes the call fail instead of leading out.

use super::Protected;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A directory that file tools may not leave. Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    root: Arc<PathBuf>,
    /// What the writers refuse to touch, wherever it is.
    protected: Protected,
}

impl Workspace {
    /// A workspace rooted at `root`, which must be an existing directory (it is canonicalised).
    /// Its writers refuse the user's places of [`Protected::from_env`].
    pub fn new(root: impl AsRef<Path>) -> io::Result<Workspace> {
        let root = root.as_ref();
        let canonical = root
            .canonicalize()
            .map_err(|e| io::Error::new(e.kind(), format!("workspace {}: {e}", root.display())))?;
        if !canonical.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("workspace {} is not a directory", root.display()),
            ));
        }
        Ok(Workspace {
            root: Arc::new(canonical),
            protected: Protected::from_env(),
        })
    }

    /// The same workspace, its writers refusing `protected` instead.
    pub fn protecting(mut self, protected: Protected) -> Workspace {
        self.protected = protected;
        self
    }

    /// What its writers refuse to touch.
    pub fn protected(&self) -> &Protected {
        &self.protected
    }

    /// A workspace rooted at the current directory.
    pub fn current() -> io::Result<Workspace> {
        Workspace::new(std::env::current_dir()?)
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a user-supplied path (relative to the root, or absolute) to a real path inside
    /// the workspace. The path need not exist. Errors are messages for the model.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        if path.is_empty() {
            return Err("the path is empty".into());
        }
        if path.contains('\0') {
            return Err(format!("path {path:?} contains a NUL byte"));
        }
        let joined = self.root.join(path);
        let (existing, rest) = longest_existing_prefix(&joined)
            .ok_or_else(|| format!("path {path:?} cannot be resolved"))?;
        let mut rest_parts = rest.components();
        if let Some(first) = rest_parts.next() {
            if rest.components().any(|c| matches!(c, Component::ParentDir)) {
                return Err(format!(
                    "path {path:?} uses \"..\" below a directory that does not exist"
                ));
            }
            // The first missing component may still be a dangling symlink: writing through it
            // would create its target, wherever that is.
            let probe = existing.join(first);
            match probe.symlink_metadata() {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(format!(
                        "path {path:?} goes through a symlink whose target does not exist ({})",
                        self.display(&probe)
                    ))
                }
                // It exists but could not be canonicalised: permissions, most likely.
                Ok(_) => {
                    let why = probe
                        .canonicalize()
                        .err()
                        .map_or(String::new(), |e| e.to_string());
                    return Err(format!("path {path:?} cannot be resolved: {why}"));
                }
                Err(_) => {}
            }
        }
        // `join("")` would add a trailing separator, which then fails for files.
        let resolved = if rest.as_os_str().is_empty() {
            existing
        } else {
            existing.join(&rest)
        };
        if !resolved.starts_with(self.root.as_path()) {
            return Err(format!(
                "path {path:?} resolves to {}, which is outside the workspace {}",
                resolved.display(),
                self.root.display()
            ));
        }
        Ok(resolved)
    }

    /// `path` relative to the root for messages; `.` for the root itself.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(self.root.as_path()) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// The canonical form of the longest ancestor of `path` that exists, and the rest of `path`.
fn longest_existing_prefix(path: &Path) -> Option<(PathBuf, PathBuf)> {
    for ancestor in path.ancestors() {
        if let Ok(canonical) = ancestor.canonicalize() {
            let rest = path.strip_prefix(ancestor).ok()?.to_path_buf();
            return Some((canonical, rest));
        }
    }
    None
}
