//! From entries to the agent's history, and the checks that keep a loaded history well formed.

use super::entry::Entry;
use crate::json::quoted;
use crate::model::{ChatMessage, ToolCall};
use crate::vec_map::VecSet;

/// The history the entries build: messages appended in order, a compaction replacing all
/// before it, a clear emptying it.
pub(super) fn history(entries: &[Entry]) -> Vec<ChatMessage> {
    let mut history = Vec::new();
    for entry in entries {
        match entry {
            Entry::User { content } => history.push(ChatMessage::User {
                content: content.clone(),
            }),
            Entry::Assistant {
                content,
                tool_calls,
                ..
            } => history.push(ChatMessage::Assistant {
                content: content.clone(),
                tool_calls: tool_calls.clone(),
            }),
            Entry::ToolResult {
                call_id,
                name,
                content,
                is_error,
            } => history.push(ChatMessage::Tool {
                tool_call_id: call_id.clone(),
                name: name.clone(),
                content: content.clone(),
                is_error: *is_error,
            }),
            Entry::Compaction { messages, .. } => history.clone_from(messages),
            Entry::Clear => history.clear(),
            Entry::CatalogNotice { text } => match history.last_mut() {
                Some(ChatMessage::User { content }) | Some(ChatMessage::Tool { content, .. }) => {
                    content.push_str("\n\n");
                    content.push_str(text);
                }
                _ => {}
            },
            Entry::Approval { .. } | Entry::Command { .. } | Entry::Notice { .. } => {}
        }
    }
    history
}

/// The tool calls of the last model step that have no result yet (a run stopped mid-turn, or
/// paused for approval), in the model's order.
pub fn pending_calls(history: &[ChatMessage]) -> Vec<ToolCall> {
    // Plain loops: the iterator adapters collecting into `Vec`s compile to generic code of
    // their own in the npm runtime, where this runs before every run and resume.
    let mut pending = Vec::new();
    let mut at = history.len();
    while at > 0 {
        at -= 1;
        if let ChatMessage::Assistant { tool_calls, .. } = &history[at] {
            for call in tool_calls {
                let answered = history[at + 1..].iter().any(|m| {
                    matches!(m, ChatMessage::Tool { tool_call_id, .. } if *tool_call_id == call.id)
                });
                if !answered {
                    pending.push(call.clone());
                }
            }
            break;
        }
    }
    pending
}

/// Answers every pending call of the last step with an error result saying why (`reason`), so
/// the next model request is well formed: every tool call has its result.
pub fn close_dangling_calls(history: &mut Vec<ChatMessage>, reason: &str) -> usize {
    let pending = pending_calls(history);
    if pending.is_empty() {
        return 0;
    }
    // Results go right after the step's other results, before any later user message.
    let at = history
        .iter()
        .rposition(|m| matches!(m, ChatMessage::Assistant { .. }))
        .map_or(history.len(), |a| {
            a + 1
                + history[a + 1..]
                    .iter()
                    .take_while(|m| matches!(m, ChatMessage::Tool { .. }))
                    .count()
        });
    let results: Vec<ChatMessage> = pending
        .iter()
        .map(|call| ChatMessage::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: reason.to_owned(),
            is_error: true,
        })
        .collect();
    let n = results.len();
    history.splice(at..at, results);
    n
}

/// What a well-formed sequence of entries looks like, checked line by line while loading: a
/// tool result answers a call of the latest model step, once; call ids are unique.
#[derive(Debug, Default)]
pub(super) struct Check {
    /// Calls of the latest model step still without a result.
    open: Vec<String>,
    /// Every call id of the conversation since the last clear, but the newest few...
    seen: VecSet<String>,
    /// ...which are here, unsorted, until there are enough to merge in one sort.
    recent: Vec<String>,
}

/// Ids kept unsorted before a merge into [`Check::seen`].
const RECENT: usize = 64;

impl Check {
    fn known(&self, id: &str) -> bool {
        self.seen.contains(id) || self.recent.iter().any(|r| r == id)
    }

    fn remember(&mut self, id: &str) {
        self.recent.push(id.to_owned());
        if self.recent.len() >= RECENT {
            self.seen.extend_bulk(self.recent.drain(..));
        }
    }
}

impl Check {
    pub(super) fn entry(&mut self, entry: &Entry) -> Result<(), String> {
        match entry {
            Entry::User { .. } | Entry::Assistant { .. } if !self.open.is_empty() => {
                return Err(format!(
                    "a {} entry while tool call {} still has no result",
                    entry.kind(),
                    quoted(&self.open[0])
                ));
            }
            Entry::User { .. } => {}
            Entry::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    if self.known(&call.id) {
                        return Err(format!("tool call id {} is used twice", quoted(&call.id)));
                    }
                    self.remember(&call.id);
                    self.open.push(call.id.clone());
                }
            }
            Entry::ToolResult { call_id, .. } => {
                let Some(at) = self.open.iter().position(|id| id == call_id) else {
                    return Err(format!(
                        "a tool result for {}, which the latest model step did not call or \
                         which already has a result",
                        quoted(call_id)
                    ));
                };
                self.open.remove(at);
            }
            Entry::Compaction { messages, .. } => {
                *self = Check::default();
                for message in messages {
                    if let ChatMessage::Assistant { tool_calls, .. } = message {
                        self.open.clear();
                        for call in tool_calls {
                            self.remember(&call.id);
                            self.open.push(call.id.clone());
                        }
                    } else if let ChatMessage::Tool { tool_call_id, .. } = message {
                        self.open.retain(|id| id != tool_call_id);
                    }
                }
            }
            Entry::Clear => *self = Check::default(),
            Entry::CatalogNotice { .. } => {}
            Entry::Approval { .. } | Entry::Command { .. } | Entry::Notice { .. } => {}
        }
        Ok(())
    }
}
