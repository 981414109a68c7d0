//! Places the file tools never write, wherever the workspace is: what agentwire (or Claude
//! Code) would later run or trust as the user's own. The user's `~/.claude` and `~/.agents`
//! folders (skills, commands, plugins, agents, settings and hooks, `CLAUDE.md`), agentwire's
//! state directory (the trust store, the OAuth tokens, plugin data), its user config folder,
//! the REPL history, and the files and folders named on the command line (`--config`,
//! `--audit`, `--plugin-dir`).
//!
//! Some places are also never *read* by the file tools: the user's keys and cloud credentials
//! (`~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.config/gcloud`, the sandbox's deny list), the state
//! directory (OAuth tokens), the `--config` file (its servers' secrets) and what
//! `--sandbox-deny` adds. `bash` in the sandbox is kept from them by the kernel; `read_file`,
//! `grep`, `glob` and `list_directory` refuse them here, by the same identity walk.
//!
//! A place is recognised by identity, not by its spelling: each existing place (and every
//! folder or file a symlink near the top of the user's extension folders leads to) is known by
//! device and inode, and the writer's walk from the workspace root compares each directory it
//! opens, and the file, against them; the root's own ancestors are compared too. `..`,
//! symlinks, hard links and another case of the same name all arrive at the same inode. A
//! place that does not exist yet is known by its nearest existing ancestor's identity and the
//! names below it (compared ignoring ASCII case, for case-insensitive file systems), so the
//! walk may not create it either.

use nix::sys::stat::FileStat;
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Folders below `~/.claude` and `~/.agents` whose symlinked entries are followed by discovery:
/// where those lead is protected too.
const LINK_DEPTH: usize = 2;
/// Most entries looked at for symlinks below one protected folder.
const MAX_LINK_ENTRIES: usize = 4_000;

/// A protected place: its path and why it is protected, for the refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    path: PathBuf,
    why: &'static str,
    /// Whether symlinks inside it (near the top) are followed by what reads it.
    follow_links: bool,
    /// Whether the file tools may not read it either (it holds secrets).
    unreadable: bool,
}

/// The places the file tools may not write. Cheap to clone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protected {
    places: Arc<Vec<Place>>,
}

/// A file's identity: device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Id {
    dev: u64,
    ino: u64,
}

impl Id {
    /// The identity of an open file or directory.
    // `dev_t` and `ino_t` are not `u64` on every platform.
    #[allow(clippy::unnecessary_cast)]
    pub(crate) fn of(stat: &FileStat) -> Id {
        Id {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
        }
    }

    /// The identity of the file `meta` describes.
    pub(crate) fn of_metadata(meta: &std::fs::Metadata) -> Id {
        Id {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

impl Protected {
    /// The user's places as this process's environment locates them: `$HOME`'s `.claude`,
    /// `.agents` and `.agentwire_history`, the state directory, the user config folder.
    pub fn from_env() -> Protected {
        Protected::from_vars(&|name| std::env::var_os(name))
    }

    /// [`Protected::from_env`] with the variables looked up by `lookup`.
    pub fn from_vars(lookup: &dyn Fn(&str) -> Option<OsString>) -> Protected {
        let var = |name: &str| lookup(name).filter(|v| !v.is_empty());
        let home = var("HOME").map(PathBuf::from);
        let config_home = var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        Protected::for_user(
            home.as_deref(),
            crate::os::private_file::state_dir_from(lookup).as_deref(),
            config_home.as_deref(),
        )
    }

    /// The user's places below `home`, the state directory `state` and the config home
    /// `config_home` (`~/.config`).
    pub fn for_user(home: Option<&Path>, state: Option<&Path>, config_home: Option<&Path>) -> Self {
        let mut protected = Protected::default();
        if let Some(home) = home {
            protected = protected
                .with(
                    home.join(".claude"),
                    "the user's Claude folder: its skills, commands, plugins, agents, settings, \
                     hooks and CLAUDE.md are loaded as the user's own",
                    true,
                )
                .with(
                    home.join(".agents"),
                    "the user's agents folder: its skills are loaded as the user's own",
                    true,
                )
                .with(
                    home.join(".codex/AGENTS.md"),
                    "the user's Codex instructions: loaded into every session's system prompt",
                    false,
                )
                .with(
                    home.join(".agentwire_history"),
                    "agentwire's REPL history",
                    false,
                );
            for secret in super::sandbox_policy::HOME_DENY {
                protected = protected.with_secret(home.join(secret), "the user's credentials");
            }
        }
        if let Some(state) = state {
            protected = protected.with_secret(
                state.to_path_buf(),
                "agentwire's state directory: the workspace trust store, OAuth tokens, plugin \
                 data",
            );
        }
        if let Some(config_home) = config_home {
            protected = protected.with(
                config_home.join("agentwire"),
                "agentwire's user config folder",
                false,
            );
        }
        protected
    }

    /// Also protects the MCP config given with `--config`.
    pub fn config_file(self, path: &Path) -> Self {
        self.with_secret(
            absolute(path),
            "the MCP config given with --config: its servers start on the next run, and it \
             may hold their secrets",
        )
    }

    /// Also keeps `path` from the readers (`--sandbox-deny`): never read, never written.
    pub fn unreadable(self, path: &Path) -> Self {
        self.with_secret(absolute(path), "a path given with --sandbox-deny")
    }

    /// Also protects the audit log given with `--audit`.
    pub fn audit_log(self, path: &Path) -> Self {
        self.with(absolute(path), "the audit log given with --audit", false)
    }

    /// Also protects a plugin folder given with `--plugin-dir`.
    pub fn plugin_dir(self, path: &Path) -> Self {
        self.with(
            absolute(path),
            "a plugin folder given with --plugin-dir: its servers start on the next run",
            true,
        )
    }

    fn with(self, path: PathBuf, why: &'static str, follow_links: bool) -> Self {
        self.push(Place {
            path,
            why,
            follow_links,
            unreadable: false,
        })
    }

    fn with_secret(self, path: PathBuf, why: &'static str) -> Self {
        self.push(Place {
            path,
            why,
            follow_links: false,
            unreadable: true,
        })
    }

    fn push(self, place: Place) -> Self {
        let mut places = (*self.places).clone();
        places.push(place);
        Protected {
            places: Arc::new(places),
        }
    }

    /// The places a writer may not touch (all of them), as they are on disk now, for one walk.
    pub(crate) fn snapshot(&self) -> Snapshot {
        self.snapshot_of(|_| true, Purpose::Write)
    }

    /// The places a reader may not touch (those holding secrets), as they are on disk now.
    pub(crate) fn read_snapshot(&self) -> Snapshot {
        self.snapshot_of(|place| place.unreadable, Purpose::Read)
    }

    fn snapshot_of(&self, keep: impl Fn(&Place) -> bool, purpose: Purpose) -> Snapshot {
        let mut snapshot = Snapshot {
            purpose,
            ..Snapshot::default()
        };
        for (index, place) in self.places.iter().enumerate() {
            if !keep(place) {
                continue;
            }
            match std::fs::metadata(&place.path) {
                Ok(meta) => {
                    snapshot.existing.push((Id::of_metadata(&meta), index));
                    // Its name in its parent too, in any case: on a case-sensitive file
                    // system `.CLAUDE` is another folder, but not one to create beside it.
                    let parent = place.path.parent().map(std::fs::metadata);
                    if let (Some(Ok(parent)), Some(name)) = (parent, place.path.file_name()) {
                        snapshot.missing.push(Missing {
                            at: Id::of_metadata(&parent),
                            names: vec![name.to_owned()],
                            place: index,
                        });
                    }
                    if place.follow_links && meta.is_dir() {
                        let mut budget = MAX_LINK_ENTRIES;
                        linked(&place.path, LINK_DEPTH, &mut budget, &mut |id| {
                            snapshot.existing.push((id, index))
                        });
                    }
                }
                Err(_) => {
                    if let Some((ancestor, names)) = nearest_existing(&place.path) {
                        snapshot.missing.push(Missing {
                            at: ancestor,
                            names,
                            place: index,
                        });
                    }
                }
            }
        }
        snapshot.places = self.places.clone();
        snapshot
    }
}

/// `path` made absolute against the current directory (the command line's paths are).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Calls `found` with the identity of what each symlink up to `depth` levels below `dir`
/// leads to (what discovery would follow), looking at no more than `budget` entries.
fn linked(dir: &Path, depth: usize, budget: &mut usize, found: &mut dyn FnMut(Id)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_symlink() {
            if let Ok(target) = std::fs::metadata(&path) {
                found(Id::of_metadata(&target));
            }
        } else if kind.is_dir() && depth > 1 {
            linked(&path, depth - 1, budget, found);
        }
    }
}

/// The identity of the nearest ancestor of `path` that exists, and the names from it down to
/// `path`.
fn nearest_existing(path: &Path) -> Option<(Id, Vec<OsString>)> {
    let mut names = Vec::new();
    let mut current = path;
    loop {
        names.push(current.file_name()?.to_owned());
        current = current.parent()?;
        if let Ok(meta) = std::fs::metadata(current) {
            names.reverse();
            return meta.is_dir().then(|| (Id::of_metadata(&meta), names));
        }
    }
}

/// A place by name: reached from the directory `at` through `names`.
#[derive(Clone, Debug)]
struct Missing {
    at: Id,
    names: Vec<OsString>,
    place: usize,
}

/// What a snapshot guards, for its refusals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Purpose {
    /// A reader's walk: only the places holding secrets.
    Read,
    /// A writer's walk: every place.
    #[default]
    Write,
}

/// The protected places at one moment, checked along one reader's or writer's walk.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    purpose: Purpose,
    places: Arc<Vec<Place>>,
    /// Identities of existing places (and where their links lead), with the place's index.
    existing: Vec<(Id, usize)>,
    /// Places by name: those still to be created, as seen from the walk so far, and the
    /// names of existing ones in their parents.
    missing: Vec<Missing>,
}

impl Snapshot {
    /// The refusal when `id` (a directory on the walk, or the file) is a protected place.
    pub(crate) fn check_id(&self, path: &str, id: Id) -> Result<(), String> {
        match self.existing.iter().find(|(known, _)| *known == id) {
            Some(&(_, place)) => Err(self.refusal(path, place)),
            None => Ok(()),
        }
    }

    /// The refusal when stepping from the directory `dir` into (or creating) `name` would
    /// reach a protected place that does not exist yet; otherwise notes the places still
    /// further down that path, to be checked from the directory `name` opens as.
    pub(crate) fn step(&self, path: &str, dir: Id, name: &OsStr) -> Result<Vec<Below>, String> {
        let mut below = Vec::new();
        for missing in &self.missing {
            if missing.at != dir || !same_name(&missing.names[0], name) {
                continue;
            }
            if missing.names.len() == 1 {
                return Err(self.refusal(path, missing.place));
            }
            below.push(Below {
                names: missing.names[1..].to_vec(),
                place: missing.place,
            });
        }
        Ok(below)
    }

    /// Records places still below the directory just entered, whose identity is `dir`.
    pub(crate) fn entered(&mut self, dir: Id, below: Vec<Below>) {
        for Below { names, place } in below {
            self.missing.push(Missing {
                at: dir,
                names,
                place,
            });
        }
    }

    /// Whether `id` is one of the places (or where a link near the top of one leads).
    pub(crate) fn holds(&self, id: Id) -> bool {
        self.existing.iter().any(|(known, _)| *known == id)
    }

    fn refusal(&self, path: &str, place: usize) -> String {
        let place = &self.places[place];
        match self.purpose {
            Purpose::Write => format!(
                "refused: {path:?} is in {} ({}); the file tools never write what agentwire \
                 would later run or trust. Change it yourself if you mean to.",
                place.path.display(),
                place.why
            ),
            Purpose::Read => format!(
                "refused: {path:?} is in {} ({}); the file tools never read it, so its secrets \
                 never reach the model.",
                place.path.display(),
                place.why
            ),
        }
    }
}

/// Protected places still below a directory the walk is entering.
#[derive(Debug)]
pub(crate) struct Below {
    names: Vec<OsString>,
    place: usize,
}

/// Whether two names are the same, ignoring ASCII case (a case-insensitive file system would
/// make `.CLAUDE` the `.claude` that does not exist yet).
fn same_name(a: &OsStr, b: &OsStr) -> bool {
    a.as_encoded_bytes()
        .eq_ignore_ascii_case(b.as_encoded_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn paths(protected: &Protected) -> Vec<PathBuf> {
        protected.places.iter().map(|p| p.path.clone()).collect()
    }

    #[test]
    fn the_environment_locates_the_users_places() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let home = Protected::from_vars(&vars(&[("HOME", "/h")]));
        let expected: Vec<PathBuf> = [
            "/h/.claude",
            "/h/.agents",
            "/h/.codex/AGENTS.md",
            "/h/.agentwire_history",
            "/h/.ssh",
            "/h/.aws",
            "/h/.gnupg",
            "/h/.config/gcloud",
            "/h/.local/state/agentwire",
            "/h/.config/agentwire",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(paths(&home), expected);
        let moved = Protected::from_vars(&vars(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/c"),
            ("AGENTWIRE_STATE_DIR", "/s"),
        ]));
        assert_eq!(
            paths(&moved)[8..],
            [PathBuf::from("/s"), PathBuf::from("/c/agentwire")]
        );
        // The credentials and the state directory are kept from readers too; the rest only
        // from writers.
        let unreadable: Vec<PathBuf> = home
            .places
            .iter()
            .filter(|p| p.unreadable)
            .map(|p| p.path.clone())
            .collect();
        assert_eq!(unreadable, expected[4..9]);
        // An empty variable is no variable.
        assert!(paths(&Protected::from_vars(&vars(&[("HOME", "")]))).is_empty());
    }

    /// Identities `linked` reports below `dir`.
    fn linked_ids(dir: &Path, depth: usize, budget: usize) -> Vec<Id> {
        let mut budget = budget;
        let mut ids = Vec::new();
        linked(dir, depth, &mut budget, &mut |id| ids.push(id));
        ids
    }

    fn id(path: &Path) -> Id {
        Id::of_metadata(&std::fs::metadata(path).unwrap())
    }

    #[test]
    fn links_are_followed_two_levels_down_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let target = |n: usize| dir.path().join(format!("t{n}"));
        for n in 1..=3 {
            std::fs::create_dir(target(n)).unwrap();
        }
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        symlink(target(1), root.join("l1")).unwrap();
        symlink(target(2), root.join("a/l2")).unwrap();
        symlink(target(3), root.join("a/b/l3")).unwrap();
        let mut found = linked_ids(&root, 2, 100);
        found.sort_by_key(|i| i.ino);
        let mut expected = vec![id(&target(1)), id(&target(2))];
        expected.sort_by_key(|i| i.ino);
        assert_eq!(found, expected, "the third level is not followed");
        assert_eq!(linked_ids(&root, 3, 100).len(), 3);
        // Each entry looked at costs one: `l1` and `a` at the top, then what is in `a`.
        for budget in 0..4 {
            assert!(linked_ids(&root, 3, budget).len() <= budget, "{budget}");
        }
        let many = dir.path().join("many");
        std::fs::create_dir(&many).unwrap();
        for n in 0..10 {
            symlink(target(1), many.join(format!("l{n}"))).unwrap();
        }
        assert_eq!(linked_ids(&many, 1, 4).len(), 4);
    }

    #[test]
    fn only_folders_that_follow_links_have_their_links_protected() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        symlink(&elsewhere, state.join("link")).unwrap();
        let plain = Protected::default().audit_log(&state);
        let snapshot = plain.snapshot();
        assert!(snapshot.check_id("x", id(&elsewhere)).is_ok());
        assert!(snapshot.check_id("x", id(&state)).is_err());
        let following = Protected::default().plugin_dir(&state);
        assert!(following.snapshot().check_id("x", id(&elsewhere)).is_err());
    }
}
