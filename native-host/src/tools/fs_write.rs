//! `write_file` and `edit_file`.

use super::args::Args;
use super::fs_read::{looks_binary, MAX_FILE_BYTES};
use super::safe_open::Access;
use super::{blocking, BuiltinTool, ToolContext, Workspace, RISK_WRITE};
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use serde_json::{json, Value};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

/// Creates or overwrites a file, creating missing parent directories.
pub(crate) struct WriteFile {
    ws: Workspace,
}

impl WriteFile {
    pub(crate) fn new(ws: Workspace) -> Self {
        WriteFile { ws }
    }
}

#[async_trait]
impl BuiltinTool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }
    fn description(&self) -> &'static str {
        "Write a file in the workspace, replacing it if it exists. Missing parent directories \
         are created. Prefer edit_file for changes to an existing file."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace"},
                "content": {"type": "string", "description": "The complete new contents"}
            },
            "required": ["path", "content"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_WRITE
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let ws = self.ws.clone();
        blocking(move || write_file(&ws, args)).await
    }
}

fn write_file(ws: &Workspace, args: Value) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let path = args.string("path")?;
    let content = args.string("content")?;
    let opened = ws.open_file(&path, Access::Write)?;
    replace_contents(&opened.file, content.as_bytes())
        .map_err(|e| format!("cannot write {path:?}: {e}"))?;
    Ok(ToolOutput::text(format!(
        "{} {} ({} bytes, {} lines)",
        if opened.created {
            "created"
        } else {
            "overwrote"
        },
        ws.display(&opened.real),
        content.len(),
        content.lines().count()
    )))
}

/// Replaces an exact string in a file: once (it must be unique) or everywhere.
pub(crate) struct EditFile {
    ws: Workspace,
}

impl EditFile {
    pub(crate) fn new(ws: Workspace) -> Self {
        EditFile { ws }
    }
}

#[async_trait]
impl BuiltinTool for EditFile {
    fn name(&self) -> &'static str {
        "edit_file"
    }
    fn description(&self) -> &'static str {
        "Replace an exact string in a workspace file. old_string must appear exactly once \
         (include surrounding lines to make it unique) unless replace_all is true. Whitespace \
         and indentation must match the file; do not include read_file's line numbers."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace"},
                "old_string": {"type": "string", "description": "Exact text to replace"},
                "new_string": {"type": "string", "description": "Replacement text"},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)"}
            },
            "required": ["path", "old_string", "new_string"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_WRITE
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let ws = self.ws.clone();
        blocking(move || edit_file(&ws, args)).await
    }
}

fn edit_file(ws: &Workspace, args: Value) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let path = args.string("path")?;
    let old = args.string("old_string")?;
    let new = args.string("new_string")?;
    let replace_all = args.flag("replace_all")?;
    if old.is_empty() {
        return Err("old_string is empty; use write_file to create or replace a whole file".into());
    }
    if old == new {
        return Err("old_string and new_string are identical; nothing would change".into());
    }
    let mut opened = ws.open_file(&path, Access::Edit)?;
    if opened.len > MAX_FILE_BYTES {
        return Err(format!(
            "{path:?} is {} bytes, over the {MAX_FILE_BYTES} byte limit of edit_file",
            opened.len
        ));
    }
    let mut bytes = Vec::with_capacity(opened.len as usize);
    (&opened.file)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {path:?}: {e}"))?;
    if looks_binary(&bytes) {
        return Err(format!(
            "{path:?} looks like a binary file; edit_file edits text"
        ));
    }
    // Editing through a lossy conversion would silently change the invalid bytes.
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{path:?} is not valid UTF-8; edit_file edits UTF-8 text only"))?;
    let count = text.matches(old.as_str()).count();
    match (count, replace_all) {
        (0, _) => {
            return Err(format!(
                "old_string was not found in {path:?}; check whitespace and indentation \
                 (read_file shows the exact text)"
            ))
        }
        (n, false) if n > 1 => {
            return Err(format!(
                "old_string appears {n} times in {path:?}; add surrounding context to make it \
                 unique, or set replace_all to true"
            ))
        }
        _ => {}
    }
    let updated = if replace_all {
        text.replace(old.as_str(), &new)
    } else {
        text.replacen(old.as_str(), &new, 1)
    };
    opened
        .file
        .rewind()
        .and_then(|()| replace_contents(&opened.file, updated.as_bytes()))
        .map_err(|e| format!("cannot write {path:?}: {e}"))?;
    Ok(ToolOutput::text(format!(
        "replaced {count} occurrence{} in {}",
        if count == 1 { "" } else { "s" },
        ws.display(&opened.real)
    )))
}

/// Empties the open file and writes `bytes` from its start, through the one descriptor that
/// was checked (no reopening by name).
fn replace_contents(mut file: &File, bytes: &[u8]) -> std::io::Result<()> {
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)?;
    file.flush()
}
