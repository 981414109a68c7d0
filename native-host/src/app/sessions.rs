//! Sessions on disk: one JSONL transcript per conversation, under the state directory, keyed
//! by workspace (`<state>/sessions/<workspace>-<hash>/<id>.jsonl`).
//!
//! Each entry the agent emits is appended as it happens ([`SessionFile::append`]), redacted
//! first ([`agentwire::transcript::stored_line`], as every home stores entries): secret shapes, and
//! the values of the model key and of every environment variable with a sensitive name. Loading is
//! all-or-nothing: a corrupt or hostile file is an error naming `file:line`, and only a torn
//! last line (a crash while it was written) is skipped, with a warning.

use crate::os::append_file;
use agentwire::transcript::{parse_jsonl, secret_values, stored_line, Entry, Parsed, Transcript};
use serde_json::{json, Value};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The sessions of one workspace.
#[derive(Clone, Debug)]
pub struct SessionStore {
    dir: PathBuf,
    /// Exact values hidden in every line written.
    secrets: Vec<String>,
}

/// An open session transcript, appended to entry by entry.
#[derive(Debug)]
pub struct SessionFile {
    /// The session id.
    pub id: String,
    /// The file.
    pub path: PathBuf,
    file: File,
    secrets: Vec<String>,
}

/// One line of `sessions list`.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The id.
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// Last change, seconds since the epoch.
    pub modified: u64,
    /// Last change to the nanosecond: two sessions of the same second still sort by use.
    pub modified_nanos: u128,
    /// Bytes on disk.
    pub bytes: u64,
}

/// The secrets of this process: the values of environment variables with sensitive names
/// (`*_TOKEN`, `*_KEY`, `*SECRET*`, `PASSWORD`...), plus `extra` (the model key).
pub fn environment_secrets(extra: &[String]) -> Vec<String> {
    secret_values(std::env::vars(), extra)
}

/// The directory name of a workspace: its last component (for people) and a hash of its
/// canonical path (so two `src` folders never share sessions).
fn workspace_key(root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let hash = agentwire::registry::names::fnv1a32(root.as_os_str().as_encoded_bytes());
    format!("{name}-{hash:08x}")
}

/// A new session id: creation time (hex milliseconds, so ids sort by age) and 32 random bits.
fn new_id() -> String {
    let millis = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut random = [0u8; 4];
    let _ = getrandom::fill(&mut random);
    format!("{millis:x}-{:08x}", u32::from_be_bytes(random))
}

/// Ids are file names: letters, digits, `-` and `_` only, so an id never walks out of the store.
fn check_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} is not a session id",
            serde_json::to_string(id).unwrap_or_default()
        ))
    }
}

impl SessionStore {
    /// The store of the workspace `root` under the state directory `state`.
    pub fn new(state: &Path, root: &Path, secrets: Vec<String>) -> SessionStore {
        SessionStore {
            dir: state.join("sessions").join(workspace_key(root)),
            secrets,
        }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    /// Starts a new session: its file holds the header line.
    pub fn create(&self) -> Result<SessionFile, String> {
        append_file::private_dir(&self.dir)?;
        let id = new_id();
        let path = self.path(&id);
        let mut file = append_file::create_new(&path)?;
        let header = Transcript::new(id.clone()).to_jsonl();
        append_file::append_line(&mut file, &header)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(SessionFile {
            id,
            path,
            file,
            secrets: self.secrets.clone(),
        })
    }

    /// Reads session `id` whole: errors name `file:line`; nothing is half-loaded.
    pub fn load(&self, id: &str) -> Result<Parsed, String> {
        check_id(id)?;
        let path = self.path(id);
        let text = append_file::read(&path)?
            .ok_or_else(|| format!("no session {id} in this workspace ({})", self.dir.display()))?;
        let parsed = parse_jsonl(&text).map_err(|e| {
            format!(
                "{}:{}: {}; the session was not loaded",
                path.display(),
                e.line,
                e.message
            )
        })?;
        if parsed.transcript.id != id {
            return Err(format!(
                "{}:1: the header names session {}, not {id}; the session was not loaded",
                path.display(),
                parsed.transcript.id
            ));
        }
        Ok(parsed)
    }

    /// Opens session `id` to continue it: loads it, drops a torn last line, and appends after
    /// the complete ones. Warnings name the file.
    pub fn resume(&self, id: &str) -> Result<(SessionFile, Parsed), String> {
        let mut parsed = self.load(id)?;
        let path = self.path(id);
        for warning in &mut parsed.warnings {
            *warning = format!("{}: {warning}", path.display());
        }
        let file = append_file::reopen(&path, parsed.complete_bytes as u64)?;
        Ok((
            SessionFile {
                id: id.to_owned(),
                path,
                file,
                secrets: self.secrets.clone(),
            },
            parsed,
        ))
    }

    /// The sessions of this workspace, newest first.
    pub fn list(&self) -> Result<Vec<SessionInfo>, String> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot list {}: {e}", self.dir.display())),
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".jsonl"))
            else {
                continue;
            };
            if check_id(id).is_err() {
                continue;
            }
            let Ok(metadata) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if !metadata.is_file() {
                continue;
            }
            let modified = metadata
                .modified()
                .ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .unwrap_or_default();
            out.push(SessionInfo {
                id: id.to_owned(),
                path,
                modified: modified.as_secs(),
                modified_nanos: modified.as_nanos(),
                bytes: metadata.len(),
            });
        }
        // Newest use first; `--continue` takes the first. Seconds alone would leave two
        // sessions of one second in random order.
        out.sort_by(|a, b| (b.modified_nanos, &b.id).cmp(&(a.modified_nanos, &a.id)));
        Ok(out)
    }

    /// The newest session of this workspace.
    pub fn latest(&self) -> Result<Option<String>, String> {
        Ok(self.list()?.into_iter().next().map(|s| s.id))
    }

    /// Deletes session `id`.
    pub fn remove(&self, id: &str) -> Result<(), String> {
        check_id(id)?;
        let path = self.path(id);
        std::fs::remove_file(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("no session {id} in this workspace"),
            _ => format!("cannot remove {}: {e}", path.display()),
        })
    }
}

impl SessionFile {
    /// Appends one entry, redacted, as one line written with one system call.
    pub fn append(&mut self, entry: &Entry) -> Result<(), String> {
        let line = stored_line(entry, &self.secrets);
        append_file::append_line(&mut self.file, &line)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// `{"id", "modified", "bytes", "path"}` of `sessions list --json`, with the first user
/// message and the entry count when the file loads.
pub fn info_json(store: &SessionStore, info: &SessionInfo) -> Value {
    let mut v = json!({
        "id": info.id, "modified": info.modified, "bytes": info.bytes,
        "path": info.path.display().to_string(),
    });
    match store.load(&info.id) {
        Ok(parsed) => {
            v["entries"] = parsed.transcript.entries().len().into();
            let first = parsed.transcript.entries().iter().find_map(|e| match e {
                Entry::User { content } => Some(content.clone()),
                _ => None,
            });
            v["title"] = first
                .map(|t| {
                    let line = t.lines().next().unwrap_or("");
                    agentwire::registry::char_prefix(line, 60).0.to_owned()
                })
                .into();
        }
        Err(e) => v["error"] = e.into(),
    }
    v
}

mod children;

pub use children::ChildFile;

#[cfg(test)]
mod tests;
