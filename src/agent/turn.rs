//! One model turn's tool calls: gate, batch, run, collect, feed back.
//!
//! Calls are taken up in the model's order. Consecutive concurrency-safe calls that the gate
//! allows go out together as one batch; any other call goes out alone, and the next call is taken
//! up only after its result. Calls that never run (unknown tool, denied, bad arguments) are
//! answered on the spot and do not break a batch.

use super::call::{millis, preview, resolve, shape, Resolution, Target};
use super::hooks::{request_hooks, response_fields, CallHooks};
use super::{Agent, Outbox, Run, UiEvent};
use crate::agent::{
    Action, AgentError, Approval, ApprovalRequest, SearchRequest, ToolFailure, ToolInvocation,
};
use crate::audit::{AuditRecord, Outcome};
use crate::content::ToolOutput;
use crate::hooks::HookEvent;
use crate::model::{ChatMessage, ToolCall};
use crate::policy::Policy;
use crate::registry::ToolSource;
use crate::time::Instant;
use crate::tool_search::Step;
use serde_json::Value;
use std::time::Duration;

/// What the loop is waiting for.
#[derive(Debug)]
pub(super) enum Phase {
    /// A model response.
    AwaitingModel,
    /// Tool results or approvals for the model's last turn.
    Tools(Turn),
    /// The model's summary of the conversation (a compaction).
    Summarising(super::compaction::Summarising),
    /// The runs of hooks about the run itself (`Stop`, `SessionStart` after a compaction).
    RunHooks(super::stop::RunHooks),
}

/// The tool turn of `run`, when the run waits on tool results or approvals.
pub(super) fn tools_turn(run: &mut Option<Run>) -> Option<&mut Turn> {
    match run {
        Some(Run {
            phase: Phase::Tools(turn),
            ..
        }) => Some(turn),
        _ => None,
    }
}

/// The tool calls of one model turn.
#[derive(Debug)]
pub(super) struct Turn {
    pub(super) calls: Vec<PendingCall>,
    /// Index of the first call not yet taken up.
    pub(super) next: usize,
}

impl Turn {
    /// The calls as the model made them, each with its subject (what the gate sees: the target
    /// of a `call_tool`, else the call itself).
    pub(super) fn new(calls: Vec<ToolCall>, subjects: Vec<ToolCall>) -> Self {
        Turn {
            calls: calls
                .into_iter()
                .zip(subjects)
                .map(|(call, subject)| PendingCall {
                    call,
                    subject,
                    loads: Vec::new(),
                    searching: None,
                    target: None,
                    state: CallState::Queued,
                    approved: false,
                    announced: false,
                    result: None,
                    hooks: CallHooks::default(),
                })
                .collect(),
            next: 0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CallState {
    Queued,
    AwaitingApproval,
    /// The host runs hooks for it ([`Action::RunHooks`]).
    AwaitingHooks,
    Running(Instant),
    Finished,
}

#[derive(Debug)]
pub(super) struct PendingCall {
    /// The call as the model made it; its id and name go back into the history.
    pub(super) call: ToolCall,
    /// What gate, approvals, events, audit and the host see: a `call_tool`'s target, with its
    /// own arguments, or the call itself.
    pub(super) subject: ToolCall,
    /// Tools whose definitions this call's result gives the model.
    pub(super) loads: Vec<String>,
    /// A `tool_search` the host's searcher is ranking: query and limit.
    pub(super) searching: Option<(String, usize)>,
    pub(super) target: Option<Target>,
    pub(super) state: CallState,
    /// The user said yes (or always) to this very call.
    pub(super) approved: bool,
    /// `tool_start` was emitted.
    pub(super) announced: bool,
    /// Text for the model and whether it is an error.
    pub(super) result: Option<(String, bool)>,
    /// What its hooks said.
    pub(super) hooks: CallHooks,
}

impl Outbox {
    /// Records the user's `answer` to `pending`'s approval and carries it out: `Yes` and
    /// `Always` approve the call (`Always` the tool, for the rest of the session), `No` answers
    /// it as declined (`true`). One body for a live run's approvals and a resumed run's.
    pub(super) fn decide(
        &mut self,
        policy: &mut Policy,
        pending: &mut PendingCall,
        answer: Approval,
        now: Instant,
        preview_chars: usize,
    ) -> bool {
        self.transcribe(crate::transcript::Entry::Approval {
            call_id: pending.call.id.clone(),
            answer,
        });
        if answer == Approval::No {
            let content = format!(
                "denied: the user declined this call of {}; do not retry it unless asked",
                pending.subject.name
            );
            self.refuse(pending, now, content, Outcome::Denied, preview_chars);
            return true;
        }
        if answer == Approval::Always {
            policy.allow_always(&pending.subject.name);
        }
        pending.approved = true;
        false
    }

    pub(super) fn announce(&mut self, pending: &mut PendingCall) {
        if !pending.announced {
            pending.announced = true;
            self.events.push_back(UiEvent::ToolStart {
                id: pending.call.id.clone(),
                name: pending.subject.name.clone(),
                args: pending.subject.arguments.clone(),
            });
        }
    }

    /// Answers a call that will not run (refused, declined, abandoned).
    fn refuse(
        &mut self,
        pending: &mut PendingCall,
        now: Instant,
        content: String,
        outcome: Outcome,
        preview_chars: usize,
    ) {
        self.answer(pending, now, (content, true), outcome, preview_chars);
    }

    /// Answers a call on the spot with `(content, is_error)`.
    pub(super) fn answer(
        &mut self,
        pending: &mut PendingCall,
        now: Instant,
        (content, is_error): (String, bool),
        outcome: Outcome,
        preview_chars: usize,
    ) {
        let (time, duration) = match pending.state {
            CallState::Running(started) => (started, now - started),
            _ => (now, Duration::ZERO),
        };
        self.announce(pending);
        self.events.push_back(UiEvent::ToolEnd {
            id: pending.call.id.clone(),
            name: pending.subject.name.clone(),
            ok: !is_error,
            duration_ms: millis(duration),
            truncated: false,
            output: preview(&content, preview_chars),
        });
        let mut record = AuditRecord::new(
            time,
            &pending.call.id,
            &pending.subject.name,
            pending.target.as_ref().and_then(Target::server),
            &pending.subject.arguments,
            outcome,
        )
        .with_source(pending.target.as_ref().map(|t| &t.source));
        if is_error {
            record = record.with_error(&content);
        }
        record.duration = duration;
        self.audit.push(record);
        pending.result = Some((content, is_error));
        pending.state = CallState::Finished;
    }
}

impl Agent {
    /// Takes up queued calls until the loop must wait (for results or an approval), or asks the
    /// model again once every call of the turn has its result.
    pub(super) fn pump(&mut self, now: Instant) {
        let preview_chars = self.config.preview_chars;
        loop {
            let Some(turn) = tools_turn(&mut self.run) else {
                return;
            };
            let waiting = turn.calls.iter().any(|c| {
                matches!(
                    c.state,
                    CallState::Running(_) | CallState::AwaitingApproval | CallState::AwaitingHooks
                )
            });
            if waiting {
                return;
            }
            if turn.next == turn.calls.len() {
                self.close_turn();
                self.request_model(now);
                return;
            }
            let mut batch = Vec::new();
            while let Some(pending) = turn.calls.get_mut(turn.next) {
                // Answered already (a rejection given when a paused run resumed).
                if pending.state == CallState::Finished {
                    turn.next += 1;
                    continue;
                }
                let step = match self.tools.as_mut() {
                    Some(session) => session.step(&pending.call, &pending.subject, &self.registry),
                    None => Step::Gate,
                };
                match step {
                    Step::Gate => {}
                    Step::Answer {
                        content,
                        is_error,
                        loads,
                    } => {
                        pending.loads = loads;
                        let outcome = if is_error {
                            Outcome::Error
                        } else {
                            Outcome::Ok
                        };
                        self.out
                            .answer(pending, now, (content, is_error), outcome, preview_chars);
                        turn.next += 1;
                        continue;
                    }
                    Step::Search { query, limit } if self.host_search => {
                        if !batch.is_empty() {
                            break;
                        }
                        let catalog = self.tools.as_ref().map_or_else(Vec::new, |session| {
                            let catalog = session.catalog(&self.registry);
                            catalog.into_iter().map(|t| t.definition()).collect()
                        });
                        self.out.announce(pending);
                        pending.state = CallState::Running(now);
                        pending.searching = Some((query.clone(), limit));
                        self.out
                            .actions
                            .push_back(Action::SearchTools(SearchRequest {
                                call_id: pending.call.id.clone(),
                                query,
                                limit,
                                catalog,
                            }));
                        turn.next += 1;
                        return;
                    }
                    Step::Search { query, limit } => {
                        if let Some(session) = self.tools.as_mut() {
                            let found = session.search(&self.registry, &query, limit, None);
                            self.out
                                .finish_search(pending, now, query, found, preview_chars);
                        }
                        turn.next += 1;
                        continue;
                    }
                }
                let pre_hooks = !pending.hooks.pre_heard
                    && self.registry.get(&pending.subject.name).is_some()
                    && self
                        .hooks
                        .fires(HookEvent::PreToolUse, &pending.subject.name);
                if pre_hooks {
                    if !batch.is_empty() {
                        break;
                    }
                    pending.hooks.pre_heard = true;
                    let hooks = (&self.hooks, &self.hook_context, &mut self.out);
                    if request_hooks(hooks, pending, HookEvent::PreToolUse, Value::Null) {
                        return;
                    }
                }
                let resolution = resolve(
                    &self.registry,
                    &self.policy,
                    (&pending.subject.name, &pending.subject.arguments),
                    pending.hooks.permission.as_ref(),
                    pending.approved,
                );
                match resolution {
                    Resolution::Refuse {
                        content,
                        outcome,
                        target,
                    } => {
                        pending.target = target;
                        self.out
                            .refuse(pending, now, content, outcome, preview_chars);
                        turn.next += 1;
                    }
                    Resolution::Run(target) if target.source == ToolSource::Skill => {
                        let answer = self.skills.answer(
                            &mut self.policy,
                            &pending.subject.name,
                            &pending.subject.arguments,
                        );
                        pending.target = Some(target);
                        if let Some((content, is_error)) = answer {
                            let outcome = if is_error {
                                Outcome::Error
                            } else {
                                Outcome::Ok
                            };
                            self.out.answer(
                                pending,
                                now,
                                (content, is_error),
                                outcome,
                                preview_chars,
                            );
                            turn.next += 1;
                            continue;
                        }
                        self.out.announce(pending);
                        batch.push(turn.next);
                        turn.next += 1;
                        break;
                    }
                    Resolution::Run(target) => {
                        let safe = target.concurrency_safe;
                        if !safe && !batch.is_empty() {
                            break;
                        }
                        pending.target = Some(target);
                        self.out.announce(pending);
                        batch.push(turn.next);
                        turn.next += 1;
                        if !safe {
                            break;
                        }
                    }
                    Resolution::Ask(target) => {
                        if batch.is_empty() && !pending.hooks.permission_heard {
                            pending.hooks.permission_heard = true;
                            let hooks = (&self.hooks, &self.hook_context, &mut self.out);
                            if request_hooks(
                                hooks,
                                pending,
                                HookEvent::PermissionRequest,
                                Value::Null,
                            ) {
                                return;
                            }
                        }
                        if batch.is_empty() {
                            self.out.announce(pending);
                            pending.state = CallState::AwaitingApproval;
                            let request = ApprovalRequest {
                                call_id: pending.call.id.clone(),
                                name: pending.subject.name.clone(),
                                arguments: pending.subject.arguments.clone(),
                                risk: target.risk,
                                agent: None,
                            };
                            pending.target = Some(target);
                            self.out.events.push_back(UiEvent::ApprovalRequest {
                                id: request.call_id.clone(),
                                name: request.name.clone(),
                                args: request.arguments.clone(),
                                risk: request.risk,
                            });
                            self.out.actions.push_back(Action::RequestApproval(request));
                        }
                        break;
                    }
                }
            }
            if !batch.is_empty() {
                let invocations = batch
                    .into_iter()
                    .filter_map(|i| {
                        let pending = &mut turn.calls[i];
                        pending.state = CallState::Running(now);
                        let target = pending.target.as_ref()?;
                        Some(ToolInvocation {
                            call_id: pending.call.id.clone(),
                            name: pending.subject.name.clone(),
                            arguments: pending.subject.arguments.clone(),
                            target: target.source.clone(),
                            timeout: target.timeout,
                        })
                    })
                    .collect();
                self.out.actions.push_back(Action::CallTools(invocations));
                return;
            }
        }
    }

    /// Moves the turn's results into the history, in the model's call order.
    fn close_turn(&mut self) {
        let Some(run) = self.run.as_mut() else { return };
        let Phase::Tools(turn) = std::mem::replace(&mut run.phase, Phase::AwaitingModel) else {
            return;
        };
        for pending in turn.calls {
            // Definitions count as loaded once their result is in the history, so a call in
            // the same batch as the search that finds it does not run.
            if let Some(session) = self.tools.as_mut() {
                session.load(&pending.loads, &self.registry);
            }
            let (mut content, is_error) = pending
                .result
                .unwrap_or_else(|| ("not run".to_owned(), true));
            // A rule for the file this call read or wrote joins here, after the prefix.
            if !is_error {
                let subject = &pending.subject;
                if let Some(rules) = self.path_rules.for_call(&subject.name, &subject.arguments) {
                    content.push_str(&rules);
                }
            }
            // Hook context joins the conversation with the result, never the prefix.
            for note in &pending.hooks.notes {
                content.push_str("\n\n[hook] ");
                content.push_str(note);
            }
            self.push_message(
                ChatMessage::Tool {
                    tool_call_id: pending.call.id,
                    name: pending.call.name,
                    content,
                    is_error,
                },
                None,
            );
        }
    }

    /// Ends the run with `message`; unfinished calls get `tool_message` as their result and an
    /// audit record with `outcome`, so the history stays consistent.
    pub(super) fn abort_run(
        &mut self,
        now: Instant,
        message: String,
        tool_message: &str,
        outcome: Outcome,
    ) {
        let preview_chars = self.config.preview_chars;
        if let Some(turn) = tools_turn(&mut self.run) {
            for pending in &mut turn.calls {
                // A result waiting for its PostToolUse hooks stands.
                let has_result =
                    pending.state == CallState::AwaitingHooks && pending.result.is_some();
                if pending.state != CallState::Finished && !has_result {
                    self.out.refuse(
                        pending,
                        now,
                        tool_message.to_owned(),
                        outcome,
                        preview_chars,
                    );
                }
            }
            self.close_turn();
        }
        // Nothing queued for this run is worth doing any more.
        self.out.actions.clear();
        self.end_run(UiEvent::Error { message });
    }

    /// Takes the result of a call from an [`Action::CallTools`].
    pub fn handle_tool_result(
        &mut self,
        now: Instant,
        call_id: &str,
        result: Result<ToolOutput, ToolFailure>,
    ) -> Result<(), AgentError> {
        let unknown = || AgentError::UnknownCall(call_id.to_owned());
        let Some(Run {
            phase: Phase::Tools(turn),
            budget_left,
            ..
        }) = self.run.as_mut()
        else {
            return Err(unknown());
        };
        let pending = turn
            .calls
            .iter_mut()
            .find(|c| c.call.id == call_id && matches!(c.state, CallState::Running(_)))
            .ok_or_else(unknown)?;
        let (CallState::Running(started), Some(target)) = (pending.state, &pending.target) else {
            return Err(unknown());
        };
        let total = self.config.output_budget_chars;
        let shaped = shape(result, target, Some((budget_left, total)));
        let duration = now - started;
        self.out.events.push_back(UiEvent::ToolEnd {
            id: pending.call.id.clone(),
            name: pending.subject.name.clone(),
            ok: !shaped.is_error,
            duration_ms: millis(duration),
            truncated: shaped.truncated,
            output: preview(&shaped.content, self.config.preview_chars),
        });
        let mut record = AuditRecord::new(
            started,
            &pending.call.id,
            &pending.subject.name,
            target.server(),
            &pending.subject.arguments,
            shaped.outcome,
        )
        .with_source(Some(&target.source));
        if let Some(error) = &shaped.error {
            record = record.with_error(error);
        }
        record.duration = duration;
        record.output_chars = shaped.output_chars;
        record.truncated = shaped.truncated;
        self.out.audit.push(record);
        let (event_fields, is_error) = (shaped.content.clone(), shaped.is_error);
        pending.result = Some((shaped.content, shaped.is_error));
        pending.state = CallState::Finished;
        let (event, extra) = response_fields(&event_fields, is_error);
        let hooks = (&self.hooks, &self.hook_context, &mut self.out);
        if request_hooks(hooks, pending, event, extra) {
            return Ok(());
        }
        self.pump(now);
        Ok(())
    }

    /// Answers an [`Action::RequestApproval`]. `No` tells the model the user declined; `Always`
    /// also lets this tool run without asking for the rest of the session.
    pub fn handle_approval(
        &mut self,
        now: Instant,
        call_id: &str,
        approval: Approval,
    ) -> Result<(), AgentError> {
        let not_waiting = || AgentError::NotAwaitingApproval(call_id.to_owned());
        let Some(turn) = tools_turn(&mut self.run) else {
            return Err(not_waiting());
        };
        let pending = turn
            .calls
            .get_mut(turn.next)
            .filter(|p| p.call.id == call_id && p.state == CallState::AwaitingApproval)
            .ok_or_else(not_waiting)?;
        let preview_chars = self.config.preview_chars;
        if self
            .out
            .decide(&mut self.policy, pending, approval, now, preview_chars)
        {
            turn.next += 1;
        } else {
            pending.state = CallState::Queued;
        }
        self.pump(now);
        Ok(())
    }
}
