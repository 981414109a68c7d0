//! The UI event stream: what a user interface shows while a run goes on.
//!
//! This stream is separate from the MCP transport: it goes from the runtime to whoever renders
//! the conversation (terminal, web page, JS callback), as `{"type": "...", ...}` objects.

use crate::context::ContextReport;
use crate::model::Usage;
use crate::registry::Risk;
use crate::transcript::CompactionMode;
use serde_json::{json, Value};

/// One thing worth showing the user.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum UiEvent {
    /// A model call begins; steps count from 1 within a run.
    StepStart {
        /// The step number.
        step: u32,
    },
    /// A model call answered and its backend reported token usage (steps whose backend reports
    /// none have no `step_end`: nothing is invented).
    StepEnd {
        /// The step number.
        step: u32,
        /// Tokens of this model call.
        usage: Usage,
    },
    /// A user-typed `/name args` was expanded into the run's user message.
    CommandExpanded {
        /// The name as typed.
        name: String,
        /// The item's qualified name.
        qualified: String,
        /// `host`, `user`, `project` or `plugin:<p>`.
        source: String,
        /// Characters of the expanded message.
        chars: usize,
    },
    /// The model produced text (with or without tool calls).
    ModelText {
        /// The text.
        text: String,
    },
    /// The loop took up a tool call the model made. Every `tool_start` is followed by exactly
    /// one `tool_end`; calls abandoned when a run stops get both.
    ToolStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as the model gave them.
        args: Value,
    },
    /// A tool call ended: ran, failed, was denied or declined.
    ToolEnd {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Whether the call succeeded.
        ok: bool,
        /// How long it ran (zero when it never ran).
        duration_ms: u64,
        /// Whether the output was cut before reaching the model.
        truncated: bool,
        /// The start of what the model was given.
        output: String,
    },
    /// A running call's progress, as its MCP server reported it (`notifications/progress`,
    /// or a task's `statusMessage`): the latest at most every 250 ms per call, between the
    /// call's `tool_start` and `tool_end`.
    ToolProgress {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// The MCP server running it.
        server: Option<String>,
        /// Progress so far (for a task: milliseconds since it started).
        progress: f64,
        /// Total, if the server knows it.
        total: Option<f64>,
        /// The server's message (untrusted text, at most 200 characters), if any.
        message: Option<String>,
    },
    /// The user must approve a call (answer the matching [`crate::agent::Action::RequestApproval`]).
    ApprovalRequest {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        args: Value,
        /// The tool's risk.
        risk: Risk,
    },
    /// `tool_search` ran (also shown as the call's `tool_start`/`tool_end`).
    ToolSearch {
        /// The model's query.
        query: String,
        /// Names found, best first (empty: nothing matched).
        results: Vec<String>,
    },
    /// A hook said something for the user (a `systemMessage`, a non-blocking error).
    HookNotice {
        /// The event the hook ran on.
        event: String,
        /// What to show.
        message: String,
    },
    /// The run ended without an answer (model failure, step limit, repeated call, cancel).
    Error {
        /// What went wrong.
        message: String,
    },
    /// Something a subagent's run did: `event` as the child reported it, with the child's
    /// agent name and the id of the parent's `Agent` call that started it. Never terminal for
    /// the parent's run (a child's `done` is its parent's tool result).
    Subagent {
        /// The child's agent name (its `subagent_type`).
        agent: String,
        /// The id of the parent's `Agent` tool call.
        parent_tool_use_id: String,
        /// The child's event.
        event: Box<UiEvent>,
    },
    /// The run ended with a final answer.
    Done {
        /// The answer.
        answer: String,
        /// Model calls made in the run.
        steps: u32,
        /// Tokens of every step that reported usage, summed; `None` when none did.
        usage: Option<Usage>,
        /// What the conversation now takes of the context window (estimate).
        context: Option<ContextReport>,
    },
    /// The run stopped at an approval nobody here can give; it continues from its transcript
    /// with [`crate::agent::Agent::resume_paused`].
    Paused {
        /// The calls still to make, the one awaiting approval marked.
        pending: Vec<crate::agent::PendingCall>,
    },
    /// The conversation was compacted to fit the context window.
    Compacted {
        /// Stubbed old tool results, or summarised.
        mode: CompactionMode,
        /// Estimated tokens of the request before.
        tokens_before: u64,
        /// Estimated tokens after.
        tokens_after: u64,
    },
}

impl UiEvent {
    /// The `type` tag: `step_start`, `step_end`, `command_expanded`, `model_text`, `tool_start`,
    /// `tool_progress`, `tool_end`, `approval_request`, `tool_search`, `hook_notice`, `error` or
    /// `done` (a subagent's event: its own tag).
    pub fn kind(&self) -> &'static str {
        match self {
            UiEvent::StepStart { .. } => "step_start",
            UiEvent::StepEnd { .. } => "step_end",
            UiEvent::ModelText { .. } => "model_text",
            UiEvent::CommandExpanded { .. } => "command_expanded",
            UiEvent::ToolStart { .. } => "tool_start",
            UiEvent::ToolEnd { .. } => "tool_end",
            UiEvent::ToolProgress { .. } => "tool_progress",
            UiEvent::ApprovalRequest { .. } => "approval_request",
            UiEvent::ToolSearch { .. } => "tool_search",
            UiEvent::HookNotice { .. } => "hook_notice",
            UiEvent::Error { .. } => "error",
            UiEvent::Done { .. } => "done",
            UiEvent::Compacted { .. } => "compacted",
            UiEvent::Paused { .. } => "paused",
            UiEvent::Subagent { event, .. } => event.kind(),
        }
    }

    /// The event as JSON with a `type` tag and snake_case fields.
    pub fn to_value(&self) -> Value {
        let mut v = match self {
            UiEvent::StepStart { step } => json!({"step": step}),
            UiEvent::StepEnd { step, usage } => json!({"step": step, "usage": usage.to_value()}),
            UiEvent::ModelText { text } => json!({"text": text}),
            UiEvent::CommandExpanded {
                name,
                qualified,
                source,
                chars,
            } => json!({"name": name, "qualified": qualified, "source": source, "chars": chars}),
            UiEvent::ToolStart { id, name, args } => json!({"id": id, "name": name, "args": args}),
            UiEvent::ToolEnd {
                id,
                name,
                ok,
                duration_ms,
                truncated,
                output,
            } => json!({
                "id": id, "name": name, "ok": ok, "duration_ms": duration_ms,
                "truncated": truncated, "output": output,
            }),
            UiEvent::ToolProgress {
                id,
                name,
                server,
                progress,
                total,
                message,
            } => {
                let mut v = json!({"id": id, "name": name, "progress": progress});
                // Absent fields stay absent, as the server sent them.
                for (key, value) in [
                    ("server", server.as_deref().map(Value::from)),
                    ("total", total.map(Value::from)),
                    ("message", message.as_deref().map(Value::from)),
                ] {
                    if let Some(value) = value {
                        v[key] = value;
                    }
                }
                v
            }
            UiEvent::ApprovalRequest {
                id,
                name,
                args,
                risk,
            } => json!({"id": id, "name": name, "args": args, "risk": risk.as_str()}),
            UiEvent::ToolSearch { query, results } => json!({"query": query, "results": results}),
            UiEvent::HookNotice { event, message } => json!({"event": event, "message": message}),
            UiEvent::Error { message } => json!({"message": message}),
            UiEvent::Subagent {
                agent,
                parent_tool_use_id,
                event,
            } => {
                let mut v = event.to_value();
                v["agent"] = agent.as_str().into();
                v["parent_tool_use_id"] = parent_tool_use_id.as_str().into();
                return v;
            }
            UiEvent::Done {
                answer,
                steps,
                usage,
                context,
            } => {
                let mut v = json!({"answer": answer, "steps": steps});
                if let Some(usage) = usage {
                    v["usage"] = usage.to_value();
                }
                if let Some(context) = context {
                    v["context"] = context.to_value();
                }
                v
            }
            UiEvent::Paused { pending } => json!({
                "pending": pending.iter().map(|p| p.to_value()).collect::<Vec<_>>(),
            }),
            UiEvent::Compacted {
                mode,
                tokens_before,
                tokens_after,
            } => json!({"mode": mode.as_str(), "tokens_before": tokens_before,
                        "tokens_after": tokens_after}),
        };
        v["type"] = self.kind().into();
        v
    }

    /// Whether this event ends the run (`done`, `error` or `paused`).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            UiEvent::Done { .. } | UiEvent::Error { .. } | UiEvent::Paused { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_with_a_type_tag() {
        let cases = [
            (
                UiEvent::StepStart { step: 2 },
                json!({"type": "step_start", "step": 2}),
            ),
            (
                UiEvent::ToolEnd {
                    id: "c".into(),
                    name: "t".into(),
                    ok: false,
                    duration_ms: 5,
                    truncated: true,
                    output: "o".into(),
                },
                json!({"type": "tool_end", "id": "c", "name": "t", "ok": false,
                       "duration_ms": 5, "truncated": true, "output": "o"}),
            ),
            (
                UiEvent::ToolProgress {
                    id: "c".into(),
                    name: "mcp__s__t".into(),
                    server: Some("s".into()),
                    progress: 3.0,
                    total: Some(10.0),
                    message: Some("m".into()),
                },
                json!({"type": "tool_progress", "id": "c", "name": "mcp__s__t", "server": "s",
                       "progress": 3.0, "total": 10.0, "message": "m"}),
            ),
            (
                UiEvent::ToolProgress {
                    id: "c".into(),
                    name: "t".into(),
                    server: None,
                    progress: 0.5,
                    total: None,
                    message: None,
                },
                json!({"type": "tool_progress", "id": "c", "name": "t", "progress": 0.5}),
            ),
            (
                UiEvent::ApprovalRequest {
                    id: "c".into(),
                    name: "t".into(),
                    args: json!({"a": 1}),
                    risk: Risk::Write,
                },
                json!({"type": "approval_request", "id": "c", "name": "t", "args": {"a": 1},
                       "risk": "write"}),
            ),
            (
                UiEvent::ToolSearch {
                    query: "list issues".into(),
                    results: vec!["mcp__github__list_issues".into()],
                },
                json!({"type": "tool_search", "query": "list issues",
                       "results": ["mcp__github__list_issues"]}),
            ),
            (
                UiEvent::Done {
                    answer: "hi".into(),
                    steps: 1,
                    usage: None,
                    context: None,
                },
                json!({"type": "done", "answer": "hi", "steps": 1}),
            ),
            (
                UiEvent::Done {
                    answer: "hi".into(),
                    steps: 2,
                    usage: Some(Usage {
                        input_tokens: 30,
                        output_tokens: 4,
                        cache_read_tokens: Some(20),
                        cache_write_tokens: None,
                    }),
                    context: None,
                },
                json!({"type": "done", "answer": "hi", "steps": 2, "usage": {
                    "input_tokens": 30, "output_tokens": 4, "cache_read_tokens": 20}}),
            ),
            (
                UiEvent::StepEnd {
                    step: 1,
                    usage: Usage {
                        input_tokens: 10,
                        output_tokens: 2,
                        ..Usage::default()
                    },
                },
                json!({"type": "step_end", "step": 1, "usage": {
                    "input_tokens": 10, "output_tokens": 2}}),
            ),
        ];
        for (event, want) in cases {
            assert_eq!(event.to_value(), want);
        }
        assert!(UiEvent::Error {
            message: "x".into()
        }
        .is_terminal());
        assert!(!UiEvent::StepStart { step: 1 }.is_terminal());
        let child = UiEvent::Subagent {
            agent: "reviewer".into(),
            parent_tool_use_id: "call_7".into(),
            event: Box::new(UiEvent::Done {
                answer: "ok".into(),
                steps: 1,
                usage: None,
                context: None,
            }),
        };
        assert_eq!(
            child.to_value(),
            json!({"type": "done", "answer": "ok", "steps": 1, "agent": "reviewer",
                   "parent_tool_use_id": "call_7"})
        );
        assert!(
            !child.is_terminal(),
            "a child's done does not end the parent's run"
        );
    }
}
