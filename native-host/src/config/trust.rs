//! The workspace trust store: which project directories the user trusts to use their own
//! `.mcp.json` (start its servers, expand the user's `${VAR}`s in it, lower risks, turn on
//! sampling), and which they declined.
//!
//! One JSON file, `trusted-workspaces.json`, beside the OAuth token store (see
//! [`private_file::state_dir`]): `{"version": 1, "workspaces": {"/abs/dir": {"trusted": true,
//! "at": 1767000000}}}`. Directories are keyed by their canonical absolute path (symlinks
//! resolved), so `./repo` and a symlink to it are one entry, and trust never extends to a
//! parent's or a child's directory. The file is private (`0600`), replaced whole by a rename,
//! and changed under a lock, like the token store. A file that is not such a store is never
//! overwritten; reading it fails with an error naming it, and nothing counts as trusted.

use crate::os::private_file;
use crate::transport::token_store::unix_now;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The store's file name inside the state directory.
pub const FILE_NAME: &str = "trusted-workspaces.json";
const WHAT: &str = "workspace trust store";

/// The user's answer for one directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrustEntry {
    /// Trusted (`agentwire trust`, or "yes" at the prompt) or declined ("no" at the prompt).
    pub trusted: bool,
    /// When the answer was given, in seconds since the Unix epoch.
    pub at: u64,
}

/// The canonical absolute path of directory `dir`: the key of its entry. Errors name `dir`
/// when it does not exist, is not a directory, or has a path that is not UTF-8 (JSON keys are
/// text).
pub fn canonical_dir(dir: &Path) -> Result<PathBuf, String> {
    let shown = dir.display();
    let canonical = std::fs::canonicalize(dir).map_err(|e| format!("{shown}: {e}"))?;
    if !canonical.is_dir() {
        return Err(format!("{shown} is not a directory"));
    }
    if canonical.to_str().is_none() {
        return Err(format!(
            "{shown}: a path that is not UTF-8 cannot be kept in the trust store"
        ));
    }
    Ok(canonical)
}

/// The trust file. Every call reads or writes the file anew, so agentwire processes side by
/// side see each other's answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// A store in the file `path`.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        TrustStore { path: path.into() }
    }

    /// The store beside the token store; `None` when there is no state directory (no `$HOME`).
    pub fn default_location() -> Option<Self> {
        Some(TrustStore::at(private_file::state_dir()?.join(FILE_NAME)))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The answer recorded for the canonical directory `dir`, if any.
    pub fn entry(&self, dir: &Path) -> Result<Option<TrustEntry>, String> {
        let workspaces = self.read()?;
        Ok(workspaces.get(&key(dir)).and_then(entry_from_value))
    }

    /// Whether the canonical directory `dir` is trusted (an unreadable store trusts nothing).
    pub fn is_trusted(&self, dir: &Path) -> bool {
        matches!(self.entry(dir), Ok(Some(TrustEntry { trusted: true, .. })))
    }

    /// Records the answer for the canonical directory `dir`, keeping every other entry.
    pub fn set(&self, dir: &Path, trusted: bool) -> Result<(), String> {
        private_file::locked(&self.path, WHAT, || {
            let mut workspaces = self.read()?;
            workspaces.insert(key(dir), json!({"trusted": trusted, "at": unix_now()}));
            self.write(workspaces)
        })
    }

    /// Removes the entry of `dir` (trusted or declined); false when there was none.
    pub fn forget(&self, dir: &Path) -> Result<bool, String> {
        private_file::locked(&self.path, WHAT, || {
            let mut workspaces = self.read()?;
            let removed = workspaces.remove(&key(dir)).is_some();
            if removed {
                self.write(workspaces)?;
            }
            Ok(removed)
        })
    }

    /// Every entry, by directory, sorted.
    pub fn list(&self) -> Result<Vec<(String, TrustEntry)>, String> {
        let mut entries: Vec<(String, TrustEntry)> = self
            .read()?
            .iter()
            .filter_map(|(dir, value)| Some((dir.clone(), entry_from_value(value)?)))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    /// Every entry as stored; an absent file is an empty store.
    fn read(&self) -> Result<Map<String, Value>, String> {
        let shown = self.path.display();
        let Some(text) = private_file::read(&self.path, WHAT)? else {
            return Ok(Map::new());
        };
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| format!("the {WHAT} {shown} is not JSON ({e}); left as it is"))?;
        match value.get("workspaces") {
            Some(Value::Object(workspaces)) if value["version"] == 1 => Ok(workspaces.clone()),
            _ => Err(format!(
                "the {WHAT} {shown} is not a version 1 trust store; left as it is"
            )),
        }
    }

    fn write(&self, workspaces: Map<String, Value>) -> Result<(), String> {
        let text = serde_json::to_string_pretty(&json!({"version": 1, "workspaces": workspaces}))
            .unwrap_or_default();
        private_file::replace(&self.path, text.as_bytes(), WHAT)
    }
}

fn key(dir: &Path) -> String {
    dir.to_string_lossy().into_owned()
}

fn entry_from_value(value: &Value) -> Option<TrustEntry> {
    Some(TrustEntry {
        trusted: value.get("trusted")?.as_bool()?,
        at: value.get("at").and_then(Value::as_u64).unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &tempfile::TempDir) -> TrustStore {
        TrustStore::at(dir.path().join("state").join(FILE_NAME))
    }

    #[test]
    fn answers_are_kept_per_directory_and_forgotten_on_request() {
        let state = tempfile::tempdir().unwrap();
        let store = store(&state);
        let a = canonical_dir(state.path()).unwrap();
        let b = a.join("b");
        assert_eq!(store.entry(&a), Ok(None), "no file yet");
        assert!(!store.is_trusted(&a));
        store.set(&a, true).unwrap();
        store.set(&b, false).unwrap();
        assert!(store.is_trusted(&a));
        assert!(!store.is_trusted(&b), "declined");
        assert_eq!(store.entry(&b).unwrap().map(|e| e.trusted), Some(false));
        assert!(
            !store.is_trusted(&a.join("c")),
            "trust does not extend to children"
        );
        assert!(!store.is_trusted(a.parent().unwrap()), "nor to parents");
        let listed: Vec<_> = store
            .list()
            .unwrap()
            .into_iter()
            .map(|(d, e)| (d, e.trusted))
            .collect();
        assert_eq!(listed, [(key(&a), true), (key(&b), false)]);
        assert!(
            store.entry(&a).unwrap().unwrap().at > 1_700_000_000,
            "dated"
        );
        assert!(store.forget(&a).unwrap());
        assert!(!store.forget(&a).unwrap());
        assert!(!store.is_trusted(&a));
        assert_eq!(store.list().unwrap().len(), 1, "b is kept");
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_private_and_written_whole() {
        use std::os::unix::fs::PermissionsExt;
        let state = tempfile::tempdir().unwrap();
        let store = store(&state);
        store.set(Path::new("/some/dir"), true).unwrap();
        let mode = std::fs::metadata(store.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let mut names: Vec<String> = std::fs::read_dir(store.path().parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [FILE_NAME.to_owned(), format!("{FILE_NAME}.lock")]);
    }

    #[test]
    fn concurrent_answers_keep_every_entry() {
        let state = tempfile::tempdir().unwrap();
        let store = store(&state);
        let writers: Vec<_> = (0..6)
            .map(|writer| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for n in 0..10 {
                        store
                            .set(Path::new(&format!("/w{writer}/{n}")), true)
                            .unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        assert_eq!(store.list().unwrap().len(), 60);
    }

    #[test]
    fn a_file_that_is_not_a_trust_store_trusts_nothing_and_is_left_alone() {
        let state = tempfile::tempdir().unwrap();
        let path = state.path().join(FILE_NAME);
        for junk in [
            "{ not json",
            r#"{"version": 2, "workspaces": {"/x": {"trusted": true}}}"#,
            r#"{"version": 1, "workspaces": []}"#,
        ] {
            std::fs::write(&path, junk).unwrap();
            let store = TrustStore::at(&path);
            assert!(!store.is_trusted(Path::new("/x")));
            let error = store.set(Path::new("/x"), true).unwrap_err();
            assert!(error.contains(&path.display().to_string()), "{error}");
            assert!(error.contains("left as it is"), "{error}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), junk);
        }
    }

    #[test]
    fn only_an_absent_file_is_an_empty_store_other_read_errors_are_reported() {
        let state = tempfile::tempdir().unwrap();
        // A directory where the file should be: unreadable as a store, never "empty".
        let path = state.path().join(FILE_NAME);
        std::fs::create_dir(&path).unwrap();
        let store = TrustStore::at(&path);
        let error = store.list().unwrap_err();
        assert!(error.starts_with("cannot read the "), "{error}");
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert!(store.entry(Path::new("/x")).is_err());
        assert!(!store.is_trusted(Path::new("/x")));
        let absent = TrustStore::at(state.path().join("absent.json"));
        assert!(absent.list().unwrap().is_empty());
    }

    #[test]
    fn canonical_dirs_resolve_symlinks_and_refuse_files() {
        let state = tempfile::tempdir().unwrap();
        let real = state.path().join("real");
        std::fs::create_dir(&real).unwrap();
        #[cfg(unix)]
        {
            let link = state.path().join("link");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            assert_eq!(canonical_dir(&link).unwrap(), canonical_dir(&real).unwrap());
        }
        assert!(canonical_dir(&real).unwrap().is_absolute());
        let file = state.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert!(canonical_dir(&file)
            .unwrap_err()
            .contains("not a directory"));
        assert!(canonical_dir(&state.path().join("missing")).is_err());
    }

    /// Runs `work` on a thread of its own and fails when it takes over 5 s (a hang would
    /// otherwise hold the whole test binary).
    fn within_5s<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(work()));
        result
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the trust store blocked")
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_as_the_store_is_refused_at_once_and_left_alone() {
        let state = tempfile::tempdir().unwrap();
        let path = state.path().join(FILE_NAME);
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let store = TrustStore::at(&path);
        let (listed, trusted, set) = within_5s({
            let store = store.clone();
            move || {
                (
                    store.list(),
                    store.is_trusted(Path::new("/x")),
                    store.set(Path::new("/x"), true),
                )
            }
        });
        let error = listed.unwrap_err();
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert!(error.contains("a FIFO"), "{error}");
        assert!(!trusted);
        assert!(set.unwrap_err().contains("a FIFO"));
        assert!(std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_fifo_like());
    }

    trait FifoLike {
        fn is_fifo_like(&self) -> bool;
    }
    impl FifoLike for std::fs::FileType {
        fn is_fifo_like(&self) -> bool {
            std::os::unix::fs::FileTypeExt::is_fifo(self)
        }
    }

    #[test]
    fn an_oversized_store_trusts_nothing_and_is_not_overwritten() {
        let state = tempfile::tempdir().unwrap();
        let path = state.path().join(FILE_NAME);
        // A real store, only too big: every entry trusted, /x among them.
        let mut workspaces = Map::new();
        for n in 0..20_000 {
            workspaces.insert(format!("/w/{n:0>40}"), json!({"trusted": true, "at": 1}));
        }
        workspaces.insert("/x".into(), json!({"trusted": true, "at": 1}));
        let text = json!({"version": 1, "workspaces": workspaces}).to_string();
        assert!(text.len() as u64 > private_file::MAX_STORE_BYTES);
        std::fs::write(&path, &text).unwrap();
        let store = TrustStore::at(&path);
        assert!(!store.is_trusted(Path::new("/x")));
        let error = store.list().unwrap_err();
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert!(error.contains("larger than"), "{error}");
        assert!(store.set(Path::new("/y"), true).is_err());
        assert!(store.forget(Path::new("/x")).is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "left as it was"
        );
    }

    #[cfg(unix)]
    #[test]
    fn planted_symlinks_beside_the_store_are_never_written_through() {
        let state = tempfile::tempdir().unwrap();
        let path = state.path().join(FILE_NAME);
        let victim = state.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        // The temporary file's old name, planted as a symlink to the victim.
        let planted = state
            .path()
            .join(format!("{FILE_NAME}.tmp{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let store = TrustStore::at(&path);
        store.set(Path::new("/x"), true).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(store.is_trusted(Path::new("/x")));
        assert!(!std::fs::symlink_metadata(&path).unwrap().is_symlink());
        // A lock file planted as a symlink to a file that does not exist yet: not created.
        let other = TrustStore::at(state.path().join("other.json"));
        let nowhere = state.path().join("created-through-the-lock");
        std::os::unix::fs::symlink(&nowhere, state.path().join("other.json.lock")).unwrap();
        let error = other.set(Path::new("/x"), true).unwrap_err();
        assert!(error.contains("other.json.lock"), "{error}");
        assert!(
            !nowhere.exists(),
            "nothing was created through the lock's symlink"
        );
    }
}
