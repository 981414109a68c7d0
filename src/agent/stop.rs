//! Hooks about the run itself, which the loop asks for like a tool call's
//! ([`Action::RunHooks`], call id [`RUN_HOOKS_ID`]):
//! - `Stop` (`SubagentStop` for a child) after the model's final answer and before the run is
//!   reported done. A hook that blocks (exit 2, `decision: "block"`) continues the same run:
//!   its reason becomes a new user message and the model is asked again; the run still ends
//!   with one `done`. At most [`AgentConfig::max_stop_continuations`] times per run, and never
//!   past the step limit; `continue: false` ends it as it stands. The next firing carries
//!   `stop_hook_active: true`, Claude Code's loop guard.
//! - `SessionStart` `compact` after an automatic compaction's summary: its context joins the
//!   conversation (a new user message, after the compacted prefix) before the next request
//!   of the same run.
//! - `SubagentStart` when a child's run starts: its context joins the child's conversation (a
//!   user message after the prompt) before its first request.
//!
//! A continuation is a user message and nothing more: the gate, the rules and the tools are
//! those of the run it continues.
//!
//! [`AgentConfig::max_stop_continuations`]: crate::agent::AgentConfig::max_stop_continuations

use super::turn::Phase;
use super::{Agent, HookRequest, Run, UiEvent};
use crate::agent::{Action, AgentError};
use crate::hooks::{hook_input, verdict, HookEvent, HookRun, HookSpec, HookVerdict};
use crate::model::ChatMessage;
use crate::time::Instant;
use serde_json::{json, Value};

/// The call id of an [`Action::RunHooks`] about the run itself rather than a tool call.
pub const RUN_HOOKS_ID: &str = "run";

/// Run hooks the loop waits for.
#[derive(Debug)]
pub(super) struct RunHooks {
    event: HookEvent,
    hooks: Vec<HookSpec>,
    /// What the runs decide: the end of the run, or what follows a compaction.
    after: After,
}

#[derive(Debug)]
enum After {
    /// `Stop` / `SubagentStop` on the final answer held here.
    Answer(String),
    /// `SessionStart` `compact` or `SubagentStart`: their context, then the next model request.
    Context,
}

/// What a `Stop` verdict does to a run that hooks continued `continued` times.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum StopDecision {
    /// The run ends with its answer.
    End,
    /// The run goes on with this reason as the model's next instruction.
    Continue(String),
    /// A hook asked to go on, which the run may not: why, for the user; the run ends.
    Refused(String),
}

/// Decides the end of a run: `continue: false` ends it whatever else a hook said; a block
/// continues it while `continued` is under `max` and a model step is left.
pub(super) fn decide(
    verdict: &HookVerdict,
    continued: u32,
    max: u32,
    step_left: bool,
) -> StopDecision {
    if verdict.stop.is_some() {
        return StopDecision::End;
    }
    let Some(reason) = &verdict.block else {
        return StopDecision::End;
    };
    if continued >= max {
        StopDecision::Refused(format!(
            "hooks already continued this run {max} time(s), the most one run may; it ends \
             with its answer (asked: {reason})"
        ))
    } else if !step_left {
        StopDecision::Refused(format!(
            "the run reached its step limit, so it ends with its answer (asked: {reason})"
        ))
    } else {
        StopDecision::Continue(reason.clone())
    }
}

impl Agent {
    /// Marks this agent as a child (`agent_id`, `agent_type`): its final answers fire
    /// `SubagentStop` (matched on `agent_type`) instead of `Stop`, and its compactions fire no
    /// `SessionStart` (session events belong to the main conversation).
    pub fn set_subagent(&mut self, agent_id: &str, agent_type: &str) {
        self.subagent = Some((agent_id.to_owned(), agent_type.to_owned()));
    }

    /// The model's final answer `answer` (already in the history): asks for the `Stop` hooks
    /// when any fires, else ends the run with it.
    pub(super) fn finish_answer(&mut self, answer: String) {
        let (event, matched, mut fields) = match &self.subagent {
            Some((id, kind)) => (
                HookEvent::SubagentStop,
                kind.as_str(),
                json!({"agent_id": id, "agent_type": kind}),
            ),
            None => (HookEvent::Stop, "", json!({})),
        };
        let hooks = self.hooks.matching(event, matched);
        let Some(run) = self.run.as_mut() else { return };
        if hooks.is_empty() {
            self.end_with_answer(answer);
            return;
        }
        fields["stop_hook_active"] = json!(run.continuations > 0);
        fields["last_assistant_message"] = json!(answer);
        let input = hook_input(&self.hook_context, event, fields);
        run.phase = Phase::RunHooks(RunHooks {
            event,
            hooks: hooks.clone(),
            after: After::Answer(answer),
        });
        self.out.actions.push_back(Action::RunHooks(HookRequest {
            call_id: RUN_HOOKS_ID.to_owned(),
            event,
            input,
            hooks,
        }));
    }

    /// After an automatic compaction's summary: asks for `SessionStart` `compact` hooks when
    /// any fires (the main agent only), else goes on with the next model request.
    pub(super) fn after_summary(&mut self, now: Instant) {
        match self.subagent {
            None => {
                let fields = json!({"source": "compact"});
                self.context_hooks(now, HookEvent::SessionStart, "compact", fields);
            }
            Some(_) => self.request_model(now),
        }
    }

    /// A run's first request: a child's run fires `SubagentStart` (matched on `agent_type`)
    /// first, whose context joins its conversation after the prompt; the main agent's goes
    /// straight to the model (its prompt hooks ran in the host before the run).
    pub(super) fn first_request(&mut self, now: Instant) {
        let Some((id, kind)) = &self.subagent else {
            self.request_model(now);
            return;
        };
        let kind = kind.clone();
        let fields = json!({"agent_id": id, "agent_type": kind});
        self.context_hooks(now, HookEvent::SubagentStart, &kind, fields);
    }

    /// Asks for the hooks of `event` matching `matched` when any fires, whose context becomes
    /// a user message before the next model request; else makes that request now.
    fn context_hooks(&mut self, now: Instant, event: HookEvent, matched: &str, fields: Value) {
        let hooks = self.hooks.matching(event, matched);
        let Some(run) = self.run.as_mut().filter(|_| !hooks.is_empty()) else {
            self.request_model(now);
            return;
        };
        let input = hook_input(&self.hook_context, event, fields);
        run.phase = Phase::RunHooks(RunHooks {
            event,
            hooks: hooks.clone(),
            after: After::Context,
        });
        self.out.actions.push_back(Action::RunHooks(HookRequest {
            call_id: RUN_HOOKS_ID.to_owned(),
            event,
            input,
            hooks,
        }));
    }

    /// The runs of the run's own hooks (see [`Agent::handle_hook_runs`]); `Err` (nothing
    /// changes) for another id or event.
    pub(super) fn handle_run_hook_runs(
        &mut self,
        now: Instant,
        call_id: &str,
        event: HookEvent,
        runs: Vec<HookRun>,
    ) -> Result<(), AgentError> {
        let not_waiting = || AgentError::NotAwaitingHooks(call_id.to_owned());
        let Some(run) = self.run.as_mut() else {
            return Err(not_waiting());
        };
        match &run.phase {
            Phase::RunHooks(waiting) if call_id == RUN_HOOKS_ID && waiting.event == event => {}
            _ => return Err(not_waiting()),
        }
        let Phase::RunHooks(waiting) = std::mem::replace(&mut run.phase, Phase::AwaitingModel)
        else {
            return Err(not_waiting());
        };
        let (continued, steps) = (run.continuations, run.steps);
        let verdict = verdict(event, &waiting.hooks, &runs);
        self.hook_notices(event, &verdict.notices);
        match waiting.after {
            After::Context => {
                if !verdict.context.is_empty() {
                    let content = hook_context_message(&verdict.context);
                    self.push_message(ChatMessage::User { content }, None);
                }
                self.request_model(now);
            }
            After::Answer(answer) => {
                let max = self.config.max_stop_continuations;
                let step_left = steps < self.config.max_steps;
                match decide(&verdict, continued, max, step_left) {
                    StopDecision::Continue(reason) => {
                        if let Some(run) = self.run.as_mut() {
                            run.continuations = continued + 1;
                        }
                        let message = format!(
                            "a {} hook continued the run ({} of at most {max}): {reason}",
                            event.as_str(),
                            continued + 1
                        );
                        self.hook_notices(event, &[message]);
                        let content = format!("{} hook feedback:\n{reason}", event.as_str());
                        self.push_message(ChatMessage::User { content }, None);
                        self.request_model(now);
                    }
                    StopDecision::Refused(why) => {
                        self.hook_notices(event, &[why]);
                        self.end_with_answer(answer);
                    }
                    StopDecision::End => {
                        if let Some(reason) = verdict.stop {
                            self.hook_notices(event, &[format!("stopped by a hook: {reason}")]);
                        }
                        self.end_with_answer(answer);
                    }
                }
            }
        }
        Ok(())
    }

    fn hook_notices(&mut self, event: HookEvent, messages: &[String]) {
        for message in messages {
            self.out.events.push_back(UiEvent::HookNotice {
                event: event.as_str().to_owned(),
                message: message.clone(),
            });
        }
    }

    /// Ends the run with its final `answer` (one `done` event, whatever hooks did before).
    fn end_with_answer(&mut self, answer: String) {
        let Some(Run { steps, usage, .. }) = self.run.as_ref() else {
            return;
        };
        let (steps, usage) = (*steps, *usage);
        let context = Some(self.context_report());
        self.end_run(UiEvent::Done {
            answer,
            steps,
            usage,
            context,
        });
    }
}

/// Hook context as one user message: each note in a `<hook-context>` block, as the driver
/// puts session hooks' context ahead of a prompt.
fn hook_context_message(notes: &[String]) -> String {
    let blocks: Vec<String> = notes
        .iter()
        .map(|note| format!("<hook-context>\n{note}\n</hook-context>"))
        .collect();
    blocks.join("\n\n")
}
