//! `Runtime`: the agent loop wired to a model, MCP servers and local tools.
//!
//! Native and wasm hosts share this: they connect servers, pick a model and render events; the
//! runtime drives the sans-IO [`Agent`] through every step of every run. This file holds the
//! wiring; what the runtime does lives beside it, one concept a file: its servers
//! (`servers.rs`, `server_status.rs`), a turn (`turn.rs`), direct calls (`direct_call.rs`),
//! sampling (`sampling.rs`), and what servers offer beyond tools (`mcp_runtime.rs`).

use super::backends::{LocalTools, ModelBackend};
use super::interrupt::RunInterrupt;
use super::server_status::Server;
use super::traits::Clock;
use crate::agent::Agent;
use crate::model::ToolDefinition;
use crate::vec_map::VecMap;
use futures::future::LocalBoxFuture;
use std::cell::RefCell;
use std::rc::Rc;

/// A host searcher for `tool_search` (for example embeddings): `(query, deferred catalog,
/// limit)` → tool names, best first. Its ranking is fused with the core index's (a build
/// without the feature `lexical-index` takes it as the ranking; see `tool_search::rank`).
pub type ToolSearcher = Rc<
    dyn Fn(
        String,
        Vec<ToolDefinition>,
        usize,
    ) -> LocalBoxFuture<'static, Result<Vec<String>, String>>,
>;

/// Where a host keeps the conversation's transcript: called with every entry as it happens
/// (see [`crate::transcript`]).
pub type TranscriptSink = Rc<dyn Fn(&crate::transcript::Entry)>;

/// The agent loop plus everything it needs to act. Single-threaded (`!Send`) by design: hosts run
/// it on a local executor.
pub struct Runtime<C: Clock> {
    pub(super) agent: RefCell<Agent>,
    pub(super) servers: RefCell<VecMap<String, Server>>,
    /// Shared with sampling handlers, so they use the model of the moment.
    pub(super) model: Rc<RefCell<Rc<dyn ModelBackend>>>,
    pub(super) local_tools: Rc<dyn LocalTools>,
    pub(super) searcher: RefCell<Option<ToolSearcher>>,
    pub(super) hook_runner: RefCell<Option<super::hooks::HookRunner>>,
    /// Context from session hooks waiting to join the next prompt.
    pub(super) hook_notes: RefCell<Vec<String>>,
    pub(super) clock: C,
    pub(super) interrupt: RunInterrupt,
    pub(super) transcript_sink: RefCell<Option<TranscriptSink>>,
    /// Agent definitions, limits and the transcripts of child runs.
    pub(super) subagents: super::subagents::SubagentState,
    /// Skills MCP servers serve (the Skills extension).
    #[cfg(feature = "server-skills")]
    pub(super) server_skills: RefCell<super::server_skills::ServerSkills>,
}

/// Marks the interrupt handle active for as long as it lives, so a run whose future the host
/// drops never leaves it claiming that something runs.
pub(super) struct Active<'a>(&'a RunInterrupt);

impl<'a> Active<'a> {
    pub(super) fn new(interrupt: &'a RunInterrupt) -> Self {
        interrupt.set_active(true);
        Active(interrupt)
    }
}

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.0.set_active(false);
    }
}

impl<C: Clock> Runtime<C> {
    /// A runtime over `agent` (which owns the registry and policy).
    pub fn new(
        agent: Agent,
        model: Rc<dyn ModelBackend>,
        local_tools: Rc<dyn LocalTools>,
        clock: C,
    ) -> Self {
        Runtime {
            agent: RefCell::new(agent),
            servers: RefCell::new(VecMap::new()),
            model: Rc::new(RefCell::new(model)),
            local_tools,
            searcher: RefCell::new(None),
            hook_runner: RefCell::new(None),
            hook_notes: RefCell::new(Vec::new()),
            clock,
            interrupt: RunInterrupt::new(),
            transcript_sink: RefCell::new(None),
            subagents: Default::default(),
            #[cfg(feature = "server-skills")]
            server_skills: Default::default(),
        }
    }

    /// Sends every transcript entry to `sink` from now on (or stops recording with `None`).
    pub fn set_transcript_sink(&self, sink: Option<TranscriptSink>) {
        self.agent
            .borrow_mut()
            .set_transcript_recording(sink.is_some());
        *self.transcript_sink.borrow_mut() = sink;
    }

    /// Hands the entries recorded so far to the transcript sink.
    pub fn flush_transcript(&self) {
        let sink = self.transcript_sink.borrow().clone();
        loop {
            let entry = self.agent.borrow_mut().poll_transcript();
            let Some(entry) = entry else { return };
            if let Some(sink) = &sink {
                sink(&entry);
            }
        }
    }

    /// The handle that stops the active run or direct call (Ctrl-C, SIGTERM, a stop button):
    /// waits in flight are dropped (MCP calls get `notifications/cancelled`, local tools are
    /// cancelled), unfinished calls are audited as `interrupted`, and the run ends with an
    /// `error` event. The handle refuses when nothing is active.
    pub fn interrupt_handle(&self) -> RunInterrupt {
        self.interrupt.clone()
    }

    /// Read or change the agent (registry, policy, config, history) between runs.
    pub fn with_agent<R>(&self, f: impl FnOnce(&mut Agent) -> R) -> R {
        f(&mut self.agent.borrow_mut())
    }

    /// Sets (or removes) the host's `tool_search` searcher.
    pub fn set_tool_searcher(&self, searcher: Option<ToolSearcher>) {
        self.agent.borrow_mut().set_host_search(searcher.is_some());
        *self.searcher.borrow_mut() = searcher;
    }

    /// Replaces the model.
    pub fn set_model(&self, model: Rc<dyn ModelBackend>) {
        *self.model.borrow_mut() = model;
    }
}
