//! `glob` and `grep`: recursive search that honours `.gitignore` (via the `ignore` crate).

use super::args::{truncate_utf8, Args};
use super::fs_read::{looks_binary, MAX_FILE_BYTES};
use super::protected::Snapshot;
use super::read_guard::{is_secret, read_checked};
use super::{blocking, BuiltinTool, ToolContext, Workspace, RISK_READ};
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use regex::RegexBuilder;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Paths returned by one glob.
const MAX_GLOB_RESULTS: usize = 1000;
/// Matching lines returned by one grep when the call does not say.
const DEFAULT_GREP_RESULTS: u64 = 200;
/// Upper bound on `max_results` for grep.
const MAX_GREP_RESULTS: u64 = 1000;
/// Matching lines are cut to this many characters.
const MAX_MATCH_CHARS: usize = 300;

/// Walks the files under `base` (a file or a directory), honouring ignore files and skipping
/// hidden entries and the places holding secrets (`guard`). Symlinks are not followed into
/// directories; a symlinked file is included only when its target is inside the workspace.
fn walk_files(ws: &Workspace, base: &Path, guard: Snapshot) -> impl Iterator<Item = PathBuf> {
    let ws = ws.clone();
    WalkBuilder::new(base)
        .hidden(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| !is_secret(&guard, entry.path()))
        .build()
        .filter_map(Result::ok)
        .filter_map(move |entry| {
            let kind = entry.file_type()?;
            if kind.is_file() {
                return Some(entry.into_path());
            }
            if kind.is_symlink() {
                let inside = ws.resolve(&entry.path().to_string_lossy()).ok()?;
                return inside.is_file().then(|| entry.into_path());
            }
            None
        })
}

fn build_glob(pattern: &str) -> Result<GlobMatcher, String> {
    if pattern.is_empty() {
        return Err("the glob pattern is empty".into());
    }
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("bad glob pattern {pattern:?}: {e}"))
}

/// Finds files by glob pattern.
pub(crate) struct Glob {
    ws: Workspace,
}

impl Glob {
    pub(crate) fn new(ws: Workspace) -> Self {
        Glob { ws }
    }
}

#[async_trait]
impl BuiltinTool for Glob {
    fn name(&self) -> &'static str {
        "glob"
    }
    fn description(&self) -> &'static str {
        "Find files by glob pattern such as '**/*.rs' or 'src/*.{js,ts}' ('*' does not cross \
         '/', '**' does). Matches paths relative to 'path'; returns workspace-relative paths, \
         sorted. Skips hidden and .gitignore'd files."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern"},
                "path": {"type": "string", "description": "Directory to search from (default: the workspace root)"}
            },
            "required": ["pattern"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_READ
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let ws = self.ws.clone();
        let budget = ctx.max_output_bytes;
        blocking(move || glob(&ws, args, budget)).await
    }
}

fn glob(ws: &Workspace, args: Value, budget: usize) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let pattern = args.string("pattern")?;
    let path = args.opt_string("path")?.unwrap_or_else(|| ".".into());
    if pattern.starts_with('/') {
        return Err(format!(
            "pattern {pattern:?} is absolute; patterns are relative to \"path\" (set \"path\" \
             to choose the directory)"
        ));
    }
    let matcher = build_glob(pattern.trim_start_matches("./"))?;
    let base = ws.resolve(&path)?;
    if !base.is_dir() {
        return Err(format!("{path:?} is not a directory"));
    }
    let guard = ws.read_guard(&path, &base)?;
    let mut found: Vec<String> = walk_files(ws, &base, guard)
        .filter(|p| p.strip_prefix(&base).is_ok_and(|rel| matcher.is_match(rel)))
        .map(|p| ws.display(&p))
        .collect();
    found.sort();
    if found.is_empty() {
        return Ok(ToolOutput::text(format!(
            "no files match {pattern:?} under {}",
            ws.display(&base)
        )));
    }
    let total = found.len();
    found.truncate(MAX_GLOB_RESULTS);
    let mut out = found.join("\n") + "\n";
    let cut = truncate_utf8(&mut out, budget);
    if cut || total > found.len() {
        // Drop a partial last line before the note.
        if cut {
            if let Some(nl) = out.rfind('\n') {
                out.truncate(nl + 1);
            }
        }
        out.push_str(&format!(
            "[{total} files matched; list cut, narrow the pattern]\n"
        ));
    }
    Ok(ToolOutput::text(out))
}

/// Searches file contents with a regular expression.
pub(crate) struct Grep {
    ws: Workspace,
}

impl Grep {
    pub(crate) fn new(ws: Workspace) -> Self {
        Grep { ws }
    }
}

#[async_trait]
impl BuiltinTool for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }
    fn description(&self) -> &'static str {
        "Search file contents with a regular expression (Rust regex syntax). Returns \
         'path:line:text' for each matching line. 'path' may be a file or a directory; 'glob' \
         filters files (e.g. '*.rs'). Skips hidden, binary and .gitignore'd files."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression"},
                "path": {"type": "string", "description": "File or directory (default: the workspace root)"},
                "glob": {"type": "string", "description": "Only search files matching this glob"},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)"},
                "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_GREP_RESULTS, "description": "Most matching lines to return (default 200)"}
            },
            "required": ["pattern"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_READ
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let ws = self.ws.clone();
        let budget = ctx.max_output_bytes;
        blocking(move || grep(&ws, args, budget)).await
    }
}

fn grep(ws: &Workspace, args: Value, budget: usize) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let pattern = args.string("pattern")?;
    let path = args.opt_string("path")?.unwrap_or_else(|| ".".into());
    let filter = args
        .opt_string("glob")?
        .map(|g| build_glob(&g))
        .transpose()?;
    let max = args
        .opt_u64("max_results")?
        .unwrap_or(DEFAULT_GREP_RESULTS)
        .clamp(1, MAX_GREP_RESULTS) as usize;
    let regex = RegexBuilder::new(&pattern)
        .case_insensitive(args.flag("case_insensitive")?)
        .size_limit(1 << 22)
        .build()
        .map_err(|e| format!("bad regular expression {pattern:?}: {e}"))?;
    let base = ws.resolve(&path)?;
    if !base.exists() {
        return Err(format!("{path:?} does not exist"));
    }
    let guard = ws.read_guard(&path, &base)?;
    let reads = ws.protected().read_snapshot();
    let mut out = String::new();
    let (mut hits, mut files_with_hits, mut skipped) = (0usize, 0usize, 0usize);
    let mut cut = false;
    'files: for file in walk_files(ws, &base, guard) {
        if let Some(filter) = &filter {
            let rel = file.strip_prefix(&base).unwrap_or(&file);
            let name = file.file_name().map(Path::new).unwrap_or(rel);
            if !(filter.is_match(rel) || filter.is_match(name)) {
                continue;
            }
        }
        let Some(bytes) = read_checked(&reads, &file, MAX_FILE_BYTES) else {
            skipped += 1;
            continue;
        };
        if looks_binary(&bytes) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let shown = ws.display(&file);
        let mut counted = false;
        for (i, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            if hits == max {
                cut = true;
                break 'files;
            }
            if !counted {
                files_with_hits += 1;
                counted = true;
            }
            hits += 1;
            let mut snippet: String = line.chars().take(MAX_MATCH_CHARS).collect();
            if snippet.len() < line.len() {
                snippet.push_str(" [...]");
            }
            let entry = format!("{shown}:{}:{snippet}\n", i + 1);
            if out.len() + entry.len() > budget {
                cut = true;
                break 'files;
            }
            out.push_str(&entry);
        }
    }
    if hits == 0 {
        return Ok(ToolOutput::text(format!(
            "no matches for {pattern:?} under {}",
            ws.display(&base)
        )));
    }
    if cut {
        out.push_str(&format!(
            "[results cut at {hits} matching lines; narrow the pattern, path or glob]\n"
        ));
    } else {
        out.push_str(&format!(
            "[{hits} matching lines in {files_with_hits} files]\n"
        ));
    }
    if skipped > 0 {
        out.push_str(&format!(
            "[{skipped} files skipped: unreadable or over {MAX_FILE_BYTES} bytes]\n"
        ));
    }
    Ok(ToolOutput::text(out))
}
