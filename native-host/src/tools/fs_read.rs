//! `read_file` and `list_directory`.

use super::args::{truncate_utf8, Args};
use super::safe_open::Access;
use super::{blocking, BuiltinTool, ToolContext, Workspace, RISK_READ};
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use serde_json::{json, Value};
use std::fs;
use std::io::Read;

/// Files larger than this are refused: a model cannot use them whole and they cost memory.
pub(crate) const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Lines returned when the call gives no `limit`.
const DEFAULT_LINES: u64 = 2000;
/// Longer lines are cut, so one minified file cannot flood the context.
const MAX_LINE_CHARS: usize = 2000;
/// Total text returned by one read.
const MAX_READ_OUTPUT: usize = 256 * 1024;
/// Entries listed by one `list_directory` call.
const MAX_ENTRIES: usize = 1000;

/// Whether the first bytes look binary (a NUL byte, as git and grep decide).
pub(crate) fn looks_binary(head: &[u8]) -> bool {
    head.iter().take(8000).any(|&b| b == 0)
}

/// Reads a text file, with line numbers, optionally a window of lines.
pub(crate) struct ReadFile {
    ws: Workspace,
}

impl ReadFile {
    pub(crate) fn new(ws: Workspace) -> Self {
        ReadFile { ws }
    }
}

#[async_trait]
impl BuiltinTool for ReadFile {
    fn name(&self) -> &'static str {
        "read_file"
    }
    fn description(&self) -> &'static str {
        "Read a text file in the workspace. Lines come back numbered (number, tab, text). \
         Use offset (1-based first line) and limit (line count, default 2000) for large files."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace"},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)"},
                "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read"}
            },
            "required": ["path"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_READ
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let ws = self.ws.clone();
        blocking(move || read_file(&ws, args)).await
    }
}

fn read_file(ws: &Workspace, args: Value) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let path = args.string("path")?;
    let offset = args.opt_u64("offset")?.unwrap_or(1).max(1);
    let limit = args.opt_u64("limit")?.unwrap_or(DEFAULT_LINES);
    if limit == 0 {
        return Err("argument \"limit\" must be at least 1".into());
    }
    let opened = ws.open_file(&path, Access::Read)?;
    if opened.len > MAX_FILE_BYTES {
        return Err(format!(
            "{path:?} is {} bytes, over the {} byte limit of read_file; use grep, or bash with \
             head/tail/sed, to look at parts of it",
            opened.len, MAX_FILE_BYTES
        ));
    }
    let mut bytes = Vec::with_capacity(opened.len as usize);
    opened
        .file
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {path:?}: {e}"))?;
    if looks_binary(&bytes) {
        return Err(format!(
            "{path:?} looks like a binary file ({} bytes); read_file only shows text",
            bytes.len()
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    if text.is_empty() {
        return Ok(ToolOutput::text(format!("{path} is empty")));
    }
    let total = text.lines().count() as u64;
    if offset > total {
        return Err(format!(
            "{path:?} has {total} lines; offset {offset} is past the end"
        ));
    }
    let mut out = String::new();
    let mut last = offset - 1;
    let mut cut_lines = 0usize;
    for (i, line) in text
        .lines()
        .enumerate()
        .skip((offset - 1) as usize)
        .take(limit as usize)
    {
        let mut line = line.to_owned();
        let char_count = line.chars().count();
        if char_count > MAX_LINE_CHARS {
            line = line.chars().take(MAX_LINE_CHARS).collect();
            line.push_str(&format!(
                " [... {} more characters]",
                char_count - MAX_LINE_CHARS
            ));
            cut_lines += 1;
        }
        let numbered = format!("{:>6}\t{line}\n", i + 1);
        if out.len() + numbered.len() > MAX_READ_OUTPUT {
            break;
        }
        out.push_str(&numbered);
        last = i as u64 + 1;
    }
    if last < total {
        out.push_str(&format!(
            "[showing lines {offset}-{last} of {total}; pass offset={} to read on]\n",
            last + 1
        ));
    }
    if cut_lines > 0 {
        out.push_str(&format!(
            "[{cut_lines} long line(s) cut at {MAX_LINE_CHARS} characters]\n"
        ));
    }
    Ok(ToolOutput::text(out))
}

/// Lists one directory: directories end in `/`, symlinks show their target.
pub(crate) struct ListDirectory {
    ws: Workspace,
}

impl ListDirectory {
    pub(crate) fn new(ws: Workspace) -> Self {
        ListDirectory { ws }
    }
}

#[async_trait]
impl BuiltinTool for ListDirectory {
    fn name(&self) -> &'static str {
        "list_directory"
    }
    fn description(&self) -> &'static str {
        "List the entries of a directory in the workspace (not recursive). Directories end \
         with '/', symlinks show '-> target'. Use glob to search recursively."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory, relative to the workspace (default: the workspace root)"}
            }
        })
    }
    fn risk(&self) -> &'static str {
        RISK_READ
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let ws = self.ws.clone();
        let budget = ctx.max_output_bytes;
        blocking(move || list_directory(&ws, args, budget)).await
    }
}

fn list_directory(ws: &Workspace, args: Value, budget: usize) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let path = args.opt_string("path")?.unwrap_or_else(|| ".".into());
    let real = ws.resolve(&path)?;
    // A folder holding secrets is not listed either (the names of keys are a start).
    ws.read_guard(&path, &real)?;
    let entries = fs::read_dir(&real).map_err(|e| format!("cannot list {path:?}: {e}"))?;
    let mut lines = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {path:?}: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(|e| format!("{name}: {e}"))?;
        lines.push(if kind.is_symlink() {
            let target = fs::read_link(entry.path())
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            format!("{name} -> {target}")
        } else if kind.is_dir() {
            format!("{name}/")
        } else {
            name
        });
    }
    lines.sort();
    let shown = lines.len().min(MAX_ENTRIES);
    let mut out = if lines.is_empty() {
        format!("{} is empty\n", ws.display(&real))
    } else {
        lines[..shown].join("\n") + "\n"
    };
    let cut = truncate_utf8(&mut out, budget);
    if shown < lines.len() || cut {
        out.push_str(&format!(
            "[listing cut: {} entries in all; use glob to narrow down]\n",
            lines.len()
        ));
    }
    Ok(ToolOutput::text(out))
}
