//! Running one user turn: the agent's actions (model calls, tool batches, searches,
//! approvals) carried out until it ends or is interrupted.

use super::backends::{ModelStream, RunObserver};
use super::interrupt::unless_interrupted;
use super::progress::{ChildLabel, ProgressWatch};
use super::runtime::{Active, Runtime};
use super::server_status::ServerStatus;
use super::subagents::ChildGuard;
use super::traits::Clock;
use crate::agent::{Action, Agent, AgentError, Approval, ToolFailure, ToolInvocation, UiEvent};
use crate::content::ToolOutput;
use crate::mcp::{CallOptions, RequestError};
use crate::registry::ToolSource;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// Why a run ended without an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError(pub String);

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

impl<C: Clock> Runtime<C> {
    /// Runs one user turn to its end and returns the final answer. The conversation keeps its
    /// history for the next run.
    ///
    /// A leading `/name args` that names a prompt command or skill is expanded first (its
    /// shell snippets run as gated `bash` calls); a refused snippet ends the run before any
    /// model request. Any other text is sent as it is.
    pub async fn run(&self, prompt: &str, observer: &dyn RunObserver) -> Result<String, RunError> {
        // Active from the start: a Ctrl-C during a command's snippets stops them too.
        let _active = Active::new(&self.interrupt);
        self.refresh_servers(observer).await;
        #[cfg(feature = "server-skills")]
        for notice in self.load_server_skills().await {
            observer.on_notice(&notice);
        }
        let expanded = match self.expand_command(prompt, observer).await {
            Ok(expanded) => expanded,
            Err(error) => {
                // A refused, failed or interrupted expansion ends the run: its one terminal
                // event says why (no model request was made).
                observer.on_event(&UiEvent::Error {
                    message: error.0.clone(),
                });
                return Err(error);
            }
        };
        let prompt = expanded.as_deref().unwrap_or(prompt);
        let prompt = match self.hooked_prompt(prompt, observer).await {
            Ok(prompt) => prompt,
            Err(message) => {
                observer.on_event(&UiEvent::Error {
                    message: message.clone(),
                });
                return Err(RunError(message));
            }
        };
        self.agent
            .borrow_mut()
            .start_run(self.clock.now(), prompt)
            .map_err(|e| RunError(e.to_string()))?;
        self.drive(observer).await
    }

    /// Carries out the active run's actions until it ends; its final answer, or why not.
    pub(super) async fn drive(&self, observer: &dyn RunObserver) -> Result<String, RunError> {
        let mut outcome = None;
        self.drive_agent(&self.agent, None, observer, &mut outcome)
            .await;
        self.drain_outputs(observer, &mut outcome);
        outcome.unwrap_or_else(|| Err(RunError("the run ended without an answer".into())))
    }

    /// The run loop, one for the main agent and every child (`child: Some`): carries out
    /// `agent`'s actions until its run ends. The main agent's waits race the interrupt; a
    /// child's are dropped with its parent's batch instead. One loop, so the wasm module
    /// carries one copy of its async state machine.
    pub(super) async fn drive_agent(
        &self,
        agent: &RefCell<Agent>,
        child: Option<&ChildGuard<'_, C>>,
        observer: &dyn RunObserver,
        outcome: &mut Option<Result<String, RunError>>,
    ) {
        let interruptible = child.is_none();
        loop {
            match child {
                None => {
                    // Stubbing old tool results is a compaction too, just one without a
                    // summary request: its `PreCompact` runs before the request goes out (and
                    // before its `compacted` event is shown). No `SessionStart` `compact`
                    // follows: the conversation, context hooks gave included, is all kept.
                    let stubbed = agent.borrow_mut().poll_stub_compaction();
                    if stubbed {
                        let hooks = self.pre_compact("auto", None, observer);
                        let _ = unless_interrupted(&self.interrupt, hooks).await;
                    }
                    self.drain_outputs(observer, outcome)
                }
                Some(guard) => {
                    if guard.over_budget() {
                        continue;
                    }
                }
            }
            let action = agent.borrow_mut().poll_action();
            let stopped = match action {
                Some(Action::CallModel(request)) => {
                    // Compaction hooks belong to the main conversation, never to a child's.
                    if interruptible && agent.borrow().is_compacting() {
                        let hooks = self.pre_compact("auto", None, observer);
                        // Ctrl-C stops the hooks; the interrupted run then ends as usual.
                        let _ = unless_interrupted(&self.interrupt, hooks).await;
                    }
                    let model = match child {
                        Some(guard) => Rc::clone(&guard.model),
                        None => Rc::clone(&self.model.borrow()),
                    };
                    // A child's text is not streamed: its answer reaches the parent whole.
                    let on_stream = |piece: ModelStream<'_>| match piece {
                        _ if !interruptible => {}
                        ModelStream::Text(text) => observer.on_text_delta(text),
                        ModelStream::Reasoning(text) => observer.on_reasoning_delta(text),
                    };
                    let work = model.complete(request, &on_stream);
                    // After an automatic summary the agent asks for `SessionStart` `compact`
                    // itself (`Action::RunHooks`), so its context joins the rest of the run.
                    self.wait(interruptible, work).await.map(|response| {
                        let now = self.clock.now();
                        ignore_stale(agent.borrow_mut().handle_model_response(now, response));
                    })
                }
                Some(Action::CallTools(batch)) => {
                    let depth = child.map_or(1, |guard| guard.depth() + 1);
                    let label = child.map(|guard| (guard.agent_name(), guard.parent_call_id()));
                    let work = self.run_batch(agent, batch, depth, label, observer);
                    let stopped = self.wait(interruptible, work).await;
                    if stopped.is_ok() && interruptible {
                        self.refresh_servers(observer).await;
                    }
                    stopped
                }
                Some(Action::SearchTools(request)) => {
                    let searcher = self.searcher.borrow().clone();
                    let call_id = request.call_id;
                    let work = async move {
                        match searcher {
                            Some(search) => {
                                search(request.query, request.catalog, request.limit).await
                            }
                            None => Err("no searcher".to_owned()),
                        }
                    };
                    self.wait(interruptible, work).await.map(|ranked| {
                        let now = self.clock.now();
                        ignore_stale(
                            agent
                                .borrow_mut()
                                .handle_search_result(now, &call_id, ranked),
                        );
                    })
                }
                Some(Action::RequestApproval(request))
                    if interruptible && !observer.can_approve(&request) =>
                {
                    // Nobody here can answer: the run pauses, its transcript carries it on.
                    let now = self.clock.now();
                    let _ = agent.borrow_mut().pause_run(now);
                    Ok(())
                }
                Some(Action::RunHooks(request)) => {
                    let (call_id, event) = (request.call_id.clone(), request.event);
                    let work = self.run_hooks(event, request.input, request.hooks);
                    self.wait(interruptible, work).await.map(|runs| {
                        let now = self.clock.now();
                        ignore_stale(
                            agent
                                .borrow_mut()
                                .handle_hook_runs(now, &call_id, event, runs),
                        );
                    })
                }
                Some(Action::RequestApproval(mut request)) => {
                    if let Some(guard) = child {
                        request.agent = Some(guard.agent_name().to_owned());
                    }
                    let ask = async {
                        let notify = async {
                            if interruptible {
                                self.notify_approval(&request.name, observer).await;
                            }
                        };
                        let (_, answer) = futures::join!(notify, observer.approve(&request));
                        answer
                    };
                    self.wait(interruptible, ask).await.map(|answer| {
                        if child.is_some() && answer == Approval::Always {
                            // The user's "always" holds for the session, the main agent included.
                            self.agent
                                .borrow_mut()
                                .policy_mut()
                                .allow_always(&request.name);
                        }
                        let now = self.clock.now();
                        ignore_stale(agent.borrow_mut().handle_approval(
                            now,
                            &request.call_id,
                            answer,
                        ));
                    })
                }
                None => {
                    if !agent.borrow().is_running() {
                        break;
                    }
                    // Defensive: a running loop with nothing to do would otherwise spin forever.
                    let now = self.clock.now();
                    ignore_stale(agent.borrow_mut().cancel_run(now));
                    Ok(())
                }
            };
            if let Err(reason) = stopped {
                // The wait was dropped: MCP calls in flight were cancelled, local tools stopped.
                let now = self.clock.now();
                ignore_stale(agent.borrow_mut().interrupt_run(now, &reason));
            }
        }
    }

    /// `work`, raced against the interrupt when `interruptible` (`Err(reason)`: dropped).
    async fn wait<T>(
        &self,
        interruptible: bool,
        work: impl std::future::Future<Output = T>,
    ) -> Result<T, String> {
        if interruptible {
            unless_interrupted(&self.interrupt, work).await
        } else {
            Ok(work.await)
        }
    }

    pub(super) fn drain_outputs(
        &self,
        observer: &dyn RunObserver,
        outcome: &mut Option<Result<String, RunError>>,
    ) {
        // Entries first: the file holds what happened before the user is shown it.
        self.flush_transcript();
        pass_outputs(&self.agent, None, observer, &mut |event| match event {
            UiEvent::Done { answer, .. } => *outcome = Some(Ok(answer.clone())),
            UiEvent::Error { message } => *outcome = Some(Err(RunError(message.clone()))),
            UiEvent::Paused { pending } => {
                let mut message = String::from("paused: waiting for a decision on ");
                for (i, call) in pending.iter().enumerate() {
                    if i > 0 {
                        message.push_str(", ");
                    }
                    message.push_str(&call.id);
                }
                *outcome = Some(Err(RunError(message)));
            }
            _ => {}
        });
    }

    /// Runs `agent`'s batch concurrently, feeding each result to it as soon as it arrives so
    /// `tool_end` events come out in completion order; an `Agent` call starts a child at
    /// `depth`. Each call's progress is shown meanwhile (labelled with `child`'s name when a
    /// child runs the batch).
    async fn run_batch(
        &self,
        agent: &RefCell<Agent>,
        batch: Vec<ToolInvocation>,
        depth: u32,
        child: ChildLabel<'_>,
        observer: &dyn RunObserver,
    ) {
        let mut running: FuturesUnordered<_> = batch
            .into_iter()
            .map(|call| async move {
                let result = if call.target == ToolSource::Subagent {
                    self.run_subagent(&call, agent, depth, observer).await
                } else {
                    let watch = ProgressWatch::default();
                    let work = self.invoke_watched(&call, None, Some(watch.clone()));
                    let report = self.report_progress(&watch, &call, child, observer);
                    futures::pin_mut!(work, report);
                    match futures::future::select(work, report).await {
                        futures::future::Either::Left((result, _)) => result,
                        futures::future::Either::Right((never, _)) => match never {},
                    }
                };
                (call.call_id, result)
            })
            .collect();
        while let Some((call_id, result)) = running.next().await {
            let now = self.clock.now();
            ignore_stale(agent.borrow_mut().handle_tool_result(now, &call_id, result));
        }
    }

    pub(super) async fn invoke(&self, call: &ToolInvocation) -> Result<ToolOutput, ToolFailure> {
        self.invoke_for(call, None).await
    }

    /// [`Runtime::invoke`] on behalf of the command from `source` (see [`super::LocalTools::call_for`]).
    pub(super) async fn invoke_for(
        &self,
        call: &ToolInvocation,
        source: Option<&str>,
    ) -> Result<ToolOutput, ToolFailure> {
        self.invoke_watched(call, source, None).await
    }

    /// [`Runtime::invoke_for`], an MCP call's progress kept in `progress`.
    async fn invoke_watched(
        &self,
        call: &ToolInvocation,
        source: Option<&str>,
        progress: Option<ProgressWatch>,
    ) -> Result<ToolOutput, ToolFailure> {
        match &call.target {
            ToolSource::Mcp {
                server,
                original_name,
            } => {
                let Some(client) = self.client(server) else {
                    let reason = self.servers.borrow().get(server).map(|s| match &s.status {
                        ServerStatus::Failed { reason } => reason.clone(),
                        other => other.as_str().to_owned(),
                    });
                    return Err(ToolFailure::Error(format!(
                        "MCP server {server} is not connected{}",
                        reason.map(|r| format!(": {r}")).unwrap_or_default()
                    )));
                };
                let options = CallOptions {
                    timeout: Some(call.timeout),
                    max_total: None,
                };
                client
                    .call_tool_watched(original_name, call.arguments.clone(), options, progress)
                    .await
                    .map_err(|e| match e {
                        RequestError::Timeout { .. } => ToolFailure::Timeout,
                        RequestError::Cancelled(_) => ToolFailure::Cancelled,
                        other => ToolFailure::Error(format!("MCP server {server}: {other}")),
                    })
            }
            // Children start only from a model's turn (`run_batch`), never as a direct call.
            ToolSource::Subagent => Err(ToolFailure::Error(format!(
                "{} starts a subagent only when a model calls it in a run",
                call.name
            ))),
            _ => {
                let deadline = self.clock.now() + call.timeout;
                // A server skill's activation or file is read from its server.
                #[cfg(feature = "server-skills")]
                let server_skill = self.server_skill_call(call);
                #[cfg(not(feature = "server-skills"))]
                let server_skill = None;
                let work: futures::future::LocalBoxFuture<'_, ToolOutput> =
                    if let Some(work) = server_skill {
                        work
                    } else if super::resource_tools::is_resource_tool(&call.name) {
                        self.call_resource_tool(&call.name, &call.arguments)
                    } else if let Some(source) = source {
                        self.local_tools
                            .call_for(source, &call.name, call.arguments.clone())
                    } else {
                        self.local_tools.call(&call.name, call.arguments.clone())
                    };
                let timer = self.clock.sleep_until(deadline);
                futures::pin_mut!(work, timer);
                match futures::future::select(work, timer).await {
                    futures::future::Either::Left((output, _)) => Ok(output),
                    futures::future::Either::Right(_) => Err(ToolFailure::Timeout),
                }
            }
        }
    }
}

/// Inputs the agent refuses as stale (a late result after a cancel) change nothing; the run
/// goes on, so there is nothing to do with the error.
fn ignore_stale(result: Result<(), AgentError>) {
    let _ = result;
}

/// Passes `agent`'s events and audit records on to `observer` until it has none left: the main
/// agent's as they are, a child's (`child`: its name and its parent's call id) labelled with
/// both. `note` sees each event first (the caller's bookkeeping). One function for every agent,
/// so the module carries one copy of the loop.
pub(super) fn pass_outputs(
    agent: &RefCell<Agent>,
    child: Option<(&str, &str)>,
    observer: &dyn RunObserver,
    note: &mut dyn FnMut(&UiEvent),
) {
    loop {
        let (event, record) = {
            let mut agent = agent.borrow_mut();
            (agent.poll_event(), agent.poll_audit())
        };
        if event.is_none() && record.is_none() {
            return;
        }
        if let Some(event) = event {
            note(&event);
            match child {
                None => observer.on_event(&event),
                Some((name, parent)) => observer.on_event(&UiEvent::Subagent {
                    agent: name.to_owned(),
                    parent_tool_use_id: parent.to_owned(),
                    event: Box::new(event),
                }),
            }
        }
        if let Some(mut record) = record {
            if let Some((name, parent)) = child {
                record.origin = format!("agent:{name}");
                record.parent_tool_use_id = Some(parent.to_owned());
            }
            observer.on_audit(&record);
        }
    }
}
