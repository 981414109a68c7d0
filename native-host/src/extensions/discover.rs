//! Where skills, commands and plugins are found on disk, as Claude Code looks for them:
//! `~/.claude/skills/<d>/SKILL.md`, `~/.claude/commands/**/*.md`, the same under the project's
//! `.claude/` (the current directory, then each parent up to the git root, never `$HOME`), with
//! `.agents/skills` beside each `.claude/skills`; a skill folder holding
//! `.claude-plugin/plugin.json` is a plugin. Discovery only reads text and lists files: parsing
//! is the core's, starting servers the app's.
//!
//! Every file is read through a [`Bound`]: a project's skills and commands must resolve inside
//! the project, a user's SKILL.md inside its skill folder (the folder itself may be a link the
//! user made), a user's commands inside `~/.claude/commands`; a symlink leading elsewhere is
//! refused unread, and FIFOs and devices are refused without blocking.

use super::read::Bound;
use ignore::WalkBuilder;
use std::collections::{BinaryHeap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Most bundled files listed per skill; the listing is marked cut beyond it.
pub const MAX_BUNDLED_FILES: usize = 200;
/// Deepest bundled file listed, in directories below the skill's own.
pub const MAX_BUNDLED_DEPTH: usize = 4;
/// Deepest command file, in directories below `commands/`.
pub const MAX_COMMAND_DEPTH: usize = 6;
/// Most directory entries looked at under one skills or commands root: the first ones by name,
/// the rest reported as not loaded.
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
    /// A skill's folder, resolved when it was read: where `read_skill_file` reads, and the
    /// bound its files must stay in (none for commands).
    pub real_dir: Option<PathBuf>,
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
    /// Problems naming a file: unreadable, too large, leading outside; the rest still loads.
    pub errors: Vec<String>,
    /// What was left out at a bound (entries past [`MAX_ENTRIES`]), naming the folder.
    pub warnings: Vec<String>,
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

/// The folders of the project's plugins that trusting the workspace of `cwd` would load (what
/// the trust question lists), as [`discover`] finds them in a trusted workspace.
pub fn project_plugin_roots(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let places = Places {
        project: project_dirs(cwd, home),
        trusted: true,
        ..Places::default()
    };
    discover(&places)
        .plugins
        .into_iter()
        .filter(|plugin| plugin.scope == Scope::Project)
        .map(|plugin| plugin.root)
        .collect()
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
    // Everything of the project stays inside its root (the git root), wherever it links.
    let project = match places.project.last().map(|r| Bound::new(r, "the project")) {
        Some(Ok(bound)) => Some(bound),
        Some(Err(error)) => {
            found.errors.push(error);
            None
        }
        None => None,
    };
    let mut roots: Vec<(PathBuf, Scope, Option<&Bound>)> = Vec::new();
    if let Some(home) = &places.home {
        roots.push((home.clone(), Scope::User, None));
    }
    if let Some(bound) = &project {
        for dir in &places.project {
            roots.push((dir.clone(), Scope::Project, Some(bound)));
        }
    }
    for (base, scope, project) in roots {
        for skills in [".claude/skills", ".agents/skills"] {
            let root = base.join(skills);
            skills_in(&root, scope, project, places, &mut seen, &mut found);
        }
        let root = base.join(".claude/commands");
        if std::fs::symlink_metadata(&root).is_err() {
            continue;
        }
        // A user's commands folder may be a link the user made; its files stay inside it.
        let bound = match project {
            Some(bound) => Ok(bound.clone()),
            None => Bound::new(&root, "the commands folder"),
        };
        let listed = match bound {
            Ok(bound) => commands_in(&root, scope, &bound),
            Err(error) => Listed {
                errors: vec![error],
                ..Listed::default()
            },
        };
        found.commands.extend(listed.items);
        found.errors.extend(listed.errors);
        found.warnings.extend(listed.warnings);
    }
    found
}

/// The entries of `dir` that may be skills (not [`skipped_name`]), the first `max` by name
/// whatever the directory's order, sorted; and how many there were in all. Memory stays at
/// `max` names however large the directory.
pub fn first_by_name(dir: &Path, max: usize) -> Option<(Vec<PathBuf>, usize)> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut kept: BinaryHeap<PathBuf> = BinaryHeap::new();
    let mut total = 0;
    for entry in entries.filter_map(|entry| entry.ok()) {
        if skipped_name(&entry.file_name().to_string_lossy()) {
            continue;
        }
        total += 1;
        kept.push(entry.path());
        if kept.len() > max {
            // The largest name so far is the one past the bound.
            kept.pop();
        }
    }
    Some((kept.into_sorted_vec(), total))
}

/// The warning for a folder with more than [`MAX_ENTRIES`] entries, or none.
pub fn entries_dropped(dir: &Path, total: usize) -> Option<String> {
    (total > MAX_ENTRIES).then(|| {
        format!(
            "{}: {total} entries; only the first {MAX_ENTRIES} by name are looked at ({} not \
             loaded)",
            dir.display(),
            total - MAX_ENTRIES
        )
    })
}

/// The SKILL.md files and plugin folders directly under `root` (one level, as Claude Code).
/// `project`: the project's bound, for project scope.
fn skills_in(
    root: &Path,
    scope: Scope,
    project: Option<&Bound>,
    places: &Places,
    seen: &mut HashSet<PathBuf>,
    found: &mut Found,
) {
    if std::fs::symlink_metadata(root).is_err() {
        return;
    }
    if let Some(Err(error)) = project.map(|bound| bound.resolve(root)) {
        found.errors.push(error);
        return;
    }
    let Some((entries, total)) = first_by_name(root, MAX_ENTRIES) else {
        return;
    };
    found.warnings.extend(entries_dropped(root, total));
    // Follows symlinked skill folders: `is_dir` looks through the link.
    let dirs = entries.into_iter().filter(|path| path.is_dir());
    for dir in dirs {
        // A project's skill folder must resolve inside the project; a user's is where the
        // user put it (a link to dotfiles is the user's own choice).
        let canonical = match project {
            Some(bound) => match bound.resolve(&dir) {
                Ok(real) => real,
                Err(error) => {
                    found.errors.push(error);
                    continue;
                }
            },
            None => match std::fs::canonicalize(&dir) {
                Ok(real) => real,
                Err(_) => continue,
            },
        };
        // The same folder reached twice (a symlink, or `.agents` linked to `.claude`) loads once.
        if !seen.insert(canonical.clone()) {
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
        // Anything there is read or refused by name (a FIFO, a link out); nothing is skipped.
        if std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let own;
        let bound = match project {
            Some(bound) => bound,
            None => {
                own = Bound::at_real(canonical, "the skill folder");
                &own
            }
        };
        match read_skill(&file, scope, bound) {
            Ok(skill) => found.skills.push(skill),
            Err(error) => found.errors.push(error),
        }
    }
}

/// Reads one skill folder's SKILL.md and lists the files it bundles; the folder and the file
/// must resolve inside `bound`.
pub fn read_skill(file: &Path, scope: Scope, bound: &Bound) -> Result<ItemFile, String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let real_dir = bound.resolve(dir)?;
    let read = bound.read(file)?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (files, files_cut) = bundled_files(&real_dir);
    Ok(ItemFile {
        path: file.to_path_buf(),
        name,
        group: None,
        text: read.text,
        real_dir: Some(real_dir),
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

/// Command files found under one folder, and what was refused or left out.
#[derive(Debug, Default)]
pub struct Listed {
    /// The command files read, sorted by path.
    pub items: Vec<ItemFile>,
    /// Files and folders refused or unreadable, each naming itself.
    pub errors: Vec<String>,
    /// What was left out at a bound, naming the folder.
    pub warnings: Vec<String>,
}

/// The `*.md` files under a `commands/` directory, sorted by path; a file in a subdirectory is
/// grouped by it (`frontend/component.md` → `/component`, qualified `/frontend:component`).
/// Links are followed only while they stay inside `bound`: a linked folder leading out is not
/// entered, a linked file leading out not read.
pub fn commands_in(root: &Path, scope: Scope, bound: &Bound) -> Listed {
    let mut listed = Listed::default();
    // (A file in place of the folder lists nothing: the walk skips its root.)
    if let Err(error) = bound.resolve(root) {
        listed.errors.push(error);
        return listed;
    }
    let pruned = Arc::new(Mutex::new(Vec::new()));
    let walker = {
        let (bound, pruned) = (bound.clone(), pruned.clone());
        WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(true)
            .max_depth(Some(MAX_COMMAND_DEPTH + 1))
            .filter_entry(move |entry| {
                if entry.depth() == 0 {
                    return true;
                }
                if skipped_name(&entry.file_name().to_string_lossy()) {
                    return false;
                }
                // A link is looked through only when it stays inside: a folder outside is not
                // even listed, a file outside never opened (reads check again).
                if entry.path_is_symlink() {
                    if let Err(error) = bound.resolve(entry.path()) {
                        pruned.lock().unwrap_or_else(|e| e.into_inner()).push(error);
                        return false;
                    }
                }
                true
            })
            .sort_by_file_name(|a, b| a.cmp(b))
            .build()
    };
    let mut walker = walker.filter_map(Result::ok);
    let mut looked_at = 0;
    while let Some(entry) = walker.next() {
        if entry.depth() == 0 {
            continue;
        }
        if looked_at == MAX_ENTRIES {
            let total = MAX_ENTRIES + 1 + walker.count();
            listed.warnings.extend(entries_dropped(root, total));
            break;
        }
        looked_at += 1;
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_dir())
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
        match read_command(path, name, group, scope, bound) {
            Ok(command) => listed.items.push(command),
            Err(error) => listed.errors.push(error),
        }
    }
    listed.errors.extend(std::mem::take(
        &mut *pruned.lock().unwrap_or_else(|e| e.into_inner()),
    ));
    listed
}

/// Reads one command file, named `name` (in `group`, if any); it must resolve inside `bound`.
pub fn read_command(
    path: &Path,
    name: String,
    group: Option<String>,
    scope: Scope,
    bound: &Bound,
) -> Result<ItemFile, String> {
    let read = bound.read(path)?;
    Ok(ItemFile {
        path: path.to_path_buf(),
        name,
        group,
        text: read.text,
        real_dir: None,
        files: Vec::new(),
        files_cut: false,
        scope,
        warnings: read.warnings,
    })
}
