//! Reading a transcript back from JSONL: strict about everything but a torn last line.
//!
//! A crash while a line is written leaves it without its newline; that line alone is skipped
//! with a warning. Anything else wrong (not JSON, an unknown entry kind, a newer version, a
//! result for a call nobody made) is a [`ParseError`] naming the line, and nothing is loaded.

use super::entry::{CompactionMode, Entry};
use super::rebuild::Check;
use super::{Transcript, TRANSCRIPT_VERSION};
use crate::agent::Approval;
use crate::json::{quoted, to_text};
use crate::model::{ChatMessage, ToolCall, Usage};
use serde_json::{json, Map, Value};
use std::fmt;

/// Why a transcript could not be loaded: the 1-based line and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A transcript read back, with what was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The entries of every complete line.
    pub transcript: Transcript,
    /// Warnings (a torn last line), for the host to show.
    pub warnings: Vec<String>,
    /// Bytes of the complete lines: where a host appending to the file continues.
    pub complete_bytes: usize,
}

/// The `session` header line.
pub(super) fn header_line(id: &str) -> String {
    let mut line = to_text(&json!({"type": "session", "version": TRANSCRIPT_VERSION, "id": id}));
    line.push('\n');
    line
}

/// Reads a whole transcript file.
pub fn parse_jsonl(text: &str) -> Result<Parsed, ParseError> {
    let mut transcript = None;
    let mut warnings = Vec::new();
    let mut check = Check::default();
    let mut complete_bytes = 0;
    let mut offset = 0;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line = index + 1;
        let at = |message: String| ParseError { line, message };
        offset += raw.len();
        let torn = !raw.ends_with('\n');
        if raw.trim().is_empty() {
            if !torn {
                complete_bytes = offset;
            }
            continue;
        }
        let value = match crate::json::parse_str(raw) {
            Ok(value) => value,
            Err(_) if torn => {
                warnings.push(format!(
                    "line {line}: skipped an incomplete last line ({} bytes), written when the \
                     session was interrupted",
                    raw.len()
                ));
                break;
            }
            Err(e) => return Err(at(format!("not JSON: {e}"))),
        };
        let obj = value
            .as_object()
            .ok_or_else(|| at("an entry must be a JSON object".into()))?;
        match &mut transcript {
            None => transcript = Some(Transcript::new(header(obj).map_err(at)?)),
            Some(t) => {
                let entry = entry_from(obj).map_err(at)?;
                check.entry(&entry).map_err(at)?;
                t.append(entry);
            }
        }
        complete_bytes = offset;
    }
    let transcript = transcript.ok_or(ParseError {
        line: 1,
        message: "empty: a transcript starts with a \"session\" line".into(),
    })?;
    Ok(Parsed {
        transcript,
        warnings,
        complete_bytes,
    })
}

fn header(obj: &Map<String, Value>) -> Result<String, String> {
    if obj.get("type").and_then(Value::as_str) != Some("session") {
        return Err("a transcript starts with a {\"type\":\"session\"} line".into());
    }
    match obj.get("version").and_then(Value::as_u64) {
        Some(TRANSCRIPT_VERSION) => {}
        Some(v) if v > TRANSCRIPT_VERSION => {
            return Err(format!(
                "transcript version {v} was written by a newer agentwire; this one reads version \
                 {TRANSCRIPT_VERSION}"
            ))
        }
        _ => return Err(format!("\"version\" must be {TRANSCRIPT_VERSION}")),
    }
    text(obj, "id")
}

fn text(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(format!("\"{key}\" must be a string")),
    }
}

fn flag(obj: &Map<String, Value>, key: &str) -> Result<bool, String> {
    obj.get(key)
        .and_then(Value::as_bool)
        .ok_or_else(|| format!("\"{key}\" must be true or false"))
}

fn count(obj: &Map<String, Value>, key: &str) -> Result<u64, String> {
    obj.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("\"{key}\" must be a non-negative integer"))
}

/// Reads [`Usage::to_value`]'s snake_case shape.
fn usage(value: Option<&Value>) -> Result<Option<Usage>, String> {
    let obj = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(obj)) => obj,
        Some(_) => return Err("\"usage\" must be an object".into()),
    };
    let optional = |key: &str| match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("\"usage.{key}\" must be a non-negative integer")),
    };
    Ok(Some(Usage {
        input_tokens: count(obj, "input_tokens").map_err(|e| format!("usage: {e}"))?,
        output_tokens: count(obj, "output_tokens").map_err(|e| format!("usage: {e}"))?,
        cache_read_tokens: optional("cache_read_tokens")?,
        cache_write_tokens: optional("cache_write_tokens")?,
    }))
}

fn calls(value: Option<&Value>) -> Result<Vec<ToolCall>, String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let obj = item
                    .as_object()
                    .ok_or_else(|| format!("tool_calls[{i}] must be an object"))?;
                Ok(ToolCall {
                    id: text(obj, "id").map_err(|e| format!("tool_calls[{i}]: {e}"))?,
                    name: text(obj, "name").map_err(|e| format!("tool_calls[{i}]: {e}"))?,
                    arguments: obj.get("arguments").cloned().unwrap_or(Value::Null),
                })
            })
            .collect(),
        _ => Err("\"tool_calls\" must be an array".into()),
    }
}

/// One entry from its JSON line (no header, no checks across lines): how a store's redactor
/// reads what the runtime recorded.
pub fn entry_from_line(line: &str) -> Result<Entry, String> {
    match crate::json::parse_str(line) {
        Ok(Value::Object(obj)) => entry_from(&obj),
        _ => Err("an entry must be a JSON object".into()),
    }
}

/// One entry line; an unknown `type` is an error, never skipped.
pub(super) fn entry_from(obj: &Map<String, Value>) -> Result<Entry, String> {
    let kind = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or("an entry needs a string \"type\"")?;
    Ok(match kind {
        "user" => Entry::User {
            content: text(obj, "content")?,
        },
        "assistant" => Entry::Assistant {
            content: match obj.get("content") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err("\"content\" must be a string or null".into()),
            },
            tool_calls: calls(obj.get("tool_calls"))?,
            usage: usage(obj.get("usage"))?,
        },
        "tool_result" => Entry::ToolResult {
            call_id: text(obj, "call_id")?,
            name: text(obj, "name")?,
            content: text(obj, "content")?,
            is_error: flag(obj, "is_error")?,
        },
        "approval" => Entry::Approval {
            call_id: text(obj, "call_id")?,
            answer: Approval::parse(&text(obj, "answer")?)?,
        },
        "command" => Entry::Command {
            name: text(obj, "name")?,
            qualified: text(obj, "qualified")?,
        },
        "compaction" => Entry::Compaction {
            mode: match text(obj, "mode")?.as_str() {
                "stub" => CompactionMode::Stub,
                "summary" => CompactionMode::Summary,
                other => return Err(format!("unknown compaction mode {}", quoted(other))),
            },
            tokens_before: count(obj, "tokens_before")?,
            tokens_after: count(obj, "tokens_after")?,
            messages: match obj.get("messages") {
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        ChatMessage::from_value(m).map_err(|e| format!("messages[{i}]: {e}"))
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err("\"messages\" must be an array".into()),
            },
        },
        "clear" => Entry::Clear,
        "notice" => Entry::Notice {
            text: text(obj, "text")?,
        },
        "catalog_notice" => Entry::CatalogNotice {
            text: text(obj, "text")?,
        },
        "session" => return Err("a second \"session\" line".into()),
        other => {
            return Err(format!(
                "unknown entry type {} (written by a newer agentwire?)",
                quoted(other)
            ))
        }
    })
}
