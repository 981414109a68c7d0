//! Where skills, commands and plugins are found on disk, as Claude Code looks for them:
//! `~/.claude/skills/<d>/SKILL.md`, `~/.claude/commands/**/*.md`, the same under the project's
//! `.claude/` (the current directory, then each parent up to the git root, never `$HOME`), with
//! `.agents/skills` beside each `.claude/skills`; a skill folder holding
//! `.claude-plugin/plugin.json` is a plugin. Discovery only reads text and lists files: parsing
//! is the core's, starting servers the app's.

use super::read::read_text;
use ignore::WalkBuilder;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Most bundled files listed per skill; the listing is marked cut beyond it.
pub const MAX_BUNDLED_FILES: usize = 200;
/// Deepest bundled file listed, in directories below the skill's own.
pub const MAX_BUNDLED_DEPTH: usize = 4;
/// Deepest command file, in directories below `commands/`.
pub const MAX_COMMAND_DEPTH: usize = 6;
/// Most directory entries looked at under one skills or commands root.
pub const MAX_ENTRIES: usize = 2_000;

/// Which side of the user/repository line a file is on; decides precedence and trust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's own files (`~/.claude`, `--plugin-dir`).
    User,
    /// Files of the project (possibly a cloned repository).
    Project,
}

impl Scope {
    /// `"user"` or `"project"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// One SKILL.md or command file, read.
#[derive(Clone, Debug)]
pub struct ItemFile {
    /// The file.
    pub path: PathBuf,
    /// Invocation name: the skill's directory name, or the command file's stem.
    pub name: String,
    /// For a command in a subdirectory of `commands/`, those directories joined by `:`.
    pub group: Option<String>,
    /// The file's text.
    pub text: String,
    /// Files bundled with a skill, relative to its directory, sorted (empty for commands).
    pub files: Vec<String>,
    /// Whether the bundled-file listing stopped at a bound.
    pub files_cut: bool,
    /// Scope of the file.
    pub scope: Scope,
    /// Reading warnings naming the file.
    pub warnings: Vec<String>,
}

impl ItemFile {
    /// The skill's directory (the command file's directory for commands).
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// A plugin directory found (or named with `--plugin-dir`); not read yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginRoot {
    /// Its root directory.
    pub root: PathBuf,
    /// Scope it inherits.
    pub scope: Scope,
    /// Why it is not loaded (an untrusted workspace), if it is not.
    pub not_loaded: Option<String>,
}

/// Everything found, in discovery order (the order precedence is decided in).
#[derive(Debug, Default)]
pub struct Found {
    /// SKILL.md files: user scope first, then project.
    pub skills: Vec<ItemFile>,
    /// Command files: user scope first, then project.
    pub commands: Vec<ItemFile>,
    /// Plugin directories: `--plugin-dir` ones first, then user, then project.
    pub plugins: Vec<PluginRoot>,
    /// Problems naming a file: unreadable, too large; the rest still loads.
    pub errors: Vec<String>,
}

/// What to look at.
#[derive(Clone, Debug, Default)]
pub struct Places {
    /// The user's home (`~/.claude`); none without `$HOME`.
    pub home: Option<PathBuf>,
    /// Project directories, nearest first (see [`project_dirs`]).
    pub project: Vec<PathBuf>,
    /// `--plugin-dir` directories, in the order given.
    pub plugin_dirs: Vec<PathBuf>,
    /// Whether the project is trusted: only then do its plugins load.
    pub trusted: bool,
    /// `--bare`: nothing is discovered; `--plugin-dir` still loads (it is explicit).
    pub bare: bool,
}

/// The project directories of `cwd`: itself, then each parent up to the nearest one holding
/// `.git`; only `cwd` when there is no git root. `$HOME` and above are never project
/// directories (`~/.claude` is the user's).
pub fn project_dirs(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let is_home = |dir: &Path| home.is_some_and(|home| same_dir(dir, home));
    if is_home(cwd) {
        return Vec::new();
    }
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        if is_home(dir) {
            break;
        }
        dirs.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            return dirs;
        }
    }
    vec![cwd.to_path_buf()]
}

/// The project's root: the git root above `cwd`, else `cwd` (the directory trust is asked for).
pub fn project_root(cwd: &Path, home: Option<&Path>) -> PathBuf {
    project_dirs(cwd, home)
        .pop()
        .unwrap_or_else(|| cwd.to_path_buf())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// Finds every skill, command and plugin directory of `places`.
pub fn discover(places: &Places) -> Found {
    let mut found = Found::default();
    let mut seen = HashSet::new();
    for dir in &places.plugin_dirs {
        found.plugins.push(PluginRoot {
            root: dir.clone(),
            scope: Scope::User,
            not_loaded: None,
        });
    }
    if places.bare {
        return found;
    }
    let mut roots: Vec<(PathBuf, Scope)> = Vec::new();
    if let Some(home) = &places.home {
        roots.push((home.clone(), Scope::User));
    }
    for dir in &places.project {
        roots.push((dir.clone(), Scope::Project));
    }
    for (base, scope) in roots {
        for skills in [".claude/skills", ".agents/skills"] {
            skills_in(&base.join(skills), scope, places, &mut seen, &mut found);
        }
        commands_in(
            &base.join(".claude/commands"),
            scope,
            &mut found.commands,
            &mut found.errors,
        );
    }
    found
}

/// The SKILL.md files and plugin folders directly under `root` (one level, as Claude Code).
fn skills_in(
    root: &Path,
    scope: Scope,
    places: &Places,
    seen: &mut HashSet<PathBuf>,
    found: &mut Found,
) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .take(MAX_ENTRIES)
        .filter_map(|entry| entry.ok())
        .filter(|entry| !skipped_name(&entry.file_name().to_string_lossy()))
        // Follows symlinked skill folders: `is_dir` looks through the link.
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        // The same folder reached twice (a symlink, or `.agents` linked to `.claude`) loads once.
        let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if !seen.insert(canonical) {
            continue;
        }
        if dir.join(".claude-plugin/plugin.json").is_file() {
            let not_loaded = (scope == Scope::Project && !places.trusted).then(|| {
                format!(
                    "project plugin {} not loaded: the workspace is not trusted (agentwire \
                     trust, or --trust-workspace)",
                    dir.display()
                )
            });
            found.plugins.push(PluginRoot {
                root: dir,
                scope,
                not_loaded,
            });
            continue;
        }
        let file = dir.join("SKILL.md");
        if !file.is_file() {
            continue;
        }
        match read_skill(&file, scope) {
            Ok(skill) => found.skills.push(skill),
            Err(error) => found.errors.push(error),
        }
    }
}

/// Reads one skill folder's SKILL.md and lists the files it bundles.
pub fn read_skill(file: &Path, scope: Scope) -> Result<ItemFile, String> {
    let read = read_text(file)?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (files, files_cut) = bundled_files(dir);
    Ok(ItemFile {
        path: file.to_path_buf(),
        name,
        group: None,
        text: read.text,
        files,
        files_cut,
        scope,
        warnings: read.warnings,
    })
}

/// Dot-directories and `node_modules` are never skills, commands or bundled files.
pub fn skipped_name(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules" || name == "__pycache__"
}

/// The files of a skill folder other than SKILL.md, relative and sorted, within the bounds.
fn bundled_files(dir: &Path) -> (Vec<String>, bool) {
    let mut files = Vec::new();
    let mut cut = false;
    let walker = WalkBuilder::new(dir)
        .standard_filters(false)
        .follow_links(false)
        .max_depth(Some(MAX_BUNDLED_DEPTH + 1))
        .filter_entry(|entry| {
            entry.depth() == 0 || !skipped_name(&entry.file_name().to_string_lossy())
        })
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker.filter_map(Result::ok) {
        if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let relative = relative.to_string_lossy().into_owned();
        if relative == "SKILL.md" {
            continue;
        }
        if files.len() == MAX_BUNDLED_FILES {
            cut = true;
            break;
        }
        files.push(relative);
    }
    (files, cut)
}

/// The `*.md` files under a `commands/` directory, sorted by path; a file in a subdirectory is
/// grouped by it (`frontend/component.md` → `/component`, qualified `/frontend:component`).
pub fn commands_in(
    root: &Path,
    scope: Scope,
    commands: &mut Vec<ItemFile>,
    errors: &mut Vec<String>,
) {
    if !root.is_dir() {
        return;
    }
    let walker = WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(true)
        .max_depth(Some(MAX_COMMAND_DEPTH + 1))
        .filter_entry(|entry| {
            entry.depth() == 0 || !skipped_name(&entry.file_name().to_string_lossy())
        })
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker.take(MAX_ENTRIES).filter_map(Result::ok) {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file())
            || path.extension().is_none_or(|ext| ext != "md")
        {
            continue;
        }
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let group: Vec<String> = relative
            .parent()
            .into_iter()
            .flat_map(|p| p.components())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let group = (!group.is_empty()).then(|| group.join(":"));
        match read_command(path, name, group, scope) {
            Ok(command) => commands.push(command),
            Err(error) => errors.push(error),
        }
    }
}

/// Reads one command file, named `name` (in `group`, if any).
pub fn read_command(
    path: &Path,
    name: String,
    group: Option<String>,
    scope: Scope,
) -> Result<ItemFile, String> {
    let read = read_text(path)?;
    Ok(ItemFile {
        path: path.to_path_buf(),
        name,
        group,
        text: read.text,
        files: Vec::new(),
        files_cut: false,
        scope,
        warnings: read.warnings,
    })
}
