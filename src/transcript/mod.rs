//! Transcripts: a conversation as an append-only, versioned sequence of entries.
//!
//! Every home keeps a conversation the same way: native sessions write one entry per JSONL line,
//! the npm package hands entries to a pluggable store. The agent emits an [`Entry`] each time its
//! history changes ([`crate::agent::Agent::poll_transcript`]); [`Transcript::history`] rebuilds
//! the exact history from them, so the model requests after a resume are byte-identical to the
//! ones before it. Entries that change nothing in the history (usage, approvals, notices) are
//! kept for the record. An entry kind this version does not know is an error naming the line,
//! never skipped: a transcript from a newer version is not half-loaded.

mod entry;
mod jsonl;
mod rebuild;
mod secrets;

pub use entry::{CompactionMode, Entry};
pub use jsonl::{entry_from_line, parse_jsonl, ParseError, Parsed};
pub use rebuild::{close_dangling_calls, pending_calls};
pub use secrets::{hide_secrets, secret_values, stored_line, MIN_SECRET_CHARS};

use crate::model::ChatMessage;

/// Version of the transcript format written by this build (the `session` header's `version`).
pub const TRANSCRIPT_VERSION: u64 = 1;

/// A conversation's entries, oldest first, under a session id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transcript {
    /// The session id (chosen by the host; names the file or the storage key).
    pub id: String,
    entries: Vec<Entry>,
}

impl Transcript {
    /// An empty transcript for session `id`.
    pub fn new(id: impl Into<String>) -> Self {
        Transcript {
            id: id.into(),
            entries: Vec::new(),
        }
    }

    /// Appends one entry (entries are never changed or removed).
    pub fn append(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The agent history these entries build, exactly as it was when the last one was made.
    pub fn history(&self) -> Vec<ChatMessage> {
        rebuild::history(&self.entries)
    }

    /// The header line, then one line per entry: the JSONL a native session file holds.
    pub fn to_jsonl(&self) -> String {
        let mut out = jsonl::header_line(&self.id);
        for entry in &self.entries {
            out.push_str(&entry.to_line());
        }
        out
    }
}

#[cfg(test)]
mod tests;
