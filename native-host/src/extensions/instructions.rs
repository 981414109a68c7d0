//! Project instructions on disk: where the user's and the project's files are, read through
//! the confined extension reader, resolved by the core (`agentwire::instructions`).
//!
//! Project reads stay inside the project's real root (its git root, else the workspace): no
//! symlink out, regular files only, at most 1 MiB each, opened without blocking. The user's own
//! files, and imports a trusted workspace makes from outside itself, are read with the same
//! discipline from `/`, except that the kernel's pseudo-filesystems (`/proc`, `/sys`, `/dev`)
//! are refused everywhere: no instruction file is a process's environment.

use super::discover::project_root;
use super::read::Bound;
use super::session::workspace_trusted;
use agentwire::instructions::{
    resolve, Access, InstructionReader, Instructions, ReadError, Sources, DEFAULT_BUDGET_BYTES,
};
use std::path::{Path, PathBuf};

/// The user's own instructions file, agentwire's: `$XDG_CONFIG_HOME/agentwire/AGENTWIRE.md`,
/// else `~/.config/agentwire/AGENTWIRE.md`.
pub const USER_FILE: &str = "agentwire/AGENTWIRE.md";
/// Folders whose files are never instructions, whatever links lead there.
const PSEUDO_FILESYSTEMS: [&str; 3] = ["/proc", "/sys", "/dev"];
/// The user's folders of keys and credentials (below `$HOME`), never read as instructions,
/// even by a trusted workspace or a user file: they are what the sandbox denies `bash` too.
const SECRET_DIRS: [&str; 5] = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker"];
/// Most rule files listed under one rules folder, and how deep.
const MAX_RULE_FILES: usize = 1000;
const MAX_RULE_DEPTH: usize = 8;

/// Where to look, as the session's settings say.
#[derive(Clone, Debug)]
pub struct Lookup {
    /// The working directory (the workspace).
    pub cwd: PathBuf,
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config_home: Option<PathBuf>,
    /// `--trust-workspace`.
    pub trust_flag: bool,
    /// The budget in bytes.
    pub budget_bytes: usize,
}

impl Lookup {
    /// From the environment, for the workspace `cwd` (default: the current directory).
    pub fn from_env(cwd: Option<&Path>, trust_flag: bool, budget: Option<usize>) -> Lookup {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let home = var("HOME").map(PathBuf::from);
        let config_home = var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        let cwd = cwd
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        Lookup {
            cwd: std::fs::canonicalize(&cwd).unwrap_or(cwd),
            home,
            config_home,
            trust_flag,
            budget_bytes: budget.unwrap_or(DEFAULT_BUDGET_BYTES),
        }
    }

    /// The core's sources: the user's files (`~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`,
    /// [`USER_FILE`]), `~/.claude/rules`, the project root down to the working directory.
    pub fn sources(&self) -> Sources {
        let text = |p: &Path| p.to_string_lossy().into_owned();
        let home = self
            .home
            .as_deref()
            .map(|h| std::fs::canonicalize(h).unwrap_or(h.to_path_buf()));
        let root = project_root(&self.cwd, home.as_deref());
        let mut sources = Sources::new(&text(&root), &text(&self.cwd));
        if let Some(home) = &home {
            sources.home = Some(text(home));
            sources
                .user_files
                .push(text(&home.join(".claude/CLAUDE.md")));
            sources
                .user_files
                .push(text(&home.join(".codex/AGENTS.md")));
            sources.user_rules = Some(text(&home.join(".claude/rules")));
        }
        if let Some(config) = &self.config_home {
            sources.user_files.push(text(&config.join(USER_FILE)));
        }
        sources.trusted = workspace_trusted(&self.cwd, home.as_deref(), self.trust_flag);
        sources.budget_bytes = self.budget_bytes;
        sources
    }
}

/// Reads through [`Bound`]: project files inside the project's real root, others from `/`
/// with the pseudo-filesystems refused.
pub struct DiskReader {
    project: Option<Bound>,
    anywhere: Bound,
    /// Real paths never read: the pseudo-filesystems and the user's secret folders.
    never: Vec<PathBuf>,
}

impl DiskReader {
    /// A reader for the project at `root`, for the user whose home is `home`.
    pub fn new(root: &Path, home: Option<&Path>) -> DiskReader {
        let mut never: Vec<PathBuf> = PSEUDO_FILESYSTEMS.iter().map(PathBuf::from).collect();
        if let Some(home) = home {
            for dir in SECRET_DIRS {
                let dir = home.join(dir);
                never.push(std::fs::canonicalize(&dir).unwrap_or(dir));
            }
        }
        DiskReader {
            project: Bound::new(root, "the project").ok(),
            anywhere: Bound::at_real(PathBuf::from("/"), "the file system"),
            never,
        }
    }

    /// The folder of [`DiskReader::never`] `real` is in, if any.
    fn forbidden(&self, real: &Path) -> Option<&Path> {
        self.never
            .iter()
            .find(|p| real.starts_with(p))
            .map(PathBuf::as_path)
    }
}

impl InstructionReader for DiskReader {
    fn read(&self, path: &str, access: Access) -> Result<String, ReadError> {
        let path = Path::new(path);
        let bound = match access {
            Access::Project => match &self.project {
                Some(bound) => bound,
                None => {
                    return Err(ReadError::Refused(format!(
                        "{}: the project root cannot be resolved; not loaded",
                        path.display()
                    )))
                }
            },
            Access::User | Access::Outside => &self.anywhere,
        };
        let real = match bound.resolve(path) {
            Ok(real) => real,
            // A dangling link exists (and is refused); only a missing name is missing.
            Err(why) => {
                return match std::fs::symlink_metadata(path) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ReadError::Missing),
                    _ => Err(ReadError::Refused(why)),
                }
            }
        };
        if let Some(folder) = self.forbidden(&real) {
            return Err(ReadError::Refused(format!(
                "{} leads to {}, inside {}, which is never read as instructions; refused",
                path.display(),
                real.display(),
                folder.display()
            )));
        }
        // Read as the resolved path, so the check and the read are about the same file (the
        // walk from `/` refuses a link swapped in since).
        super::read::read_resolved(&real, path)
            .map(|file| file.text)
            .map_err(ReadError::Refused)
    }

    fn list_markdown(&self, dir: &str, _access: Access) -> Vec<String> {
        let mut found = Vec::new();
        collect_markdown(Path::new(dir), 0, &mut found);
        found
    }
}

/// The `.md` files under `dir` (links to folders not followed; a linked file is listed and
/// then confined by the read), at most [`MAX_RULE_FILES`], [`MAX_RULE_DEPTH`] deep.
fn collect_markdown(dir: &Path, depth: usize, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if found.len() >= MAX_RULE_FILES {
            return;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if depth < MAX_RULE_DEPTH {
                collect_markdown(&path, depth + 1, found);
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path.to_string_lossy().into_owned());
        }
    }
}

/// The instructions of a session and where they came from, resolved again on demand.
#[derive(Debug)]
pub struct SessionInstructions {
    /// Where to look.
    pub lookup: Lookup,
    /// What the last resolution found.
    pub found: Instructions,
}

impl SessionInstructions {
    /// Resolves the instructions `lookup` points at.
    pub fn load(lookup: Lookup) -> SessionInstructions {
        let found = resolve_lookup(&lookup);
        SessionInstructions { lookup, found }
    }

    /// Reads every file again (a new conversation: `/clear`, after compaction); returns the
    /// new result's block.
    pub fn reload(&mut self) -> &Instructions {
        self.found = resolve_lookup(&self.lookup);
        &self.found
    }

    /// One line for the start of a session: `instructions: 3 files, 4,512 bytes`.
    pub fn summary(&self) -> Option<String> {
        let files = &self.found.files;
        if files.is_empty() {
            return None;
        }
        let conditional = files.iter().filter(|f| !f.paths.is_empty()).count();
        let mut line = format!(
            "instructions: {} files, {} bytes",
            files.len() - conditional,
            self.found.text.len()
        );
        if conditional > 0 {
            line.push_str(&format!(", {conditional} rules by path"));
        }
        if self.found.truncated_bytes > 0 {
            line.push_str(&format!(
                "; {} bytes over the budget cut",
                self.found.truncated_bytes
            ));
        }
        Some(line)
    }
}

fn resolve_lookup(lookup: &Lookup) -> Instructions {
    let sources = lookup.sources();
    let home = sources.home.as_deref().map(Path::new);
    let reader = DiskReader::new(Path::new(&sources.root), home);
    resolve(&sources, &reader)
}

#[cfg(test)]
#[path = "instructions_tests.rs"]
mod tests;
