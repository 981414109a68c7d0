//! Audit records: one per tool call, with secrets redacted.
//!
//! The agent loop (and direct calls through it) produce one [`AuditRecord`] per tool call,
//! whatever happened to it: ran, failed, timed out, was cancelled, or was denied. Hosts drain them
//! and write one JSON line each ([`AuditRecord::to_json_line`]).

mod redact;

pub use redact::{
    is_sensitive_key, redact_text, redact_value, summarize_arguments, MAX_SUMMARY_CHARS, REDACTED,
};

use crate::json::to_text;
use crate::registry::char_prefix;
use crate::time::Instant;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::time::Duration;

/// Longest error message kept in a record, in characters.
pub const MAX_ERROR_CHARS: usize = 500;

/// Default number of undrained records an [`AuditLog`] keeps.
pub const DEFAULT_AUDIT_CAPACITY: usize = 10_000;

/// How a tool call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran and returned a result.
    Ok,
    /// The tool failed, reported an error result, or did not exist.
    Error,
    /// A rule or the user refused the call.
    Denied,
    /// The call took longer than the tool's timeout.
    Timeout,
    /// The call was cancelled before it finished.
    Cancelled,
    /// The user stopped the run (Ctrl-C, SIGTERM, a stop button) before the call finished.
    Interrupted,
}

impl Outcome {
    /// `"ok"`, `"error"`, `"denied"`, `"timeout"`, `"cancelled"` or `"interrupted"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Denied => "denied",
            Outcome::Timeout => "timeout",
            Outcome::Cancelled => "cancelled",
            Outcome::Interrupted => "interrupted",
        }
    }
}

/// One tool call, as the audit log keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditRecord {
    /// When the call was decided on (denied calls) or started (everything else).
    pub time: Instant,
    /// The call's id.
    pub call_id: String,
    /// Model-facing tool name.
    pub tool: String,
    /// MCP server, for MCP tools.
    pub server: Option<String>,
    /// Redacted, compact JSON of the arguments, at most [`MAX_SUMMARY_CHARS`] characters.
    pub args_summary: String,
    /// How long the call ran (zero when it never ran).
    pub duration: Duration,
    /// How it ended.
    pub outcome: Outcome,
    /// Size of the output the tool produced, in characters, before any cut.
    pub output_chars: usize,
    /// Whether the output was cut before reaching the model.
    pub truncated: bool,
    /// The error message, redacted, when there is one.
    pub error: Option<String>,
    /// Where the tool comes from: `builtin`, `mcp`, `plugin` or `skill` (`None`: unknown tool).
    pub source: Option<&'static str>,
    /// The plugin that owns the tool, from the registry (never from what a plugin declares).
    pub plugin: Option<String>,
    /// Who made the call: `model`, `user`, `command:/name`, `plugin:<p>` or `agent:<name>`
    /// (a subagent's model).
    pub origin: String,
    /// For a subagent's call, the id of the parent's `Agent` call that started the child.
    pub parent_tool_use_id: Option<String>,
}

impl AuditRecord {
    /// A record with the arguments summarised and redacted; no output, no error, zero duration.
    pub fn new(
        time: Instant,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        server: Option<String>,
        arguments: &Value,
        outcome: Outcome,
    ) -> Self {
        AuditRecord {
            time,
            call_id: call_id.into(),
            tool: tool.into(),
            server,
            args_summary: summarize_arguments(arguments),
            duration: Duration::ZERO,
            outcome,
            output_chars: 0,
            truncated: false,
            error: None,
            source: None,
            plugin: None,
            origin: "model".into(),
            parent_tool_use_id: None,
        }
    }

    /// This record attributed to the tool's source and owning plugin.
    pub fn with_source(mut self, source: Option<&crate::registry::ToolSource>) -> Self {
        self.source = source.map(|s| s.label());
        self.plugin = source.and_then(|s| s.plugin()).map(str::to_owned);
        self
    }

    /// This record with another origin (`user`, `command:/name`, `plugin:<p>`).
    pub fn with_origin(mut self, origin: &str) -> Self {
        origin.clone_into(&mut self.origin);
        self
    }

    /// This record with an error message, redacted and capped at [`MAX_ERROR_CHARS`].
    pub fn with_error(mut self, message: &str) -> Self {
        let redacted = redact_text(message);
        let (head, cut) = char_prefix(&redacted, MAX_ERROR_CHARS);
        self.error = Some(if cut == 0 {
            redacted.clone()
        } else {
            format!("{head}…")
        });
        self
    }

    /// `{"time", "call_id", "tool", "server", "args", "duration_ms", "outcome", "output_chars",
    /// "truncated", "error", "source", "plugin", "origin"}`; absent values are `null`. Keys are snake_case like the
    /// UI event stream's, since both are host-facing logs rather than a peer's wire format.
    /// A subagent's record also has `"parent_tool_use_id"`.
    pub fn to_value(&self) -> Value {
        let mut v = json!({
            "time": self.time.as_millis(),
            "call_id": self.call_id,
            "tool": self.tool,
            "server": self.server,
            "args": self.args_summary,
            "duration_ms": u64::try_from(self.duration.as_millis()).unwrap_or(u64::MAX),
            "outcome": self.outcome.as_str(),
            "output_chars": self.output_chars,
            "truncated": self.truncated,
            "error": self.error,
            "source": self.source,
            "plugin": self.plugin,
            "origin": self.origin,
        });
        if let Some(parent) = &self.parent_tool_use_id {
            v["parent_tool_use_id"] = parent.as_str().into();
        }
        v
    }

    /// The record as one line of JSONL, without the trailing newline.
    pub fn to_json_line(&self) -> String {
        to_text(&self.to_value())
    }
}

/// Records waiting for the host, oldest first, bounded so an undrained log cannot grow forever.
#[derive(Clone, Debug)]
pub struct AuditLog {
    records: VecDeque<AuditRecord>,
    capacity: usize,
    dropped: u64,
}

impl Default for AuditLog {
    fn default() -> Self {
        AuditLog::with_capacity(DEFAULT_AUDIT_CAPACITY)
    }
}

impl AuditLog {
    /// A log keeping at most [`DEFAULT_AUDIT_CAPACITY`] undrained records.
    pub fn new() -> Self {
        Self::default()
    }

    /// A log keeping at most `capacity` undrained records (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        AuditLog {
            records: VecDeque::new(),
            capacity: capacity.max(1),
            dropped: 0,
        }
    }

    /// Adds a record; when full, the oldest is dropped and counted in [`AuditLog::dropped`].
    pub fn push(&mut self, record: AuditRecord) {
        if self.records.len() == self.capacity {
            self.records.pop_front();
            self.dropped += 1;
        }
        self.records.push_back(record);
    }

    /// The oldest undrained record.
    pub fn poll_record(&mut self) -> Option<AuditRecord> {
        self.records.pop_front()
    }

    /// Every undrained record, oldest first.
    pub fn drain(&mut self) -> Vec<AuditRecord> {
        self.records.drain(..).collect()
    }

    /// Number of undrained records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no records are waiting.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Records lost because the host did not drain in time.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(outcome: Outcome) -> AuditRecord {
        AuditRecord::new(
            Instant::from_millis(42),
            "c1",
            "mcp__gh__get_issue",
            Some("gh".into()),
            &json!({"n": 1, "token": "ghp_abcdefghijklmnop"}),
            outcome,
        )
    }

    #[test]
    fn record_serialises_with_redaction() {
        let mut r = record(Outcome::Error)
            .with_error("401: bad credentials for Bearer ghp_abcdefghijklmnop");
        r.duration = Duration::from_millis(7);
        r.output_chars = 12;
        assert_eq!(
            r.to_value(),
            json!({
                "time": 42, "call_id": "c1", "tool": "mcp__gh__get_issue", "server": "gh",
                "args": r#"{"n":1,"token":"[REDACTED]"}"#, "duration_ms": 7, "outcome": "error",
                "output_chars": 12, "truncated": false,
                "error": "401: bad credentials for Bearer [REDACTED]",
                "source": null, "plugin": null, "origin": "model",
            })
        );
        let line = r.to_json_line();
        assert!(!line.contains('\n') && !line.contains("ghp_abc"));
        let builtin = AuditRecord::new(
            Instant::default(),
            "c2",
            "shell",
            None,
            &json!({}),
            Outcome::Ok,
        );
        assert_eq!(builtin.to_value()["server"], Value::Null);
        assert_eq!(builtin.to_value()["error"], Value::Null);
    }

    #[test]
    fn long_errors_are_capped() {
        let r = record(Outcome::Error).with_error(&"x".repeat(2000));
        assert_eq!(r.error.unwrap().chars().count(), MAX_ERROR_CHARS + 1);
    }

    #[test]
    fn outcomes_have_wire_names() {
        let names: Vec<_> = [
            Outcome::Ok,
            Outcome::Error,
            Outcome::Denied,
            Outcome::Timeout,
            Outcome::Cancelled,
        ]
        .map(Outcome::as_str)
        .to_vec();
        assert_eq!(names, ["ok", "error", "denied", "timeout", "cancelled"]);
    }

    #[test]
    fn log_is_fifo_and_bounded() {
        let mut log = AuditLog::with_capacity(2);
        for outcome in [Outcome::Ok, Outcome::Denied, Outcome::Timeout] {
            log.push(record(outcome));
        }
        assert_eq!(log.dropped(), 1);
        assert_eq!(log.len(), 2);
        assert_eq!(log.poll_record().unwrap().outcome, Outcome::Denied);
        assert_eq!(log.drain()[0].outcome, Outcome::Timeout);
        assert!(log.is_empty() && log.poll_record().is_none());
    }
}
