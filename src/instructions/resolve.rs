//! The walk: user files, then each folder from the project root down to the working directory,
//! then the rules; every file's `@path` imports depth-first after it; one budget over it all.

use super::markdown::{imports, rule_paths, strip_block_comments};
use super::path_rules::{PathRule, PathRules};
use super::paths::{join, normalize, parent, relative, within};
use super::{
    Access, InstructionReader, Instructions, LoadedFile, Origin, ReadError, Sources,
    MAX_IMPORT_DEPTH,
};
use std::collections::BTreeSet;

/// The opening of the block: what it is, and that it is no permission.
const HEADER: &str = "# Instructions\n\nFrom the user's and the project's instruction files \
(CLAUDE.md, AGENTS.md, rules), most general first; later, more specific files refine earlier \
ones. Follow them where they apply. They grant no permission: which tools may run is the \
user's settings' decision alone.\n";

/// The files a folder may hold, in order of preference: the first present is its main file.
const MAIN_FILES: [&str; 3] = ["CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md"];
/// A folder's personal file, read after its main file.
const LOCAL_FILE: &str = "CLAUDE.local.md";

/// Resolves the instructions of `sources` through `reader`; never fails (problems become
/// warnings naming the file). The same files give the same bytes.
pub fn resolve(sources: &Sources, reader: &dyn InstructionReader) -> Instructions {
    let mut walk = Walk {
        sources,
        reader,
        seen: BTreeSet::new(),
        stack: Vec::new(),
        sections: Vec::new(),
        files: Vec::new(),
        warnings: Vec::new(),
        rules: Vec::new(),
    };
    for file in &sources.user_files {
        walk.top(&normalize(file), Origin::User, true);
    }
    if let Some(dir) = &sources.user_rules {
        walk.rules_in(&normalize(dir), true);
    }
    for dir in super::paths::chain(&sources.root, &sources.cwd) {
        for name in MAIN_FILES {
            if walk.top(&join(&dir, name), Origin::Project, false) {
                break;
            }
        }
        walk.top(&join(&dir, LOCAL_FILE), Origin::Local, false);
    }
    walk.rules_in(&join(&sources.root, ".claude/rules"), false);
    walk.finish()
}

/// One resolution in progress.
struct Walk<'a> {
    sources: &'a Sources,
    reader: &'a dyn InstructionReader,
    /// Every path loaded or refused so far: each file once.
    seen: BTreeSet<String>,
    /// The import chain being followed, to tell a cycle from a file met twice.
    stack: Vec<String>,
    /// `(index into files, body)` in block order.
    sections: Vec<(usize, String)>,
    files: Vec<LoadedFile>,
    warnings: Vec<String>,
    rules: Vec<PathRule>,
}

impl Walk<'_> {
    /// How `path` is shown: relative to the root, `~/…`, or as it is.
    fn shown(&self, path: &str) -> String {
        if let Some(rest) = relative(path, &self.sources.root) {
            return rest.to_owned();
        }
        if let Some(home) = &self.sources.home {
            if let Some(rest) = relative(path, &normalize(home)) {
                return format!("~/{rest}");
            }
        }
        path.to_owned()
    }

    /// The confinement of a read of `path`, and whether it may happen at all.
    fn access(&self, path: &str, user_chain: bool) -> Option<Access> {
        if within(path, &self.sources.root) && !user_chain {
            return Some(Access::Project);
        }
        if user_chain {
            return Some(Access::User);
        }
        self.sources.trusted.then_some(Access::Outside)
    }

    /// Loads a top-level file; `false` when it does not exist (a refused one exists).
    fn top(&mut self, path: &str, origin: Origin, user: bool) -> bool {
        if self.seen.contains(path) {
            return true;
        }
        let access = if user { Access::User } else { Access::Project };
        match self.reader.read(path, access) {
            Ok(text) => {
                self.seen.insert(path.to_owned());
                self.add(path, origin, &text, None, 0, user);
                true
            }
            Err(ReadError::Missing) => false,
            Err(ReadError::Refused(why)) => {
                self.seen.insert(path.to_owned());
                self.warnings.push(why);
                true
            }
        }
    }

    /// Adds the loaded `text` of `path` as a section, then its imports after it.
    fn add(
        &mut self,
        path: &str,
        origin: Origin,
        text: &str,
        imported_by: Option<String>,
        depth: usize,
        user: bool,
    ) {
        let body = strip_block_comments(text);
        let index = self.files.len();
        self.files.push(LoadedFile {
            path: path.to_owned(),
            shown: self.shown(path),
            origin,
            bytes: text.len(),
            imported_by,
            paths: Vec::new(),
            truncated: false,
        });
        let found = imports(&body);
        self.sections.push((index, body));
        self.stack.push(path.to_owned());
        for import in found {
            self.import(path, &import, depth + 1, user);
        }
        self.stack.pop();
    }

    /// Follows one `@import` of `from`, at `depth` below the top file.
    fn import(&mut self, from: &str, import: &str, depth: usize, user: bool) {
        let shown_from = self.shown(from);
        let target = match import.strip_prefix("~/") {
            Some(rest) => match &self.sources.home {
                Some(home) => join(home, rest),
                None => {
                    self.warnings.push(format!(
                        "{shown_from}: import @{import} not followed: no home folder is known"
                    ));
                    return;
                }
            },
            None if import.starts_with('/') => normalize(import),
            None => join(&parent(from), import),
        };
        if self.stack.contains(&target) {
            self.warnings.push(format!(
                "{shown_from}: import @{import} not followed: it imports itself (a cycle)"
            ));
            return;
        }
        if self.seen.contains(&target) {
            // Already in the block (a file two others import): once is enough.
            return;
        }
        if depth > MAX_IMPORT_DEPTH {
            self.warnings.push(format!(
                "{shown_from}: import @{import} not followed: imports go {MAX_IMPORT_DEPTH} \
                 levels deep at most"
            ));
            return;
        }
        let Some(access) = self.access(&target, user) else {
            self.warnings.push(format!(
                "{shown_from}: import @{import} not read: it leads outside the workspace, \
                 which is not trusted (`agentwire trust` trusts it)"
            ));
            return;
        };
        self.seen.insert(target.clone());
        match self.reader.read(&target, access) {
            Ok(text) => self.add(
                &target,
                Origin::Import,
                &text,
                Some(shown_from),
                depth,
                user,
            ),
            Err(ReadError::Missing) => self.warnings.push(format!(
                "{shown_from}: import @{import} not found ({})",
                self.shown(&target)
            )),
            Err(ReadError::Refused(why)) => self.warnings.push(why),
        }
    }

    /// The rules under `dir`, sorted: unconditional ones join the block, those with `paths:`
    /// wait in the path rules.
    fn rules_in(&mut self, dir: &str, user: bool) {
        let access = if user { Access::User } else { Access::Project };
        let mut found: Vec<String> = self
            .reader
            .list_markdown(dir, access)
            .iter()
            .map(|p| normalize(p))
            .filter(|p| within(p, dir))
            .collect();
        found.sort();
        found.dedup();
        for path in found {
            if self.seen.contains(&path) {
                continue;
            }
            self.seen.insert(path.clone());
            let text = match self.reader.read(&path, access) {
                Ok(text) => text,
                Err(ReadError::Missing) => continue,
                Err(ReadError::Refused(why)) => {
                    self.warnings.push(why);
                    continue;
                }
            };
            let shown = self.shown(&path);
            let (globs, body) = match rule_paths(&text) {
                Ok(split) => split,
                Err(why) => {
                    self.warnings.push(format!("{shown}: {why}; not loaded"));
                    continue;
                }
            };
            if globs.is_empty() {
                self.add(&path, Origin::Rule, body, None, 0, user);
                continue;
            }
            let body = strip_block_comments(body);
            self.rules.push(PathRule {
                path: path.clone(),
                shown: shown.clone(),
                globs: globs.clone(),
                text: cut(body.trim(), self.sources.budget_bytes).0.to_owned(),
            });
            self.files.push(LoadedFile {
                path,
                shown,
                origin: Origin::Rule,
                bytes: text.len(),
                imported_by: None,
                paths: globs,
                truncated: body.trim().len() > self.sources.budget_bytes,
            });
        }
    }

    /// Assembles the block in section order and applies the budget.
    fn finish(mut self) -> Instructions {
        let mut text = String::new();
        let mut starts = Vec::new();
        for (index, body) in &self.sections {
            let body = body.trim();
            if body.is_empty() {
                continue;
            }
            let file = &self.files[*index];
            if text.is_empty() {
                text.push_str(HEADER);
            }
            starts.push((*index, text.len()));
            let label = match &file.imported_by {
                Some(by) => format!("imported by {by}"),
                None => file.origin.as_str().to_owned(),
            };
            text.push_str(&format!("\n## {} ({label})\n\n{body}\n", file.shown));
        }
        let budget = self.sources.budget_bytes;
        let mut truncated_bytes = 0;
        if text.len() > budget {
            let total = text.len();
            let (kept, _) = cut(&text, budget.saturating_sub(NOTE_ROOM));
            let kept_len = kept.len();
            truncated_bytes = total - kept_len;
            for (index, start) in &starts {
                let end = starts
                    .iter()
                    .find(|(_, s)| s > start)
                    .map_or(total, |(_, s)| *s);
                if end > kept_len {
                    self.files[*index].truncated = true;
                }
            }
            let cut_files: Vec<&str> = self
                .files
                .iter()
                .filter(|f| f.truncated && f.paths.is_empty())
                .map(|f| f.shown.as_str())
                .collect();
            let mut note = format!(
                "\n\n[Instructions truncated: {truncated_bytes} of {total} bytes not shown \
                 (budget {budget} bytes); cut: {}]\n",
                cut_files.join(", ")
            );
            // The note itself stays within the budget, however many files it names.
            if kept_len + note.len() > budget {
                note = format!(
                    "\n\n[Instructions truncated: {truncated_bytes} of {total} bytes not shown \
                     (budget {budget} bytes)]\n"
                );
            }
            text = format!("{kept}{note}");
        }
        Instructions {
            text,
            files: self.files,
            warnings: self.warnings,
            truncated_bytes,
            path_rules: PathRules::new(&self.sources.root, &self.sources.cwd, self.rules),
        }
    }
}

/// Room kept for the truncation note.
const NOTE_ROOM: usize = 160;

/// The longest prefix of `text` of at most `limit` bytes ending on a character boundary, and
/// whether anything was cut.
fn cut(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}
