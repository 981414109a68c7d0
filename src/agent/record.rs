//! The agent's transcript output: one [`Entry`] each time the history changes.

use super::{Agent, Outbox};
use crate::model::{ChatMessage, Usage};
use crate::transcript::Entry;

impl Agent {
    /// Appends `message` to the history and records it (with the step's `usage`) for the host.
    pub(super) fn push_message(&mut self, message: ChatMessage, usage: Option<Usage>) {
        push(&mut self.out, &mut self.history, message, usage);
    }

    /// Records an entry that does not change the history (approval, command, notice).
    pub(super) fn record(&mut self, entry: Entry) {
        self.out.transcribe(entry);
    }

    /// Records that the typed `/name` (the item `qualified`) was expanded into the user message
    /// that follows, for the transcript.
    pub fn record_command(&mut self, name: &str, qualified: &str) {
        self.record(Entry::Command {
            name: name.to_owned(),
            qualified: qualified.to_owned(),
        });
    }

    /// Turns transcript recording on or off (off by default): while on, every history change
    /// comes out of [`poll_transcript`](Agent::poll_transcript), which the host must drain.
    pub fn set_transcript_recording(&mut self, on: bool) {
        self.out.recording = on;
        if !on {
            self.out.transcript.clear();
        }
    }

    /// The next transcript entry: every history change, in order, for the host to persist
    /// (drain after every input, like events). Appending them to a
    /// [`crate::transcript::Transcript`] rebuilds this agent's history exactly.
    pub fn poll_transcript(&mut self) -> Option<Entry> {
        self.out.transcript.pop_front()
    }
}

/// [`Agent::push_message`] on the two fields it touches, for callers that hold the run.
pub(super) fn push(
    out: &mut Outbox,
    history: &mut Vec<ChatMessage>,
    message: ChatMessage,
    usage: Option<Usage>,
) {
    if out.recording {
        out.transcribe(Entry::from_message(&message, usage));
    }
    history.push(message);
}

impl Outbox {
    /// Queues `entry` for the host's transcript, when recording.
    pub(super) fn transcribe(&mut self, entry: Entry) {
        if self.recording {
            self.transcript.push_back(entry);
        }
    }
}
