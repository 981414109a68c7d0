//! Runs that pause for approval and resume elsewhere.
//!
//! Where nobody can answer an approval in the same process (a worker answering one HTTP
//! request, a CI job, `run --json` without a terminal), the host calls
//! [`Agent::pause_run`]: the results already made go into the history, the run ends with a
//! `paused` event naming the calls still open, and the transcript holds everything needed. An
//! agent rebuilt from that transcript, in this process or another, continues with
//! [`Agent::resume_paused`] and the user's decisions: approved calls run once, rejected ones are
//! reported to the model as declined, and the loop goes on exactly where it stopped.

use super::turn::{tools_turn, CallState, Phase, Turn};
use super::{Agent, Run, UiEvent};
use crate::agent::{AgentError, Approval};
use crate::model::ToolCall;
use crate::time::Instant;
use crate::transcript::pending_calls;
use serde_json::{json, Value};

/// The result each call of a paused run gets when a new request comes instead of a decision.
pub const GIVEN_UP: &str = "not run: a new request came before a decision on this call";

/// One call a paused run still has to make.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCall {
    /// The call id (for `--approve` / `--reject`).
    pub id: String,
    /// The tool (a `call_tool`'s target).
    pub name: String,
    /// Its arguments.
    pub arguments: Value,
    /// Whether the run stopped at this call's approval (later ones were not reached).
    pub awaiting_approval: bool,
}

impl PendingCall {
    /// `{"id", "name", "args", "awaiting_approval"}`.
    pub fn to_value(&self) -> Value {
        json!({"id": self.id, "name": self.name, "args": self.arguments,
               "awaiting_approval": self.awaiting_approval})
    }
}

impl Agent {
    /// Ends the run that waits for an approval as `paused`: finished results go into the
    /// history (and the transcript), the unanswered calls stay open for
    /// [`resume_paused`](Agent::resume_paused). `Err(NotAwaitingApproval)` when the run does not
    /// wait for one.
    pub fn pause_run(&mut self, _now: Instant) -> Result<Vec<PendingCall>, AgentError> {
        let waiting = tools_turn(&mut self.run).is_some_and(|turn| {
            turn.calls
                .iter()
                .any(|c| c.state == CallState::AwaitingApproval)
        });
        if !waiting {
            return Err(AgentError::NotAwaitingApproval(String::new()));
        }
        let Some(Run {
            phase: Phase::Tools(turn),
            ..
        }) = self.run.take()
        else {
            return Err(AgentError::NoRun);
        };
        let mut pending = Vec::new();
        // By reference, the turn dropped once at the end: moving fields out of each call
        // would compile drop code for the rest of it into every arm.
        for call in &turn.calls {
            match (call.state, &call.result) {
                (CallState::Finished, Some((content, is_error))) => self.push_message(
                    crate::model::ChatMessage::Tool {
                        tool_call_id: call.call.id.clone(),
                        name: call.call.name.clone(),
                        content: content.clone(),
                        is_error: *is_error,
                    },
                    None,
                ),
                (state, _) => pending.push(PendingCall {
                    id: call.call.id.clone(),
                    name: call.subject.name.clone(),
                    arguments: call.subject.arguments.clone(),
                    awaiting_approval: state == CallState::AwaitingApproval,
                }),
            }
        }
        drop(turn);
        self.policy.clear_run();
        self.out.actions.clear();
        self.out.events.push_back(UiEvent::Paused {
            pending: pending.clone(),
        });
        Ok(pending)
    }

    /// Gives up a paused run: each call still open gets an error result saying `reason` (in
    /// the transcript too), so a new request can follow and the conversation stays well formed.
    /// Returns how many calls it answered; refused while a run is active.
    pub fn answer_paused(&mut self, reason: &str) -> Result<usize, AgentError> {
        if self.run.is_some() {
            return Err(AgentError::RunActive);
        }
        let calls = pending_calls(&self.history);
        for call in &calls {
            let result = crate::model::ChatMessage::Tool {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: reason.to_owned(),
                is_error: true,
            };
            self.push_message(result, None);
        }
        Ok(calls.len())
    }

    /// The calls a paused conversation still has to make (empty when it is not paused).
    pub fn paused_calls(&self) -> Vec<ToolCall> {
        pending_calls(&self.history)
    }

    /// Continues a paused run with the user's `decisions` (call id, answer): approved calls
    /// run, rejected ones are answered as declined, calls without a decision go through the
    /// gate again (and may ask again). Refused while a run is active, when nothing is paused,
    /// or for an id that is not pending; nothing changes then.
    pub fn resume_paused(
        &mut self,
        now: Instant,
        decisions: &[(String, Approval)],
    ) -> Result<(), AgentError> {
        if self.run.is_some() {
            return Err(AgentError::RunActive);
        }
        let calls = pending_calls(&self.history);
        if calls.is_empty() {
            return Err(AgentError::NothingPaused);
        }
        if let Some((id, _)) = decisions
            .iter()
            .find(|(id, _)| !calls.iter().any(|c| &c.id == id))
        {
            return Err(AgentError::NotAwaitingApproval(id.clone()));
        }
        self.policy.clear_run();
        let subjects = super::subjects(self.tools.as_ref(), &self.registry, &calls);
        let mut turn = Turn::new(calls, subjects);
        let preview_chars = self.config.preview_chars;
        for pending in &mut turn.calls {
            let Some((_, answer)) = decisions.iter().find(|(id, _)| *id == pending.call.id) else {
                continue;
            };
            self.out
                .decide(&mut self.policy, pending, *answer, now, preview_chars);
        }
        self.run = Some(Run::new(
            Phase::Tools(turn),
            self.config.output_budget_chars,
        ));
        self.pump(now);
        Ok(())
    }
}
