//! One transcript entry and its JSON form (`{"type": …}`, snake_case fields).

use crate::agent::Approval;
use crate::audit::{redact_text, redact_value};
use crate::json::{put, put_str, to_text};
use crate::model::{ChatMessage, ToolCall, Usage};
use serde_json::{Map, Value};

/// How a compaction shrank the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionMode {
    /// Old tool results were replaced by stubs naming the tool and the call.
    Stub,
    /// The history before the latest request was replaced by the model's summary.
    Summary,
}

impl CompactionMode {
    /// `stub` or `summary`.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionMode::Stub => "stub",
            CompactionMode::Summary => "summary",
        }
    }
}

/// One thing that happened in a conversation.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Entry {
    /// The user's message (after any command expansion).
    User {
        /// The text sent to the model.
        content: String,
    },
    /// A model step: its text and tool calls, with the usage its backend reported.
    Assistant {
        /// Text, if any.
        content: Option<String>,
        /// Tool calls (ids already made unique by the loop).
        tool_calls: Vec<ToolCall>,
        /// Tokens of the step, when reported.
        usage: Option<Usage>,
    },
    /// The result of one tool call, as fed to the model.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// The tool name the model used.
        name: String,
        /// The result text.
        content: String,
        /// Whether the call failed, was denied or declined.
        is_error: bool,
    },
    /// The user's answer to an approval request (for the record; the result follows).
    Approval {
        /// The call.
        call_id: String,
        /// The answer.
        answer: Approval,
    },
    /// A typed `/name args` was expanded into the user message that follows.
    Command {
        /// The name as typed.
        name: String,
        /// The item's qualified name.
        qualified: String,
    },
    /// The history was compacted; `messages` is the whole history from here on.
    Compaction {
        /// Stubbing or summarising.
        mode: CompactionMode,
        /// Estimated tokens of the request before.
        tokens_before: u64,
        /// Estimated tokens of the request after.
        tokens_after: u64,
        /// The compacted history.
        messages: Vec<ChatMessage>,
    },
    /// The conversation was cleared (`/clear`): the history starts empty again.
    Clear,
    /// A tool-catalog notice appended to the newest message (user text or tool result) just
    /// before it was first sent.
    CatalogNotice {
        /// The notice, appended after a blank line.
        text: String,
    },
    /// Something worth keeping that the model did not see (a warning, a host note).
    Notice {
        /// The text.
        text: String,
    },
}

fn approval_str(answer: Approval) -> &'static str {
    match answer {
        Approval::Yes => "yes",
        Approval::No => "no",
        Approval::Always => "always",
    }
}

impl Entry {
    /// The `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::User { .. } => "user",
            Entry::Assistant { .. } => "assistant",
            Entry::ToolResult { .. } => "tool_result",
            Entry::Approval { .. } => "approval",
            Entry::Command { .. } => "command",
            Entry::Compaction { .. } => "compaction",
            Entry::Clear => "clear",
            Entry::Notice { .. } => "notice",
            Entry::CatalogNotice { .. } => "catalog_notice",
        }
    }

    /// The entry that records `message` joining the history.
    pub fn from_message(message: &ChatMessage, usage: Option<Usage>) -> Entry {
        match message {
            ChatMessage::User { content } => Entry::User {
                content: content.clone(),
            },
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => Entry::Assistant {
                content: content.clone(),
                tool_calls: tool_calls.clone(),
                usage,
            },
            ChatMessage::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => Entry::ToolResult {
                call_id: tool_call_id.clone(),
                name: name.clone(),
                content: content.clone(),
                is_error: *is_error,
            },
        }
    }

    /// The entry as JSON with its `type` tag.
    pub fn to_value(&self) -> Value {
        // Built field by field through `put` rather than `json!` (this runs in the npm runtime
        // for every entry). `type` first, so a reader of the file sees the kind at the
        // start of each line.
        let mut out = Map::new();
        put(&mut out, "type", self.kind().into());
        match self {
            Entry::User { content } => put_str(&mut out, "content", content),
            Entry::Assistant {
                content,
                tool_calls,
                usage,
            } => {
                put(&mut out, "content", content.as_deref().into());
                let mut calls = Vec::with_capacity(tool_calls.len());
                for call in tool_calls {
                    calls.push(call.to_value());
                }
                put(&mut out, "tool_calls", Value::Array(calls));
                if let Some(usage) = usage {
                    put(&mut out, "usage", usage.to_value());
                }
            }
            Entry::ToolResult {
                call_id,
                name,
                content,
                is_error,
            } => {
                put_str(&mut out, "call_id", call_id);
                put_str(&mut out, "name", name);
                put_str(&mut out, "content", content);
                put(&mut out, "is_error", (*is_error).into());
            }
            Entry::Approval { call_id, answer } => {
                put_str(&mut out, "call_id", call_id);
                put_str(&mut out, "answer", approval_str(*answer));
            }
            Entry::Command { name, qualified } => {
                put_str(&mut out, "name", name);
                put_str(&mut out, "qualified", qualified);
            }
            Entry::Compaction {
                mode,
                tokens_before,
                tokens_after,
                messages,
            } => {
                put_str(&mut out, "mode", mode.as_str());
                put(&mut out, "tokens_before", (*tokens_before).into());
                put(&mut out, "tokens_after", (*tokens_after).into());
                let mut list = Vec::with_capacity(messages.len());
                for message in messages {
                    list.push(message.to_value());
                }
                put(&mut out, "messages", Value::Array(list));
            }
            Entry::Clear => {}
            Entry::Notice { text } | Entry::CatalogNotice { text } => {
                put_str(&mut out, "text", text);
            }
        }
        Value::Object(out)
    }

    /// One JSONL line, newline included.
    pub fn to_line(&self) -> String {
        let mut line = to_text(&self.to_value());
        line.push('\n');
        line
    }

    /// The entry with secrets hidden in every text the user, the model or a tool wrote
    /// ([`crate::audit::redact_text`]); structure, ids and counts are kept.
    pub fn redacted(&self) -> Entry {
        let calls = |calls: &[ToolCall]| -> Vec<ToolCall> {
            calls
                .iter()
                .map(|c| ToolCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: redact_value(&c.arguments),
                })
                .collect()
        };
        let message = |m: &ChatMessage| match m {
            ChatMessage::User { content } => ChatMessage::User {
                content: redact_text(content),
            },
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => ChatMessage::Assistant {
                content: content.as_deref().map(redact_text),
                tool_calls: calls(tool_calls),
            },
            ChatMessage::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => ChatMessage::Tool {
                tool_call_id: tool_call_id.clone(),
                name: name.clone(),
                content: redact_text(content),
                is_error: *is_error,
            },
        };
        match self {
            Entry::User { content } => Entry::User {
                content: redact_text(content),
            },
            Entry::Assistant {
                content,
                tool_calls,
                usage,
            } => Entry::Assistant {
                content: content.as_deref().map(redact_text),
                tool_calls: calls(tool_calls),
                usage: *usage,
            },
            Entry::ToolResult {
                call_id,
                name,
                content,
                is_error,
            } => Entry::ToolResult {
                call_id: call_id.clone(),
                name: name.clone(),
                content: redact_text(content),
                is_error: *is_error,
            },
            Entry::Compaction {
                mode,
                tokens_before,
                tokens_after,
                messages,
            } => Entry::Compaction {
                mode: *mode,
                tokens_before: *tokens_before,
                tokens_after: *tokens_after,
                messages: messages.iter().map(message).collect(),
            },
            Entry::Notice { text } => Entry::Notice {
                text: redact_text(text),
            },
            other => other.clone(),
        }
    }
}
