//! Keeping the conversation inside the context window: automatic compaction before a model
//! request, `/compact`, the retry after a provider's context-length error, and the thrash guard.
//!
//! Order of remedies: stub old tool results (cheap, no model call); only when that does not
//! bring the request under three quarters of the threshold, ask the model for a summary with a request that extends the one it just saw. A
//! compaction that leaves the request over the threshold, or frees under a tenth of it, is a
//! miss; two misses in a row stop the run instead of compacting forever.

use super::turn::Phase;
use super::{Agent, Run, UiEvent};
use crate::agent::AgentError;
use crate::context::compact::{compacted_history, stub_tool_results, summary_message};
use crate::context::{
    is_context_length_error, messages_bytes, window_from_error, ContextReport, Estimator,
    RequestBytes,
};
use crate::model::{ChatMessage, ModelRequest, ModelResponse, ToolDefinition, Usage};
use crate::time::Instant;
use crate::transcript::{CompactionMode, Entry};

/// What the agent knows about the window's use.
#[derive(Debug, Default)]
pub(super) struct ContextState {
    pub(super) estimator: Estimator,
    /// Bytes of the last request sent, to calibrate against its reported usage.
    pub(super) last_request_bytes: usize,
    /// Compactions in a row that freed too little.
    misses: u8,
    /// Summaries adopted in this session (after a manual one the driver fires `SessionStart`
    /// `compact`; after an automatic one the agent asks for it, see `stop.rs`).
    summaries: u64,
    /// Old tool results were stubbed since the driver last asked (it fires `PreCompact`).
    stubbed: bool,
}

/// A summary request in flight.
#[derive(Debug)]
pub(super) struct Summarising {
    /// Estimated tokens of the request that triggered it.
    before: u64,
    /// `/compact` (the run ends after it) rather than automatic.
    manual: bool,
}

impl Agent {
    /// Whether the model request the agent asks for now is an automatic compaction's summary
    /// request (the driver fires `PreCompact` `auto` before it goes out; a manual one's hook
    /// fired when [`compact`](Agent::compact) was accepted).
    pub fn is_compacting(&self) -> bool {
        matches!(
            self.run.as_ref().map(|run| &run.phase),
            Some(Phase::Summarising(Summarising { manual: false, .. }))
        )
    }

    /// Whether old tool results were stubbed (a compaction without a summary request) since
    /// the last call; the driver fires `PreCompact` `auto` for it before the next request.
    pub fn poll_stub_compaction(&mut self) -> bool {
        std::mem::take(&mut self.context.stubbed)
    }

    /// How many summaries replaced the conversation in this session (manual or automatic).
    pub fn summary_compactions(&self) -> u64 {
        self.context.summaries
    }

    fn request_of(&self, tools: &[ToolDefinition], messages: &[ChatMessage]) -> RequestBytes {
        RequestBytes::of_parts(&self.config.system_prompt, tools, messages)
    }

    fn estimate(&self, tools: &[ToolDefinition], messages: &[ChatMessage]) -> u64 {
        self.context
            .estimator
            .tokens(self.request_of(tools, messages).total())
    }

    /// What the next request would take of the window, part by part.
    pub fn context_report(&self) -> ContextReport {
        let tools = self.current_tools();
        ContextReport::new(
            self.request_of(&tools, &self.history),
            &self.context.estimator,
            &self.config.context,
        )
    }

    /// The `tools` of the conversation's requests (frozen after its first), without side effects.
    fn current_tools(&self) -> Vec<ToolDefinition> {
        match &self.tools {
            Some(session) => session.request_tools(&self.registry),
            None => {
                crate::tool_search::ToolSession::start(&self.registry, &self.config.tool_search)
                    .request_tools(&self.registry)
            }
        }
    }

    /// Learns the bytes-per-token ratio from a step's reported usage.
    pub(super) fn calibrate(&mut self, usage: Option<&Usage>) {
        if let Some(usage) = usage {
            let bytes = self.context.last_request_bytes;
            self.context.estimator.calibrate(bytes, usage.input_tokens);
        }
    }

    /// Before a model request: compacts when the request would pass the threshold (or when
    /// `forced` after a context-length error). `true` when the request must not go out now (a
    /// summary request went out instead, or the run ended).
    pub(super) fn compact_before_request(
        &mut self,
        now: Instant,
        tools: &[ToolDefinition],
        forced: bool,
    ) -> bool {
        let config = &self.config.context;
        let Some(threshold) = config.threshold() else {
            return false;
        };
        if !config.auto_compact && !forced {
            return false;
        }
        let before = self.estimate(tools, &self.history);
        if before <= threshold && !forced {
            return false;
        }
        let mut stubbed = stub_tool_results(&self.history, config.keep_tool_results);
        // Taken out and put back when they do not fit: adopted stubs are moved, never cloned.
        if let Some(messages) = stubbed.take() {
            let after = self.estimate(tools, &messages);
            // Stubs must leave real room (a quarter of the threshold), or the next request
            // compacts again at once; otherwise summarise.
            if after <= threshold - threshold / 4 {
                self.adopt(CompactionMode::Stub, before, after, messages);
                self.context.stubbed = true;
                return self.guard(now, before, after, threshold);
            }
            stubbed = Some(messages);
        }
        // The summary request extends the current request when it fits the window, so its
        // prefix is cached; otherwise it extends the stubbed one.
        let window = config.window.unwrap_or(u64::MAX);
        let instruction = summary_message(None);
        // The current request plus the instruction, measured without building it.
        let current = self.request_of(tools, &self.history).total()
            + messages_bytes(std::slice::from_ref(&instruction));
        let base = match stubbed {
            Some(stubbed) if self.context.estimator.tokens(current) > window => stubbed,
            _ => self.history.clone(),
        };
        let mut request = self.model_request(tools, base);
        request.messages.push(instruction);
        self.send_summary_request(request, before, false);
        true
    }

    fn model_request(&self, tools: &[ToolDefinition], messages: Vec<ChatMessage>) -> ModelRequest {
        ModelRequest {
            system: self.config.system_prompt.clone(),
            messages,
            tools: tools.to_vec(),
        }
    }

    fn send_summary_request(&mut self, request: ModelRequest, before: u64, manual: bool) {
        self.context.last_request_bytes = RequestBytes::of(&request).total();
        if let Some(run) = self.run.as_mut() {
            run.phase = Phase::Summarising(Summarising { before, manual });
        }
        self.out
            .actions
            .push_back(super::Action::CallModel(request));
    }

    /// Replaces the history with a compacted one, recorded and announced.
    fn adopt(&mut self, mode: CompactionMode, before: u64, after: u64, messages: Vec<ChatMessage>) {
        self.out.transcribe(Entry::Compaction {
            mode,
            tokens_before: before,
            tokens_after: after,
            messages: messages.clone(),
        });
        self.history = messages;
        self.out.events.push_back(UiEvent::Compacted {
            mode,
            tokens_before: before,
            tokens_after: after,
        });
    }

    /// Counts a compaction that freed too little; the second in a row ends the run. `true`
    /// when the run ended.
    fn guard(&mut self, _now: Instant, before: u64, after: u64, threshold: u64) -> bool {
        let too_little = after > threshold || after.saturating_mul(10) > before.saturating_mul(9);
        if !too_little {
            self.context.misses = 0;
            return false;
        }
        self.context.misses += 1;
        if self.context.misses < 2 {
            return false;
        }
        self.context.misses = 0;
        let window = self.config.context.window.unwrap_or(0);
        self.end_run(UiEvent::Error {
            message: format!(
                "stopped: compacting freed too little twice in a row ({before} → {after} \
                 estimated tokens, window {window}); start a new conversation or use a model \
                 with a larger context window"
            ),
        });
        true
    }

    /// Takes the summary the model wrote (or the error of that call).
    pub(super) fn handle_summary(
        &mut self,
        now: Instant,
        summarising: Summarising,
        response: Result<ModelResponse, String>,
    ) {
        let text = match response {
            Ok(response) => {
                self.calibrate(response.usage.as_ref());
                if let (Some(run), Some(usage)) = (self.run.as_mut(), &response.usage) {
                    Usage::accumulate(&mut run.usage, usage);
                }
                response.text.unwrap_or_default()
            }
            Err(message) => {
                self.end_run(UiEvent::Error {
                    message: format!("compaction failed: the summary request failed: {message}"),
                });
                return;
            }
        };
        let Some(messages) =
            compacted_history(&self.history, &text).filter(|_| !text.trim().is_empty())
        else {
            self.end_run(UiEvent::Error {
                message: "compaction failed: the model returned no summary".into(),
            });
            return;
        };
        let tools = self.current_tools();
        let after = self.estimate(&tools, &messages);
        self.adopt(CompactionMode::Summary, summarising.before, after, messages);
        self.context.summaries += 1;
        if summarising.manual {
            self.context.misses = 0;
            self.run = None;
            self.policy.clear_run();
            return;
        }
        let threshold = self.config.context.threshold().unwrap_or(u64::MAX);
        if self.guard(now, summarising.before, after, threshold) {
            return;
        }
        if let Some(run) = self.run.as_mut() {
            run.phase = Phase::AwaitingModel;
        }
        // `SessionStart` `compact` first: its context joins the rest of this run.
        self.after_summary(now);
    }

    /// A failed model call: a context-length error gets one compaction and one retry
    /// (`true`: handled); anything else, a second one, or any with compaction off, ends the
    /// run as before (the window the error states is learned either way).
    pub(super) fn retry_after_overflow(&mut self, now: Instant, message: &str) -> bool {
        if !is_context_length_error(message) {
            return false;
        }
        let Some(run) = self.run.as_mut() else {
            return false;
        };
        if run.overflow_retried {
            return false;
        }
        run.overflow_retried = true;
        let compact = self.config.context.auto_compact;
        // The provider has the last word on the window.
        let sent = self
            .context
            .estimator
            .tokens(self.context.last_request_bytes);
        let learned = window_from_error(message).unwrap_or(sent.saturating_sub(1).max(1));
        let window = &mut self.config.context.window;
        *window = Some(window.map_or(learned, |w| w.min(learned)));
        if !compact {
            // Compaction is off: the run ends with the provider's error.
            return false;
        }
        let tools = self.current_tools();
        if !self.compact_before_request(now, &tools, true) {
            // Stubbing made room: retry the step.
            if let Some(run) = self.run.as_mut() {
                run.steps = run.steps.saturating_sub(1);
            }
            self.request_model(now);
        }
        true
    }

    /// Compacts the conversation now with a summary (`/compact [focus]`): the model is asked
    /// for it like a run's step; the run ends with a `compacted` event. Refused while a run is
    /// active or when there is nothing to compact.
    pub fn compact(&mut self, _now: Instant, focus: Option<&str>) -> Result<(), AgentError> {
        if self.run.is_some() {
            return Err(AgentError::RunActive);
        }
        if !self
            .history
            .iter()
            .any(|m| matches!(m, ChatMessage::User { .. }))
        {
            return Err(AgentError::NothingToCompact);
        }
        let tools = self.session_tools();
        let before = self.estimate(&tools, &self.history);
        let mut request = self.model_request(&tools, self.history.clone());
        request.messages.push(summary_message(focus));
        self.run = Some(Run::new(
            Phase::AwaitingModel,
            self.config.output_budget_chars,
        ));
        self.send_summary_request(request, before, true);
        Ok(())
    }
}
