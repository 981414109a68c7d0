//! Project instructions: `CLAUDE.md`, `AGENTS.md`, `CLAUDE.local.md`, `.claude/rules/**/*.md`
//! and the user's own files, resolved into one block of the system prompt, sans-IO.
//!
//! # Driving contract
//! The host says where to look ([`Sources`]: the user's files, the project root, the working
//! directory, whether the workspace is trusted, the budget) and lends an
//! [`InstructionReader`]; [`resolve`] reads through it and returns [`Instructions`]: the text
//! (identical bytes for identical files), every file it loaded with its origin and size, the
//! warnings (each naming its file), and the [`PathRules`] that join the conversation later.
//! The core decides what may be read: an import that leaves the workspace is asked for only
//! when the workspace is trusted or the import chain started in a user file. The host confines
//! each read by the [`Access`] the core names (a project read stays inside the project's real
//! root, no symlink out, regular files only, bounded).
//!
//! The text is fixed for a conversation: the host resolves at a session's start and again only
//! for a new conversation (`/clear`, compaction), through [`crate::agent::Agent::set_instructions`].
//! Nothing in it is a permission: it is prompt text, and the gate never reads it.

mod glob;
mod markdown;
mod path_rules;
mod paths;
mod prefetch;
mod resolve;

pub use glob::matches as glob_matches;
pub use path_rules::{PathRule, PathRules, FILE_TOOLS};
pub use prefetch::{
    instructions_json, path_rules_from_json, path_rules_json, resolve_round, sources_from_json,
    MAX_ROUNDS,
};
pub use resolve::resolve;

use serde_json::{json, Value};

/// The default budget of the whole instructions block, in bytes (32 KiB).
pub const DEFAULT_BUDGET_BYTES: usize = 32 * 1024;
/// How deep `@path` imports are followed (a file, its imports, theirs… four levels below it).
pub const MAX_IMPORT_DEPTH: usize = 4;

/// Which confinement the host applies to one read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Inside the project root: the real file must be inside the project's real root.
    Project,
    /// A user's own file or one a user file imports.
    User,
    /// Outside the workspace, imported by a project file of a trusted workspace.
    Outside,
}

/// Why a read gave no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// No such file (not a problem: most places have none).
    Missing,
    /// The file exists but was refused (outside its bound, not a regular file, too large…);
    /// the text names the file.
    Refused(String),
}

/// Reads instruction files for [`resolve`]; paths are absolute and `/`-separated.
pub trait InstructionReader {
    /// The text of `path` (lossy UTF-8), confined as `access` says.
    fn read(&self, path: &str, access: Access) -> Result<String, ReadError>;
    /// The `.md` files under `dir`, recursively, as absolute paths, in any order (the resolver
    /// sorts them); none when `dir` does not exist.
    fn list_markdown(&self, dir: &str, access: Access) -> Vec<String>;
}

/// Where instructions are looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    /// The user's files, in order (`~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`, …).
    pub user_files: Vec<String>,
    /// The user's rules folder (`~/.claude/rules`).
    pub user_rules: Option<String>,
    /// The user's home, for `@~/…` imports and `~/…` in what is shown.
    pub home: Option<String>,
    /// The project root (its git root, else the workspace): the top of the folder walk and the
    /// bound of project reads.
    pub root: String,
    /// The working directory (the bottom of the walk; relative tool paths start here).
    pub cwd: String,
    /// Whether the workspace is trusted: only then may a project file import from outside it.
    pub trusted: bool,
    /// The most bytes of the whole block; past it the text is cut with a visible note.
    pub budget_bytes: usize,
}

impl Sources {
    /// The project at `root`, worked in at `cwd`: no user files, untrusted, the default budget.
    pub fn new(root: &str, cwd: &str) -> Sources {
        Sources {
            user_files: Vec::new(),
            user_rules: None,
            home: None,
            root: paths::normalize(root),
            cwd: paths::normalize(cwd),
            trusted: false,
            budget_bytes: DEFAULT_BUDGET_BYTES,
        }
    }
}

/// Where a loaded file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// One of the user's files.
    User,
    /// A folder's `CLAUDE.md`, `.claude/CLAUDE.md` or `AGENTS.md`.
    Project,
    /// A folder's `CLAUDE.local.md`.
    Local,
    /// A rule from `.claude/rules` (the user's or the project's).
    Rule,
    /// A file some other file imports with `@path`.
    Import,
}

impl Origin {
    /// The word shown for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Project => "project",
            Origin::Local => "local",
            Origin::Rule => "rule",
            Origin::Import => "import",
        }
    }
}

/// One file that was loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedFile {
    /// Its absolute path.
    pub path: String,
    /// How it is shown: relative to the project root, `~/…`, or absolute.
    pub shown: String,
    /// Where it came from.
    pub origin: Origin,
    /// Its size in bytes, as read.
    pub bytes: usize,
    /// The file that imported it (shown form).
    pub imported_by: Option<String>,
    /// A conditional rule's globs: it joins the conversation later, not the system prompt.
    pub paths: Vec<String>,
    /// Whether the budget cut some or all of it from the block.
    pub truncated: bool,
}

/// What [`resolve`] found.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Instructions {
    /// The block for the system prompt (empty when nothing loaded).
    pub text: String,
    /// Every file loaded, in the order of the block (conditional rules last).
    pub files: Vec<LoadedFile>,
    /// Problems, each naming its file (refused reads, cut imports, cycles).
    pub warnings: Vec<String>,
    /// Bytes cut by the budget (0 when it all fit).
    pub truncated_bytes: usize,
    /// The rules with `paths:` globs, to join the conversation when a file they match is used.
    pub path_rules: PathRules,
}

impl Instructions {
    /// `base` followed by the block (or `base` alone when nothing loaded).
    pub fn system_prompt(&self, base: &str) -> String {
        if self.text.is_empty() {
            base.to_owned()
        } else {
            format!("{base}\n\n{}", self.text)
        }
    }

    /// `{"bytes", "truncatedBytes", "files": [{path, shown, origin, bytes, importedBy, paths,
    /// truncated}], "warnings"}` for `agentwire instructions --json` and the npm package.
    pub fn to_json(&self) -> Value {
        let files: Vec<Value> = self
            .files
            .iter()
            .map(|f| {
                json!({
                    "path": f.path,
                    "shown": f.shown,
                    "origin": f.origin.as_str(),
                    "bytes": f.bytes,
                    "importedBy": f.imported_by,
                    "paths": f.paths,
                    "truncated": f.truncated,
                })
            })
            .collect();
        json!({
            "bytes": self.text.len(),
            "truncatedBytes": self.truncated_bytes,
            "files": files,
            "warnings": self.warnings,
        })
    }
}

#[cfg(test)]
mod tests;
