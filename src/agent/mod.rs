//! The agent loop: a sans-IO state machine from user message to final answer.
//!
//! [`Agent`] owns the [`Registry`] and the [`Policy`]. It never calls a model or a tool itself:
//! it emits [`Action`]s for the host to perform and takes the results back as inputs, with the
//! current time passed in. See [`Agent`] for the driving contract.

mod bridge;
mod call;
mod compaction;
mod direct;
mod events;
mod gated;
mod hooks;
mod instructions;
mod pause;
mod record;
mod skills;
mod stop;
mod turn;
mod types;

pub use events::UiEvent;
pub use gated::Gated;
pub use hooks::HookRequest;
pub use pause::{PendingCall, GIVEN_UP};
pub use stop::RUN_HOOKS_ID;
pub use types::{
    Action, AgentConfig, AgentError, Approval, ApprovalRequest, DirectCallError, DirectCallResult,
    SearchRequest, ToolFailure, ToolInvocation, DEFAULT_MAX_STOP_CONTINUATIONS,
    DEFAULT_SYSTEM_PROMPT,
};

use crate::audit::{AuditLog, AuditRecord, Outcome};
use crate::json::{quoted, to_text};
use crate::model::{ChatMessage, ModelRequest, ModelResponse, Usage};
use crate::policy::Policy;
use crate::registry::Registry;
use crate::time::Instant;
use crate::tool_search::ToolSession;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;
use std::collections::VecDeque;
use turn::{Phase, Turn};

/// Outputs waiting for the host.
#[derive(Debug, Default)]
struct Outbox {
    actions: VecDeque<Action>,
    events: VecDeque<UiEvent>,
    audit: AuditLog,
    /// History changes for the host's transcript.
    transcript: VecDeque<crate::transcript::Entry>,
    /// Whether history changes are recorded (off until a host asks, so nothing piles up).
    recording: bool,
}

/// State of the active run.
#[derive(Debug)]
struct Run {
    steps: u32,
    phase: Phase,
    /// How often each (tool, arguments) pair was called in this run.
    seen_calls: VecMap<String, u32>,
    /// Tool-output characters the run may still feed the model.
    budget_left: usize,
    /// Tokens of the steps whose model reported usage.
    usage: Option<Usage>,
    /// A context-length error was already answered with a compaction and a retry.
    overflow_retried: bool,
    /// How often `Stop` hooks continued this run.
    continuations: u32,
}

impl Run {
    /// A run at its start in `phase`, with `budget` characters of tool output to feed.
    fn new(phase: Phase, budget: usize) -> Run {
        Run {
            steps: 0,
            phase,
            seen_calls: VecMap::new(),
            budget_left: budget,
            usage: None,
            overflow_retried: false,
            continuations: 0,
        }
    }
}

/// The agent loop for one conversation.
///
/// # Driving it
///
/// Inputs: [`start_run`](Agent::start_run), [`handle_model_response`](Agent::handle_model_response),
/// [`handle_tool_result`](Agent::handle_tool_result), [`handle_approval`](Agent::handle_approval),
/// [`cancel_run`](Agent::cancel_run), [`interrupt_run`](Agent::interrupt_run). Outputs: [`poll_action`](Agent::poll_action),
/// [`poll_event`](Agent::poll_event), [`poll_audit`](Agent::poll_audit).
///
/// After every input, drain all three outputs until they return `None`. Perform each action:
/// - [`Action::CallModel`]: call the model, then `handle_model_response` with the answer or the
///   error text;
/// - [`Action::CallTools`]: run every invocation (concurrently when there are several: the loop
///   only batches concurrency-safe calls), enforce each one's timeout, and report each with
///   `handle_tool_result` in any order;
/// - [`Action::RequestApproval`]: ask the user, then `handle_approval`.
///
/// Events are for display only; the run is over when a `done` or `error` event comes out (also
/// visible as [`is_running`](Agent::is_running) turning false). Misuse (an input the loop is not
/// waiting for) returns an [`AgentError`] and changes nothing. After `cancel_run`, results for
/// calls still in flight are refused with [`AgentError::UnknownCall`]; hosts may ignore that.
///
/// A conversation keeps its history across runs: each run appends the user message, the model's
/// turns and the tool results, and the next run continues from there.
#[derive(Debug)]
pub struct Agent {
    registry: Registry,
    policy: Policy,
    config: AgentConfig,
    history: Vec<ChatMessage>,
    /// Call ids used in this conversation, so every id in the history is unique.
    used_ids: VecSet<String>,
    run: Option<Run>,
    out: Outbox,
    direct: direct::DirectCalls,
    /// The conversation's tool partition, made at its first model request.
    tools: Option<ToolSession>,
    /// Whether `tool_search` goes to the host's searcher ([`Action::SearchTools`]).
    host_search: bool,
    /// Skills and prompt commands, and what activating them did.
    skills: skills::SkillState,
    /// Context-window accounting and compaction state.
    context: compaction::ContextState,
    /// Rules with `paths:` globs waiting to join the conversation.
    path_rules: crate::instructions::PathRules,
    /// The session's hooks and what their inputs carry.
    hooks: crate::hooks::HookSet,
    hook_context: crate::hooks::HookContext,
    /// A child's `agent_id` and `agent_type`: its answer fires `SubagentStop`, not `Stop`.
    subagent: Option<(String, String)>,
}

impl Agent {
    /// An idle agent with an empty history.
    pub fn new(registry: Registry, policy: Policy, config: AgentConfig) -> Self {
        Agent {
            registry,
            policy,
            config,
            history: Vec::new(),
            used_ids: VecSet::new(),
            run: None,
            out: Outbox::default(),
            direct: direct::DirectCalls::default(),
            tools: None,
            host_search: false,
            skills: skills::SkillState::default(),
            context: compaction::ContextState::default(),
            path_rules: Default::default(),
            hooks: crate::hooks::HookSet::default(),
            hook_context: crate::hooks::HookContext::default(),
            subagent: None,
        }
    }

    /// The tool registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The tool registry, to load or remove servers; takes effect at the next model step.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// The permission policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The permission policy, to add rules; takes effect for calls not yet decided.
    pub fn policy_mut(&mut self) -> &mut Policy {
        &mut self.policy
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The configuration, to change; limits apply from the next run.
    pub fn config_mut(&mut self) -> &mut AgentConfig {
        &mut self.config
    }

    /// The conversation so far, oldest first.
    pub fn history(&self) -> &[ChatMessage] {
        &self.history
    }

    /// Starts a new conversation; refused while a run is active.
    pub fn clear_history(&mut self) -> Result<(), AgentError> {
        if self.run.is_some() {
            return Err(AgentError::RunActive);
        }
        if !self.history.is_empty() {
            self.record(crate::transcript::Entry::Clear);
        }
        self.history.clear();
        self.used_ids.clear();
        self.skills.forget_loaded();
        self.path_rules.forget_joined();
        // A new conversation partitions (and renders the catalog index) afresh.
        self.tools = None;
        Ok(())
    }

    /// Replaces the conversation with `messages` (a saved history, oldest first); refused
    /// while a run is active. Their tool call ids count as used, so new calls never reuse one.
    pub fn set_history(&mut self, messages: Vec<ChatMessage>) -> Result<(), AgentError> {
        self.clear_history()?;
        let ids = messages.iter().flat_map(|message| match message {
            ChatMessage::Assistant { tool_calls, .. } => tool_calls.as_slice(),
            _ => &[],
        });
        self.used_ids.extend_bulk(ids.map(|call| call.id.clone()));
        self.history = messages;
        Ok(())
    }

    /// Whether a run is active.
    pub fn is_running(&self) -> bool {
        self.run.is_some()
    }

    /// Starts a run with the user's message; the first model request follows as an action.
    /// Calls a paused run left open are answered first as not run ([`GIVEN_UP`]), so a
    /// new request after a pause is well formed in every host.
    pub fn start_run(&mut self, now: Instant, text: impl Into<String>) -> Result<(), AgentError> {
        if self.run.is_some() {
            return Err(AgentError::RunActive);
        }
        let _ = self.answer_paused(GIVEN_UP);
        self.policy.clear_run();
        skills::refresh_tools(&self.skills, &mut self.registry);
        self.push_message(
            ChatMessage::User {
                content: text.into(),
            },
            None,
        );
        self.run = Some(Run::new(
            Phase::AwaitingModel,
            self.config.output_budget_chars,
        ));
        self.first_request(now);
        Ok(())
    }

    /// Takes the model's answer to the last [`Action::CallModel`], or the error text of a
    /// failed call (which ends the run with an `error` event).
    pub fn handle_model_response(
        &mut self,
        now: Instant,
        response: Result<ModelResponse, String>,
    ) -> Result<(), AgentError> {
        let run = self.run.as_mut().ok_or(AgentError::NoRun)?;
        if let Phase::Summarising(_) = run.phase {
            let Phase::Summarising(summarising) =
                std::mem::replace(&mut run.phase, Phase::AwaitingModel)
            else {
                return Ok(());
            };
            self.handle_summary(now, summarising, response);
            return Ok(());
        }
        if !matches!(run.phase, Phase::AwaitingModel) {
            return Err(AgentError::NotAwaitingModel);
        }
        let response = match response {
            Ok(response) => {
                run.overflow_retried = false;
                response
            }
            Err(message) if self.retry_after_overflow(now, &message) => return Ok(()),
            Err(message) => {
                self.end_run(UiEvent::Error {
                    message: format!("model call failed: {message}"),
                });
                return Ok(());
            }
        };
        self.calibrate(response.usage.as_ref());
        let Some(run) = self.run.as_mut() else {
            return Ok(());
        };
        if let Some(usage) = &response.usage {
            Usage::accumulate(&mut run.usage, usage);
            self.out.events.push_back(UiEvent::StepEnd {
                step: run.steps,
                usage: *usage,
            });
        }
        if let Some(text) = response.text.as_ref().filter(|t| !t.trim().is_empty()) {
            self.out
                .events
                .push_back(UiEvent::ModelText { text: text.clone() });
        }
        if response.tool_calls.is_empty() {
            self.push_message(
                ChatMessage::Assistant {
                    content: response.text.clone(),
                    tool_calls: Vec::new(),
                },
                response.usage,
            );
            // `Stop` hooks hear the answer before the run is reported done: they may continue it.
            self.finish_answer(response.text.unwrap_or_default());
            return Ok(());
        }
        let mut calls = response.tool_calls;
        for call in &mut calls {
            call.id = unique_id(&mut self.used_ids, &call.id);
        }
        record::push(
            &mut self.out,
            &mut self.history,
            ChatMessage::Assistant {
                content: response.text,
                tool_calls: calls.clone(),
            },
            response.usage,
        );
        let subjects = subjects(self.tools.as_ref(), &self.registry, &calls);
        let limit = self.config.max_identical_calls;
        let mut stuck = None;
        // Keyed on what runs: a `call_tool` counts as a call of its target.
        for call in &subjects {
            let key = format!("{}\u{0}{}", call.name, canonical_json(&call.arguments));
            let count = run.seen_calls.get_or_insert_with(key, || 0);
            *count += 1;
            if limit > 0 && *count >= limit && stuck.is_none() {
                stuck = Some(call.name.clone());
            }
        }
        run.phase = Phase::Tools(Turn::new(calls, subjects));
        match stuck {
            Some(name) => self.abort_run(
                now,
                format!(
                    "stopped: the model called {name} with the same arguments {limit} times \
                     in this run, so it looks stuck in a loop"
                ),
                "not run: the run was stopped because the same call was repeated",
                Outcome::Cancelled,
            ),
            None => self.pump(now),
        }
        Ok(())
    }

    /// Stops the active run: calls in flight are recorded as cancelled and the run ends with an
    /// `error` event. The history stays consistent (every tool call gets a result).
    pub fn cancel_run(&mut self, now: Instant) -> Result<(), AgentError> {
        if self.run.is_none() {
            return Err(AgentError::NoRun);
        }
        self.abort_run(
            now,
            "run cancelled".to_owned(),
            "not run: the user cancelled the run",
            Outcome::Cancelled,
        );
        Ok(())
    }

    /// Stops the active run because the user interrupted it (Ctrl-C, SIGTERM, a stop button):
    /// like [`cancel_run`](Agent::cancel_run), but calls in flight or awaiting approval are
    /// audited as [`Outcome::Interrupted`], and the terminal `error` event starts with
    /// `interrupted`. `reason` says by what (`"Ctrl-C"`); `Err(NoRun)` when no run is active.
    pub fn interrupt_run(&mut self, now: Instant, reason: &str) -> Result<(), AgentError> {
        if self.run.is_none() {
            return Err(AgentError::NoRun);
        }
        self.abort_run(
            now,
            format!("interrupted: {reason} stopped the run"),
            &format!("not finished: {reason} interrupted the run"),
            Outcome::Interrupted,
        );
        Ok(())
    }

    /// The next thing the host must do.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.out.actions.pop_front()
    }

    /// The next UI event.
    pub fn poll_event(&mut self) -> Option<UiEvent> {
        self.out.events.pop_front()
    }

    /// The next audit record (one per tool call, including denied and direct calls).
    pub fn poll_audit(&mut self) -> Option<AuditRecord> {
        self.out.audit.poll_record()
    }

    /// Audit records lost because they were not drained (the log keeps the newest 10 000).
    pub fn audit_dropped(&self) -> u64 {
        self.out.audit.dropped()
    }

    /// Emits the next model request, or ends the run at the step limit.
    fn request_model(&mut self, now: Instant) {
        let Some(run) = self.run.as_mut() else { return };
        if run.steps >= self.config.max_steps {
            let steps = run.steps;
            self.end_run(UiEvent::Error {
                message: format!(
                    "stopped: the step limit of {steps} model calls was reached without a final \
                     answer"
                ),
            });
            return;
        }
        let tools = self.session_tools();
        if self.compact_before_request(now, &tools, false) {
            return;
        }
        let Some(run) = self.run.as_mut() else { return };
        run.steps += 1;
        run.phase = Phase::AwaitingModel;
        self.out
            .events
            .push_back(UiEvent::StepStart { step: run.steps });
        let request = ModelRequest {
            system: self.config.system_prompt.clone(),
            messages: self.history.clone(),
            tools,
        };
        self.context.last_request_bytes = crate::context::RequestBytes::of(&request).total();
        self.out.actions.push_back(Action::CallModel(request));
    }

    fn end_run(&mut self, event: UiEvent) {
        self.run = None;
        self.policy.clear_run();
        self.out.events.push_back(event);
    }
}

/// What each of `calls` runs: a `call_tool`'s target, or the call itself. One copy for a new
/// step and a resumed pause alike.
fn subjects(
    tools: Option<&ToolSession>,
    registry: &Registry,
    calls: &[crate::model::ToolCall],
) -> Vec<crate::model::ToolCall> {
    let mut subjects = Vec::with_capacity(calls.len());
    for call in calls {
        subjects.push(match tools {
            Some(session) => session.subject(call, registry),
            None => call.clone(),
        });
    }
    subjects
}

/// Compact JSON with object keys sorted: objects keep their key order (serde_json's
/// `preserve_order`), and the same arguments in another order are still the same call.
fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let fields: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", quoted(k), canonical_json(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", items.join(","))
        }
        other => to_text(other),
    }
}

/// `id`, or `id_2`, `id_3`... (or `call_…` for an empty id): unique within the conversation.
fn unique_id(used: &mut VecSet<String>, id: &str) -> String {
    let base = if id.is_empty() { "call" } else { id };
    let mut candidate = base.to_owned();
    let mut n = 1;
    while used.contains(&candidate) {
        n += 1;
        candidate = format!("{base}_{n}");
    }
    used.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests;
