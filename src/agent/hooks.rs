//! The agent's hook points for tool calls: `PreToolUse` before the gate, `PermissionRequest`
//! before a question, `PostToolUse` / `PostToolUseFailure` after a result.
//!
//! The loop only asks the host to run hooks ([`Action::RunHooks`]) and reads what they said;
//! what a verdict may do is decided by [`crate::hooks::gate`] in `call.rs`: a hook can refuse
//! or ask, and its allow skips only a question the tool's risk would ask. A rewrite
//! (`updatedInput`) replaces what runs and is gated again as a new call (rules, risk, the
//! repeated-call limit); context goes into the call's result, never into the prompt prefix.

use super::turn::{CallState, PendingCall, Phase};
use super::{canonical_json, Agent, Outbox, Run, UiEvent};
use crate::agent::{Action, AgentError};
use crate::audit::Outcome;
use crate::hooks::{
    hook_input, tool_fields, verdict, HookContext, HookEvent, HookRun, HookSet, HookSpec,
    HookVerdict, Permission,
};
use crate::time::Instant;
use serde_json::{json, Value};

/// Hooks for the host to run, all at once, each under its own timeout.
#[derive(Clone, Debug, PartialEq)]
pub struct HookRequest {
    /// The tool call the hooks are about, or [`crate::agent::RUN_HOOKS_ID`] for hooks about the
    /// run itself (`Stop`, `SubagentStop`, `SessionStart` after a compaction); answer with it.
    pub call_id: String,
    /// The event.
    pub event: HookEvent,
    /// The JSON every hook gets (stdin of a command, body of a POST).
    pub input: Value,
    /// The hooks to run; report one [`HookRun`] per hook, in this order.
    pub hooks: Vec<HookSpec>,
}

/// What the hooks said about one call so far.
#[derive(Clone, Debug, Default)]
pub(super) struct CallHooks {
    /// `PreToolUse` was heard (or had no hook).
    pub(super) pre_heard: bool,
    /// `PermissionRequest` was heard.
    pub(super) permission_heard: bool,
    /// The strictest permission the hooks gave.
    pub(super) permission: Option<(Permission, String)>,
    /// Text for the model, appended to the call's result.
    pub(super) notes: Vec<String>,
    /// The event whose runs the call waits for, and the hooks asked.
    pub(super) waiting: Option<(HookEvent, Vec<HookSpec>)>,
    /// The state to return to when the runs come in.
    pub(super) resume: Option<CallState>,
}

impl CallHooks {
    /// Keeps the stricter of the current permission and `next`.
    fn tighten(&mut self, next: Option<(Permission, String)>) {
        if let Some((permission, reason)) = next {
            match &self.permission {
                Some((current, _)) if *current >= permission => {}
                _ => self.permission = Some((permission, reason)),
            }
        }
    }
}

impl Agent {
    /// Sets the session's hooks and the context every hook input carries; takes effect for
    /// calls not yet taken up.
    pub fn set_hooks(&mut self, hooks: HookSet, context: HookContext) {
        self.hooks = hooks;
        self.hook_context = context;
    }

    /// The session's hooks.
    pub fn hooks(&self) -> &HookSet {
        &self.hooks
    }

    /// The context every hook input carries.
    pub fn hook_context(&self) -> &HookContext {
        &self.hook_context
    }

    /// Takes the runs of an [`Action::RunHooks`], one per hook in the request's order.
    /// `Err` (nothing changes) when call `call_id` is not waiting for `event`'s hooks.
    pub fn handle_hook_runs(
        &mut self,
        now: Instant,
        call_id: &str,
        event: HookEvent,
        runs: Vec<HookRun>,
    ) -> Result<(), AgentError> {
        if let Some(Run {
            phase: Phase::RunHooks(_),
            ..
        }) = &self.run
        {
            return self.handle_run_hook_runs(now, call_id, event, runs);
        }
        let not_waiting = || AgentError::NotAwaitingHooks(call_id.to_owned());
        let Some(Run {
            phase: Phase::Tools(turn),
            seen_calls,
            ..
        }) = self.run.as_mut()
        else {
            return Err(not_waiting());
        };
        let index = turn
            .calls
            .iter()
            .position(|c| {
                c.call.id == call_id
                    && c.state == CallState::AwaitingHooks
                    && c.hooks.waiting.as_ref().is_some_and(|(e, _)| *e == event)
            })
            .ok_or_else(not_waiting)?;
        let pending = &mut turn.calls[index];
        let (_, hooks) = pending.hooks.waiting.take().ok_or_else(not_waiting)?;
        let resume = pending.hooks.resume.take().unwrap_or(CallState::Queued);
        let verdict = verdict(event, &hooks, &runs);
        for message in &verdict.notices {
            self.out.events.push_back(UiEvent::HookNotice {
                event: event.as_str().to_owned(),
                message: message.clone(),
            });
        }
        let stop = verdict.stop.clone();
        match event {
            HookEvent::PreToolUse | HookEvent::PermissionRequest => {
                if event == HookEvent::PreToolUse {
                    pending.hooks.pre_heard = true;
                } else {
                    pending.hooks.permission_heard = true;
                }
                pending.state = CallState::Queued;
                if let Some(key) = apply_gate_verdict(pending, verdict) {
                    let count = seen_calls.get_or_insert_with(key, || 0);
                    *count += 1;
                    let limit = self.config.max_identical_calls;
                    if limit > 0 && *count >= limit {
                        let content = format!(
                            "not run: a hook rewrote this call of {} into one already made \
                             {limit} times in this run",
                            pending.subject.name
                        );
                        let preview = self.config.preview_chars;
                        self.out
                            .answer(pending, now, (content, true), Outcome::Denied, preview);
                        if turn.next == index {
                            turn.next += 1;
                        }
                    }
                }
            }
            _ => {
                // After the result: the call is done whatever the hooks say; their block
                // reason and context reach the model with the result.
                pending.hooks.notes.extend(verdict.block.iter().cloned());
                pending.hooks.notes.extend(verdict.context.iter().cloned());
                pending.state = resume;
            }
        }
        if let Some(reason) = stop {
            self.abort_run(
                now,
                format!("stopped by a hook: {reason}"),
                "not run: a hook stopped the run",
                Outcome::Cancelled,
            );
            return Ok(());
        }
        self.pump(now);
        Ok(())
    }
}

/// Asks the host to run `event`'s hooks for `pending` when any fires; `true` when the call
/// now waits for them.
pub(super) fn request_hooks(
    (set, context, out): (&HookSet, &HookContext, &mut Outbox),
    pending: &mut PendingCall,
    event: HookEvent,
    extra: Value,
) -> bool {
    let hooks = set.matching(event, &pending.subject.name);
    if hooks.is_empty() {
        return false;
    }
    let mut fields = tool_fields(
        &pending.subject.name,
        &pending.subject.arguments,
        &pending.call.id,
    );
    if let (Value::Object(fields), Value::Object(extra)) = (&mut fields, extra) {
        fields.extend(extra);
    }
    let input = hook_input(context, event, fields);
    pending.hooks.waiting = Some((event, hooks.clone()));
    pending.hooks.resume = Some(pending.state);
    pending.state = CallState::AwaitingHooks;
    out.actions.push_back(Action::RunHooks(HookRequest {
        call_id: pending.call.id.clone(),
        event,
        input,
        hooks,
    }));
    true
}

/// Applies a `PreToolUse` / `PermissionRequest` verdict to the call: its permission tightens
/// what the call carries, a block refuses, its context becomes notes, and a rewrite replaces
/// what runs. Returns the rewritten call's repeated-call key, to be counted again.
fn apply_gate_verdict(pending: &mut PendingCall, verdict: HookVerdict) -> Option<String> {
    pending.hooks.tighten(verdict.permission);
    if let Some(reason) = verdict.block {
        pending.hooks.tighten(Some((Permission::Deny, reason)));
    }
    pending.hooks.notes.extend(verdict.context);
    let rewrite = verdict
        .updated_input
        .filter(|input| *input != pending.subject.arguments)?;
    pending.subject.arguments = rewrite;
    // A new call: an approval given to the old arguments does not carry over.
    pending.approved = false;
    Some(format!(
        "{}\u{0}{}",
        pending.subject.name,
        canonical_json(&pending.subject.arguments)
    ))
}

/// The `tool_response` fields of a `PostToolUse` / `PostToolUseFailure` input.
pub(super) fn response_fields(content: &str, is_error: bool) -> (HookEvent, Value) {
    if is_error {
        (HookEvent::PostToolUseFailure, json!({"error": content}))
    } else {
        (
            HookEvent::PostToolUse,
            json!({"tool_response": {"content": content}}),
        )
    }
}
