//! Canned GitHub data for the mock server: plain static tables, easy to read and extend.
//!
//! Everything here is invented for demos and tests: the repositories are real projects, but the
//! star counts, issues, pull requests, commits, people and file contents are illustrative
//! stand-ins, not copies of the real ones. To add data, append a row to the tables in
//! `repos.rs`, `issues.rs`, `pulls.rs` or `files.rs`; ids and SHAs are derived from the row's content, so
//! nothing else needs updating.

mod files;
mod issues;
mod pulls;
mod repos;

pub(crate) use files::FILES;
pub(crate) use issues::{ISSUES, LABELS};
pub(crate) use pulls::PULLS;
pub(crate) use repos::{COMMITS, REPOS};

/// A repository.
pub(crate) struct Repo {
    pub owner: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub language: &'static str,
    pub homepage: &'static str,
    pub stars: u64,
    pub forks: u64,
    pub topics: &'static [&'static str],
    pub default_branch: &'static str,
    pub created_at: &'static str,
    pub pushed_at: &'static str,
}

/// A file on the default branch of a repository; directories are implied by paths.
pub(crate) struct File {
    /// `owner/name` of the repository.
    pub repo: &'static str,
    pub path: &'static str,
    pub content: &'static str,
}

/// Whether an issue is open or closed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum State {
    Open,
    Closed,
}

impl State {
    /// The GitHub API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Closed => "closed",
        }
    }
}

/// An issue (pull requests live in [`Pull`]; they share the repository's number space).
pub(crate) struct Issue {
    /// `owner/name` of the repository.
    pub repo: &'static str,
    pub number: u64,
    pub title: &'static str,
    pub state: State,
    pub labels: &'static [&'static str],
    pub author: &'static str,
    pub assignee: Option<&'static str>,
    pub comments: u64,
    pub created_at: &'static str,
    pub updated_at: &'static str,
    pub closed_at: Option<&'static str>,
    pub body: &'static str,
}

/// A pull request.
pub(crate) struct Pull {
    /// `owner/name` of the repository.
    pub repo: &'static str,
    pub number: u64,
    pub title: &'static str,
    pub state: State,
    /// Merge time, for merged pull requests (which are also closed).
    pub merged_at: Option<&'static str>,
    pub draft: bool,
    pub author: &'static str,
    pub labels: &'static [&'static str],
    /// Head branch name, in the author's fork or the repository itself.
    pub head: &'static str,
    pub base: &'static str,
    pub comments: u64,
    pub additions: u64,
    pub deletions: u64,
    pub changed_files: u64,
    pub created_at: &'static str,
    pub updated_at: &'static str,
    pub closed_at: Option<&'static str>,
    pub body: &'static str,
}

/// A commit on the default branch, newest first per repository.
pub(crate) struct Commit {
    /// `owner/name` of the repository.
    pub repo: &'static str,
    pub message: &'static str,
    pub author: &'static str,
    pub email: &'static str,
    pub date: &'static str,
}

/// A label's colour and description; labels not in [`LABELS`] get a neutral grey.
pub(crate) struct Label {
    pub name: &'static str,
    pub color: &'static str,
    pub description: &'static str,
}

impl Repo {
    /// `owner/name`.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    /// Whether this is `owner/name`, compared case-insensitively as GitHub does.
    pub fn is(&self, full_name: &str) -> bool {
        full_name.split_once('/').is_some_and(|(o, n)| {
            o.eq_ignore_ascii_case(self.owner) && n.eq_ignore_ascii_case(self.name)
        })
    }
}

/// Finds a repository by owner and name, case-insensitively.
pub(crate) fn find_repo(owner: &str, name: &str) -> Option<&'static Repo> {
    REPOS
        .iter()
        .find(|r| r.owner.eq_ignore_ascii_case(owner) && r.name.eq_ignore_ascii_case(name))
}

/// Finds the repository a row's `repo` field names.
pub(crate) fn repo_of(full_name: &str) -> Option<&'static Repo> {
    REPOS.iter().find(|r| r.is(full_name))
}

/// Looks a label up in [`LABELS`].
pub(crate) fn label(name: &str) -> Option<&'static Label> {
    LABELS.iter().find(|l| l.name == name)
}

/// A stable number derived from strings (FNV-1a, then a SplitMix64 finaliser so that inputs
/// differing only at the end still give unrelated-looking ids and SHAs), so ids never need to
/// be written by hand.
pub(crate) fn stable_hash(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0xff)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash ^= hash >> 30;
    hash = hash.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash ^= hash >> 27;
    hash = hash.wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^ (hash >> 31)
}

/// A stable GitHub-like numeric id (nine to ten digits, safely inside JavaScript's integers).
pub(crate) fn stable_id(parts: &[&str]) -> u64 {
    100_000_000 + stable_hash(parts) % 2_900_000_000
}

/// A stable 40-hex-digit SHA-like string.
pub(crate) fn stable_sha(parts: &[&str]) -> String {
    let mut out = String::with_capacity(48);
    for salt in ["a", "b", "c"] {
        let mut salted: Vec<&str> = parts.to_vec();
        salted.push(salt);
        out.push_str(&format!("{:016x}", stable_hash(&salted)));
    }
    out.truncate(40);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_row_names_a_known_repository() {
        for f in FILES {
            assert!(
                repo_of(f.repo).is_some(),
                "file {} names unknown repo {}",
                f.path,
                f.repo
            );
        }
        for i in ISSUES {
            assert!(
                repo_of(i.repo).is_some(),
                "issue #{} in unknown repo {}",
                i.number,
                i.repo
            );
        }
        for p in PULLS {
            assert!(
                repo_of(p.repo).is_some(),
                "pull #{} in unknown repo {}",
                p.number,
                p.repo
            );
        }
        for c in COMMITS {
            assert!(
                repo_of(c.repo).is_some(),
                "commit in unknown repo {}",
                c.repo
            );
        }
    }

    #[test]
    fn numbers_are_unique_per_repository_across_issues_and_pulls() {
        let mut seen = HashSet::new();
        let numbers = ISSUES
            .iter()
            .map(|i| (i.repo, i.number))
            .chain(PULLS.iter().map(|p| (p.repo, p.number)));
        for (repo, number) in numbers {
            assert!(seen.insert((repo, number)), "{repo}#{number} is used twice");
        }
    }

    #[test]
    fn every_repository_has_a_readme_and_every_label_is_described() {
        for r in REPOS {
            let full = r.full_name();
            assert!(
                FILES
                    .iter()
                    .any(|f| f.repo == full && f.path == "README.md"),
                "{full} has no README.md"
            );
        }
        let used = ISSUES
            .iter()
            .flat_map(|i| i.labels)
            .chain(PULLS.iter().flat_map(|p| p.labels));
        for name in used {
            assert!(label(name).is_some(), "label {name:?} is not in LABELS");
        }
    }

    #[test]
    fn closed_rows_have_closing_times_and_open_rows_do_not() {
        for i in ISSUES {
            assert_eq!(
                i.state == State::Closed,
                i.closed_at.is_some(),
                "{}#{}",
                i.repo,
                i.number
            );
        }
        for p in PULLS {
            assert_eq!(
                p.state == State::Closed,
                p.closed_at.is_some(),
                "{}#{}",
                p.repo,
                p.number
            );
            if p.merged_at.is_some() {
                assert_eq!(
                    p.state,
                    State::Closed,
                    "merged {}#{} must be closed",
                    p.repo,
                    p.number
                );
            }
        }
    }

    #[test]
    fn stable_ids_and_shas_are_deterministic_and_distinct() {
        assert_eq!(stable_id(&["a", "b"]), stable_id(&["a", "b"]));
        assert_ne!(stable_id(&["ab"]), stable_id(&["a", "b"]));
        let sha = stable_sha(&["x"]);
        assert_eq!(sha.len(), 40);
        assert!(sha.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(sha, stable_sha(&["y"]));
        assert!(stable_id(&["z"]) < 1 << 53);
    }
}
