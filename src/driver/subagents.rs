//! Running children: each `Agent` call starts a nested [`Agent`] machine, driven here beside
//! its parent with the same model (or a named one), the same MCP connections and the same
//! observer, whose events and approvals carry the child's name.
//!
//! A child's future lives inside its parent's tool batch: several `Agent` calls of one turn
//! run concurrently, and when the parent's run is interrupted the batch is dropped, which
//! drops every child (their MCP calls in flight get `notifications/cancelled`) and ends each
//! child's run with one `interrupted` event.

use super::backends::{ModelBackend, RunObserver};
use super::runtime::Runtime;
use super::traits::Clock;
use crate::agent::{Agent, AgentConfig, ToolFailure, ToolInvocation, UiEvent};
use crate::content::ToolOutput;
use crate::model::Usage;
use crate::registry::ToolSpec;
use crate::subagent::{
    child_scope, AgentDefinition, AgentRequest, AgentSet, ChildTranscript,
    DEFAULT_AGENT_CATALOG_CHARS, DEFAULT_MAX_DEPTH, DEFAULT_TOKEN_BUDGET,
};
use futures::future::LocalBoxFuture;
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;
use std::rc::Rc;

/// A host's way to run a child on the model its definition names (`model: sonnet`; asked only
/// for a definition with a `model`): the backend for it, `Ok(None)` to run it on the parent's
/// model, or `Err(why)` for a name the host does not know (the child does not start; its
/// call's result says why, so `why` should name the definition's file).
pub type ModelResolver =
    Rc<dyn Fn(&AgentDefinition) -> Result<Option<Rc<dyn ModelBackend>>, String>>;

/// Where a host keeps each child's transcript (a file beside the session's): called once per
/// child run, when it ends, with what it left behind; the reference it gives (a path) is what
/// the parent's tool result names instead of the child's index.
pub type ChildTranscriptSink = Rc<dyn Fn(&ChildTranscript) -> Option<String>>;

/// The definition's skills, read from the parent's, for the child's first request (each
/// after a blank line); what they disallow is added to `policy` as deny rules, so it stays
/// denied for the whole child run. A skill that does not load stops the child: why, naming
/// the agent and the skill.
fn preload_skills(
    parent: &Agent,
    def: &AgentDefinition,
    policy: &mut crate::policy::Policy,
) -> Result<String, String> {
    let mut preloaded = String::new();
    for name in &def.skills {
        let body = parent
            .preload_skill(name, policy)
            .map_err(|why| format!("agent {}: skill {name}: {why}", def.name))?;
        preloaded.push_str("\n\n");
        preloaded.push_str(body.trim_end());
    }
    Ok(preloaded)
}

/// The runtime's subagent settings and bookkeeping.
pub(super) struct SubagentState {
    set: RefCell<Rc<AgentSet>>,
    max_depth: Cell<u32>,
    token_budget: Cell<u64>,
    models: RefCell<Option<ModelResolver>>,
    sink: RefCell<Option<ChildTranscriptSink>>,
    /// Children started so far (the next one's index).
    started: Cell<usize>,
    running: Cell<usize>,
}

impl Default for SubagentState {
    fn default() -> Self {
        SubagentState {
            set: RefCell::new(Rc::new(AgentSet::default())),
            max_depth: Cell::new(DEFAULT_MAX_DEPTH),
            token_budget: Cell::new(DEFAULT_TOKEN_BUDGET),
            models: RefCell::new(None),
            sink: RefCell::new(None),
            started: Cell::new(0),
            running: Cell::new(0),
        }
    }
}

/// Who a child is, for its events, records and approvals (borrowed from its definition and
/// its parent's call, which outlive the child's run).
struct Label<'a> {
    agent: &'a str,
    parent_tool_use_id: &'a str,
    depth: u32,
    index: usize,
}

/// Ends a child's run when its future is dropped mid-way (the parent was interrupted) and
/// files its transcript either way.
pub(super) struct ChildGuard<'a, C: Clock> {
    runtime: &'a Runtime<C>,
    /// The model the child runs on (its parent's, or the one its definition names).
    pub(super) model: Rc<dyn ModelBackend>,
    agent: &'a RefCell<Agent>,
    label: &'a Label<'a>,
    observer: &'a dyn RunObserver,
    outcome: RefCell<Option<Result<String, String>>>,
    usage: Cell<Option<Usage>>,
    steps: Cell<u32>,
    finished: Cell<bool>,
}

impl<C: Clock> ChildGuard<'_, C> {
    /// Passes the child's events and audit records on, labelled; notes its end and usage.
    fn forward(&self) {
        let label = Some((self.label.agent, self.label.parent_tool_use_id));
        super::turn::pass_outputs(self.agent, label, self.observer, &mut |event| match event {
            UiEvent::StepStart { step } => self.steps.set(*step),
            UiEvent::StepEnd { usage, .. } => {
                let mut total = self.usage.get();
                Usage::accumulate(&mut total, usage);
                self.usage.set(total);
            }
            UiEvent::Done { answer, .. } => {
                *self.outcome.borrow_mut() = Some(Ok(answer.clone()));
            }
            UiEvent::Error { message } => {
                *self.outcome.borrow_mut() = Some(Err(message.clone()));
            }
            _ => {}
        });
    }

    fn tokens(&self) -> u64 {
        self.usage
            .get()
            .map_or(0, |u| u.input_tokens + u.output_tokens)
    }

    /// Passes the child's output on; when it has used more than its token budget, stops its
    /// run and says so (`true`: look at its output again before its next action).
    pub(super) fn over_budget(&self) -> bool {
        self.forward();
        let budget = self.runtime.subagents.token_budget.get();
        if self.tokens() > budget && self.agent.borrow().is_running() {
            let now = self.runtime.clock.now();
            let reason = format!("the token budget of {budget}");
            let _ = self.agent.borrow_mut().interrupt_run(now, &reason);
            return true;
        }
        false
    }

    /// How deep the child runs: 1 for a child of the main agent.
    pub(super) fn depth(&self) -> u32 {
        self.label.depth
    }

    /// The child's agent name, for its approval prompts.
    pub(super) fn agent_name(&self) -> &str {
        self.label.agent
    }

    /// The id of the parent's `Agent` call that started the child, for its progress events.
    pub(super) fn parent_call_id(&self) -> &str {
        self.label.parent_tool_use_id
    }
}

impl<C: Clock> ChildGuard<'_, C> {
    /// Ends the child's run if it still runs and hands its transcript to the host's sink, if
    /// any, giving the sink's reference (once; later calls give `None`). Without a sink nothing
    /// is kept: the child's events said what happened, and a session of many children holds
    /// none of their histories.
    fn finish(&self) -> Option<String> {
        if self.finished.replace(true) {
            return None;
        }
        // Refused (and nothing changes) when the child's run has ended already.
        let now = self.runtime.clock.now();
        let _ = self
            .agent
            .borrow_mut()
            .interrupt_run(now, "the parent's run stopping");
        self.forward();
        let state = &self.runtime.subagents;
        state.running.set(state.running.get().saturating_sub(1));
        let sink = state.sink.borrow().clone()?;
        let transcript = ChildTranscript {
            index: self.label.index,
            agent: self.label.agent.to_owned(),
            parent_tool_use_id: self.label.parent_tool_use_id.to_owned(),
            depth: self.label.depth,
            history: self.agent.borrow().history().to_vec(),
            usage: self.usage.get(),
            steps: self.steps.get(),
            outcome: self.outcome.borrow().clone(),
        };
        sink(&transcript)
    }
}

impl<C: Clock> Drop for ChildGuard<'_, C> {
    fn drop(&mut self) {
        // Dropped mid-way (the parent was interrupted): the transcript is filed all the same.
        self.finish();
    }
}

impl<C: Clock> Runtime<C> {
    /// Sets the agents the `Agent` tool offers (replacing any before) and puts the tool, with
    /// its catalog, in the registry; an empty set removes it. Call it before the first run:
    /// the tool's description is part of the prompt prefix.
    pub fn set_agents(&self, set: AgentSet) {
        let spec = set.tool_spec(DEFAULT_AGENT_CATALOG_CHARS);
        self.set_agents_with_tool(set, spec);
    }

    /// [`set_agents`](Self::set_agents) with the `Agent` tool made already (`None`: no tool):
    /// the npm package's `ext` module renders its catalog, so the runtime module does not.
    pub fn set_agents_with_tool(&self, set: AgentSet, spec: Option<ToolSpec>) {
        self.agent.borrow_mut().registry_mut().set_agent_tool(spec);
        *self.subagents.set.borrow_mut() = Rc::new(set);
    }

    /// The agents the `Agent` tool offers.
    pub fn agents(&self) -> Rc<AgentSet> {
        Rc::clone(&self.subagents.set.borrow())
    }

    /// How deep children may nest (default 1: the main agent's children start none) and how
    /// many tokens one child run may use (default [`DEFAULT_TOKEN_BUDGET`]).
    pub fn set_subagent_limits(&self, max_depth: u32, token_budget: u64) {
        self.subagents.max_depth.set(max_depth);
        self.subagents.token_budget.set(token_budget);
        if max_depth == 0 {
            self.agent.borrow_mut().registry_mut().set_agent_tool(None);
        }
    }

    /// Sets how a definition's `model` name becomes a backend (without one, every child runs
    /// on the parent's model).
    pub fn set_model_resolver(&self, resolver: Option<ModelResolver>) {
        *self.subagents.models.borrow_mut() = resolver;
    }

    /// Sends each child's transcript to `sink` when the child ends (or stops with `None`):
    /// the runtime keeps none itself.
    pub fn set_child_transcript_sink(&self, sink: Option<ChildTranscriptSink>) {
        *self.subagents.sink.borrow_mut() = sink;
    }

    /// Children started so far by this runtime's runs, at every depth.
    pub fn subagents_started(&self) -> usize {
        self.subagents.started.get()
    }

    /// Children running right now (0 whenever no run is active).
    pub fn running_subagents(&self) -> usize {
        self.subagents.running.get()
    }

    /// Runs the child an `Agent` call of `parent` asks for, at `depth`, and gives its answer
    /// as the call's result.
    pub(super) fn run_subagent<'a>(
        &'a self,
        call: &'a ToolInvocation,
        parent: &'a RefCell<Agent>,
        depth: u32,
        observer: &'a dyn RunObserver,
    ) -> LocalBoxFuture<'a, Result<ToolOutput, ToolFailure>> {
        Box::pin(async move {
            let request = match AgentRequest::parse(&call.arguments) {
                Ok(request) => request,
                Err(message) => return Ok(ToolOutput::error(message)),
            };
            let set = self.agents();
            let Some(def) = set.get(&request.subagent_type) else {
                let mut message = format!(
                    "unknown subagent_type {}; available:",
                    crate::json::quoted(&request.subagent_type)
                );
                // The set is kept in name order.
                for (i, def) in set.sorted().into_iter().enumerate() {
                    message.push_str(if i == 0 { " " } else { ", " });
                    message.push_str(&def.name);
                }
                return Ok(ToolOutput::error(message));
            };
            let max_depth = self.subagents.max_depth.get();
            if depth > max_depth {
                return Ok(ToolOutput::error(format!(
                    "agents may nest {max_depth} level(s) deep; this agent cannot start another"
                )));
            }
            let (child, preloaded) = {
                let parent = parent.borrow();
                let mut scope =
                    child_scope(parent.registry(), parent.policy(), def, depth < max_depth);
                let preloaded = match preload_skills(&parent, def, &mut scope.policy) {
                    Ok(preloaded) => preloaded,
                    Err(why) => return Ok(ToolOutput::error(why)),
                };
                let inherited = parent.config();
                let config = AgentConfig {
                    system_prompt: def.system_prompt(),
                    max_steps: def.max_turns.unwrap_or(inherited.max_steps),
                    tool_search: inherited.tool_search.clone(),
                    context: inherited.context.clone(),
                    ..*inherited
                };
                let mut child = Agent::new(scope.registry, scope.policy, config);
                // The user's hooks watch a child's calls as they watch the parent's: a hook
                // that denies a tool denies it at every depth.
                child.set_hooks(parent.hooks().clone(), parent.hook_context().clone());
                (child, preloaded)
            };
            let named = match &*self.subagents.models.borrow() {
                Some(resolve) if def.model.is_some() => resolve(def),
                _ => Ok(None),
            };
            let model = match named {
                Ok(model) => model.unwrap_or_else(|| Rc::clone(&self.model.borrow())),
                Err(why) => return Ok(ToolOutput::error(format!("agent {}: {why}", def.name))),
            };
            let index = self.subagents.started.get();
            self.subagents.started.set(index + 1);
            let label = Label {
                agent: &def.name,
                parent_tool_use_id: &call.call_id,
                depth,
                index,
            };
            let agent = RefCell::new(child);
            self.subagents.running.set(self.subagents.running.get() + 1);
            let guard = ChildGuard {
                runtime: self,
                model,
                agent: &agent,
                label: &label,
                observer,
                outcome: RefCell::new(None),
                usage: Cell::new(None),
                steps: Cell::new(0),
                finished: Cell::new(false),
            };
            let agent_id = format!("subagent-{index}");
            // Its run fires `SubagentStart` first and `SubagentStop` on its final answer, inside
            // its own run (a `SubagentStop` hook may continue it).
            agent.borrow_mut().set_subagent(&agent_id, &def.name);
            let prompt = request.prompt + &preloaded;
            // A new agent has no run, so its start cannot be refused; were it ever, the loop
            // below ends at once and the result says the agent ended without an answer.
            let _ = agent.borrow_mut().start_run(self.clock.now(), prompt);
            self.drive_agent(&agent, Some(&guard), observer, &mut None)
                .await;
            let reference = guard.finish().unwrap_or_else(|| label.index.to_string());
            let outcome = guard.outcome.take();
            let mut text = match &outcome {
                Some(Ok(answer)) => answer.trim_end().to_owned(),
                Some(Err(message)) => format!("the agent stopped without an answer: {message}"),
                None => "the agent ended without an answer".to_owned(),
            };
            let tokens = match guard.usage.get() {
                Some(u) => format!(
                    " · {} input / {} output tokens",
                    u.input_tokens, u.output_tokens
                ),
                None => String::new(),
            };
            let steps = guard.steps.get();
            let _ = write!(
                text,
                "\n\n[agent {} · {steps} step(s){tokens} · transcript {reference}]",
                label.agent
            );
            drop(guard);
            // One constructor call: an answer is a text result, anything else an error.
            Ok(ToolOutput {
                is_error: !matches!(outcome, Some(Ok(_))),
                ..ToolOutput::text(text)
            })
        })
    }
}
