//! `Runtime`: the agent loop wired to a model, MCP servers and local tools.
//!
//! Native and wasm hosts share this: they connect servers, pick a model and render events; the
//! runtime drives the sans-IO [`Agent`] through every step of every run.

use super::backends::{LocalTools, ModelBackend, ModelStream, RunObserver};
use super::client::{McpClient, RequestHandler};
use super::interrupt::{unless_interrupted, RunInterrupt};
use super::traits::Clock;
use crate::agent::{
    Action, Agent, AgentError, DirectCallError, DirectCallResult, ToolFailure, ToolInvocation,
    UiEvent,
};
use crate::content::ToolOutput;
use crate::json::to_text;
use crate::jsonrpc::{codes, ErrorObject};
use crate::mcp::sampling::{sampling_request, sampling_result};
use crate::mcp::{CallOptions, RequestError, SessionEvent};
use crate::model::ToolDefinition;
use crate::registry::ToolSource;
use crate::time::whole_millis;
use crate::vec_map::VecMap;
use futures::future::LocalBoxFuture;
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

/// How many log lines and notices are kept per server.
const SERVER_LOG_LINES: usize = 50;

/// The state of one configured MCP server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connected, with this many tools registered.
    Connected {
        /// Tools registered from this server.
        tools: usize,
    },
    /// Could not connect, or died; the reason names the culprit.
    Failed {
        /// Why.
        reason: String,
    },
    /// Disabled in the configuration.
    Disabled,
}

impl ServerStatus {
    /// `"connected"`, `"failed"` or `"disabled"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerStatus::Connected { .. } => "connected",
            ServerStatus::Failed { .. } => "failed",
            ServerStatus::Disabled => "disabled",
        }
    }
}

struct Server {
    client: Option<McpClient>,
    events: Option<super::EventStream>,
    status: ServerStatus,
    log: VecDeque<String>,
}

/// Why a run ended without an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError(pub String);

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

/// The result of [`Runtime::call_tool`]: the raw output and what the model would have seen.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectCallOutput {
    /// The tool's output as it returned it (`None` if the call failed before any output).
    pub output: Option<ToolOutput>,
    /// Text cut to the tool's limit, as audited.
    pub shaped: DirectCallResult,
    /// Why the call failed, when it did not even produce an output.
    pub failure: Option<String>,
}

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

/// The agent loop plus everything it needs to act. Single-threaded (`!Send`) by design: hosts run
/// it on a local executor.
pub struct Runtime<C: Clock> {
    pub(super) agent: RefCell<Agent>,
    servers: RefCell<VecMap<String, Server>>,
    /// Shared with sampling handlers, so they use the model of the moment.
    model: Rc<RefCell<Rc<dyn ModelBackend>>>,
    local_tools: Rc<dyn LocalTools>,
    searcher: RefCell<Option<ToolSearcher>>,
    pub(super) clock: C,
    pub(super) interrupt: RunInterrupt,
}

/// Marks the interrupt handle active for as long as it lives, so a run whose future the host
/// drops never leaves it claiming that something runs.
struct Active<'a>(&'a RunInterrupt);

impl<'a> Active<'a> {
    fn new(interrupt: &'a RunInterrupt) -> Self {
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
            clock,
            interrupt: RunInterrupt::new(),
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

    /// A handler for [`McpClient::connect_serving`] that answers `sampling/createMessage` with
    /// the runtime's model at the time of each request (text only; see
    /// [`crate::mcp::sampling`]). Sampling spends the user's model budget on the server's
    /// behalf: hosts offer it only to servers the user trusts with that.
    pub fn sampling_handler(&self) -> RequestHandler {
        let current = Rc::clone(&self.model);
        Rc::new(move |method: &str, params: Option<Value>| {
            let model = Rc::clone(&current.borrow());
            let method = method.to_owned();
            Box::pin(async move {
                if method != "sampling/createMessage" {
                    return Err(ErrorObject::method_not_found(&method));
                }
                let request = sampling_request(params.as_ref())?;
                let ignore_stream = |_: ModelStream<'_>| {};
                let response = model.complete(request, &ignore_stream).await.map_err(|e| {
                    ErrorObject::new(codes::INTERNAL_ERROR, format!("the model failed: {e}"))
                })?;
                let name = model.model_name().unwrap_or_else(|| "agentwire".into());
                Ok(sampling_result(&response, &name))
            })
        })
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

    /// Adds a connected server: lists its tools and registers them as `mcp__<name>__<tool>`.
    /// Returns how many tools were registered; on failure the server is recorded as failed.
    pub async fn add_server(&self, name: &str, client: McpClient) -> Result<usize, String> {
        let tools = Self::list_server_tools(&client).await;
        self.register_server(name, client, tools)
    }

    /// The first half of [`Runtime::add_server`]: lists a connected server's tools. Hosts that
    /// connect servers concurrently list them concurrently too, then register the servers in
    /// their configured order, so which of two clashing servers keeps the plain tool name is
    /// the same on every run.
    pub async fn list_server_tools(client: &McpClient) -> Result<Vec<Value>, String> {
        client
            .list_tools()
            .await
            .map_err(|error| format!("tools/list failed: {error}"))
    }

    /// The second half of [`Runtime::add_server`]: registers a server with what
    /// [`Runtime::list_server_tools`] returned (a failure closes it and records it as failed).
    pub fn register_server(
        &self,
        name: &str,
        client: McpClient,
        tools: Result<Vec<Value>, String>,
    ) -> Result<usize, String> {
        let events = client.take_events();
        let tools = match tools {
            Ok(tools) => tools,
            Err(reason) => {
                client.close(&reason);
                self.add_failed_server(name, &reason);
                return Err(reason);
            }
        };
        let count = self.load_tools(name, &tools);
        let server = Server {
            client: Some(client),
            events,
            status: ServerStatus::Connected { tools: count },
            log: VecDeque::new(),
        };
        if let Some(old) = self.servers.borrow_mut().insert(name.to_owned(), server) {
            if let Some(client) = old.client {
                client.close("replaced by a new connection");
            }
        }
        self.offer_resource_tools();
        Ok(count)
    }

    fn load_tools(&self, name: &str, tools: &[Value]) -> usize {
        let report = self
            .agent
            .borrow_mut()
            .registry_mut()
            .load_server(name, tools);
        report.loaded.len()
    }

    /// Records a server that could not connect: it has no tools, and `/mcp` shows the reason.
    pub fn add_failed_server(&self, name: &str, reason: &str) {
        self.agent
            .borrow_mut()
            .registry_mut()
            .record_server_failure(name, reason);
        let server = Server {
            client: None,
            events: None,
            status: ServerStatus::Failed {
                reason: reason.to_owned(),
            },
            log: VecDeque::new(),
        };
        self.servers.borrow_mut().insert(name.to_owned(), server);
    }

    /// Records a server that is disabled in the configuration.
    pub fn add_disabled_server(&self, name: &str) {
        let server = Server {
            client: None,
            events: None,
            status: ServerStatus::Disabled,
            log: VecDeque::new(),
        };
        self.servers.borrow_mut().insert(name.to_owned(), server);
    }

    /// Disconnects a server and removes exactly its tools.
    pub fn remove_server(&self, name: &str) -> bool {
        let removed = self.servers.borrow_mut().remove(name);
        self.agent.borrow_mut().registry_mut().remove_server(name);
        if let Some(client) = removed.as_ref().and_then(|s| s.client.as_ref()) {
            client.close("removed by the host");
        }
        removed.is_some()
    }

    /// Every server with its status, in name order.
    pub fn servers(&self) -> Vec<(String, ServerStatus)> {
        self.servers
            .borrow()
            .iter()
            .map(|(name, s)| (name.clone(), s.status.clone()))
            .collect()
    }

    /// The names of the configured servers, in order.
    pub(super) fn server_names(&self) -> Vec<String> {
        self.servers
            .borrow()
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The last log lines and notices of a server (its `notifications/message`, and why it
    /// died); the native host adds stderr separately.
    pub fn server_log(&self, name: &str) -> Vec<String> {
        self.servers
            .borrow()
            .get(name)
            .map(|s| s.log.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The client of a connected server.
    pub fn client(&self, name: &str) -> Option<McpClient> {
        self.servers
            .borrow()
            .get(name)
            .and_then(|s| s.client.clone())
    }

    /// Closes every server.
    pub fn close(&self) {
        for server in self.servers.borrow_mut().values_mut() {
            if let Some(client) = server.client.take() {
                client.close("the runtime is shutting down");
            }
        }
    }

    /// Applies what servers reported since the last look: refreshes the tools of servers that
    /// sent `tools/list_changed`, and marks servers that closed as failed.
    pub async fn refresh_servers(&self, observer: &dyn RunObserver) {
        let mut to_refresh = Vec::new();
        let mut died: Vec<(String, String)> = Vec::new();
        {
            let mut servers = self.servers.borrow_mut();
            for (name, server) in servers.iter_mut() {
                let Some(events) = server.events.as_mut() else {
                    continue;
                };
                while let Ok(event) = events.try_recv() {
                    match event {
                        SessionEvent::ToolsListChanged if !to_refresh.contains(name) => {
                            to_refresh.push(name.clone());
                        }
                        SessionEvent::Log {
                            level,
                            logger,
                            data,
                        } => {
                            push_log(&mut server.log, format!("[{level}] {}", log_text(&data)));
                            let fields = vec![
                                ("level", level.into()),
                                ("logger", logger.into()),
                                ("data", data),
                            ];
                            observer.on_server_event(&server_event("server_log", name, fields));
                        }
                        SessionEvent::ResourceUpdated { uri } => observer.on_server_event(
                            &server_event("resource_updated", name, vec![("uri", uri.into())]),
                        ),
                        SessionEvent::ListChanged(kind) => observer.on_notice(&format!(
                            "MCP server {name} changed its {}",
                            kind.method_and_key().1
                        )),
                        SessionEvent::ProtocolError { message } => {
                            push_log(&mut server.log, format!("protocol error: {message}"));
                        }
                        SessionEvent::EventsDropped { count } => {
                            let line = format!(
                                "dropped {count} notifications: the server sent them faster than \
                                 they were read (queue of {})",
                                super::EVENT_QUEUE_CAPACITY
                            );
                            observer.on_notice(&format!("MCP server {name}: {line}"));
                            push_log(&mut server.log, line);
                        }
                        SessionEvent::Closed { reason } => {
                            push_log(&mut server.log, format!("closed: {reason}"));
                            server.status = ServerStatus::Failed {
                                reason: reason.clone(),
                            };
                            server.client = None;
                            died.push((name.clone(), reason.clone()));
                            observer
                                .on_notice(&format!("MCP server {name} disconnected: {reason}"));
                        }
                        _ => {}
                    }
                }
            }
        }
        // A dead server's tools leave the registry, so the model is no longer offered them.
        for (name, reason) in died {
            let mut agent = self.agent.borrow_mut();
            agent.registry_mut().remove_server(&name);
            agent.registry_mut().record_server_failure(&name, reason);
            to_refresh.retain(|n| *n != name);
        }
        for name in to_refresh {
            let Some(client) = self.client(&name) else {
                continue;
            };
            match client.list_tools().await {
                Ok(tools) => {
                    let count = self.load_tools(&name, &tools);
                    if let Some(server) = self.servers.borrow_mut().get_mut(&name) {
                        server.status = ServerStatus::Connected { tools: count };
                    }
                    observer
                        .on_notice(&format!("MCP server {name} changed its tools: now {count}"));
                    let tools = vec![("tools", count.into())];
                    observer.on_server_event(&server_event("tools_changed", &name, tools));
                }
                Err(error) => observer.on_notice(&format!(
                    "MCP server {name}: refreshing tools failed: {error}"
                )),
            }
        }
    }

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
        self.agent
            .borrow_mut()
            .start_run(self.clock.now(), prompt)
            .map_err(|e| RunError(e.to_string()))?;
        let mut outcome = None;
        loop {
            self.drain_outputs(observer, &mut outcome);
            let action = self.agent.borrow_mut().poll_action();
            let stopped = match action {
                Some(Action::CallModel(request)) => {
                    let model = Rc::clone(&self.model.borrow());
                    let on_stream = |piece: ModelStream<'_>| match piece {
                        ModelStream::Text(text) => observer.on_text_delta(text),
                        ModelStream::Reasoning(text) => observer.on_reasoning_delta(text),
                    };
                    let work = model.complete(request, &on_stream);
                    unless_interrupted(&self.interrupt, work)
                        .await
                        .map(|response| {
                            let now = self.clock.now();
                            ignore_stale(
                                self.agent.borrow_mut().handle_model_response(now, response),
                            );
                        })
                }
                Some(Action::CallTools(batch)) => {
                    let stopped = unless_interrupted(&self.interrupt, self.run_batch(batch)).await;
                    if stopped.is_ok() {
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
                    unless_interrupted(&self.interrupt, work)
                        .await
                        .map(|ranked| {
                            let now = self.clock.now();
                            ignore_stale(
                                self.agent
                                    .borrow_mut()
                                    .handle_search_result(now, &call_id, ranked),
                            );
                        })
                }
                Some(Action::RequestApproval(request)) => {
                    unless_interrupted(&self.interrupt, observer.approve(&request))
                        .await
                        .map(|answer| {
                            let now = self.clock.now();
                            ignore_stale(self.agent.borrow_mut().handle_approval(
                                now,
                                &request.call_id,
                                answer,
                            ));
                        })
                }
                None => {
                    if !self.agent.borrow().is_running() {
                        break;
                    }
                    // Defensive: a running loop with nothing to do would otherwise spin forever.
                    let now = self.clock.now();
                    ignore_stale(self.agent.borrow_mut().cancel_run(now));
                    Ok(())
                }
            };
            if let Err(reason) = stopped {
                // The wait was dropped: MCP calls in flight were cancelled, local tools stopped.
                let now = self.clock.now();
                ignore_stale(self.agent.borrow_mut().interrupt_run(now, &reason));
            }
        }
        self.drain_outputs(observer, &mut outcome);
        outcome.unwrap_or_else(|| Err(RunError("the run ended without an answer".into())))
    }

    fn drain_outputs(
        &self,
        observer: &dyn RunObserver,
        outcome: &mut Option<Result<String, RunError>>,
    ) {
        loop {
            let (event, record) = {
                let mut agent = self.agent.borrow_mut();
                (agent.poll_event(), agent.poll_audit())
            };
            if event.is_none() && record.is_none() {
                return;
            }
            if let Some(event) = event {
                match &event {
                    UiEvent::Done { answer, .. } => *outcome = Some(Ok(answer.clone())),
                    UiEvent::Error { message } => *outcome = Some(Err(RunError(message.clone()))),
                    _ => {}
                }
                observer.on_event(&event);
            }
            if let Some(record) = record {
                observer.on_audit(&record);
            }
        }
    }

    /// Runs a batch concurrently, feeding each result to the agent as soon as it arrives so
    /// `tool_end` events come out in completion order.
    async fn run_batch(&self, batch: Vec<ToolInvocation>) {
        let mut running: FuturesUnordered<_> = batch
            .into_iter()
            .map(|call| async move {
                let result = self.invoke(&call).await;
                (call.call_id, result)
            })
            .collect();
        while let Some((call_id, result)) = running.next().await {
            let now = self.clock.now();
            ignore_stale(
                self.agent
                    .borrow_mut()
                    .handle_tool_result(now, &call_id, result),
            );
        }
    }

    pub(super) async fn invoke(&self, call: &ToolInvocation) -> Result<ToolOutput, ToolFailure> {
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
                    .call_tool(original_name, call.arguments.clone(), options)
                    .await
                    .map_err(|e| match e {
                        RequestError::Timeout { .. } => ToolFailure::Timeout,
                        RequestError::Cancelled(_) => ToolFailure::Cancelled,
                        other => ToolFailure::Error(format!("MCP server {server}: {other}")),
                    })
            }
            _ => {
                let deadline = self.clock.now() + call.timeout;
                let work: futures::future::LocalBoxFuture<'_, ToolOutput> =
                    if super::resource_tools::is_resource_tool(&call.name) {
                        self.call_resource_tool(&call.name, &call.arguments)
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

    /// Runs `work`, a host's wait outside a run (attaching `@server:uri` mentions, fetching a
    /// prompt), as interruptible as a run: the host's Ctrl-C makes it `Err(reason)`, `work`
    /// dropped (which cancels its MCP requests).
    pub async fn interruptible<T>(
        &self,
        work: impl std::future::Future<Output = T>,
    ) -> Result<T, String> {
        let _active = Active::new(&self.interrupt);
        unless_interrupted(&self.interrupt, work).await
    }

    /// Calls one tool directly (the user's own call, not the model's): deny rules still block
    /// it and it is audited, but it never asks.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        observer: &dyn RunObserver,
    ) -> Result<DirectCallOutput, DirectCallError> {
        let begun = self
            .agent
            .borrow_mut()
            .begin_direct_call(self.clock.now(), name, arguments);
        self.drain_audit(observer);
        let invocation = begun?;
        let result = {
            let _active = Active::new(&self.interrupt);
            unless_interrupted(&self.interrupt, self.invoke(&invocation))
                .await
                .unwrap_or_else(|reason| Err(ToolFailure::Interrupted(reason)))
        };
        Ok(self.finish_call(&invocation, result, observer))
    }

    /// Reports a direct or gated call's result to the agent (one audit record) and gives the
    /// output with what the model would have seen.
    pub(super) fn finish_call(
        &self,
        invocation: &ToolInvocation,
        result: Result<ToolOutput, ToolFailure>,
        observer: &dyn RunObserver,
    ) -> DirectCallOutput {
        let name = &invocation.name;
        let (output, failure) = match &result {
            Ok(output) => (Some(output.clone()), None),
            Err(ToolFailure::Timeout) => (
                None,
                Some(format!(
                    "{name} timed out after {} ms",
                    whole_millis(invocation.timeout)
                )),
            ),
            Err(ToolFailure::Error(message)) => (None, Some(message.clone())),
            Err(ToolFailure::Interrupted(reason)) => {
                (None, Some(format!("{reason} interrupted {name}")))
            }
            Err(_) => (None, Some(format!("{name} was cancelled"))),
        };
        let now = self.clock.now();
        let shaped = self
            .agent
            .borrow_mut()
            .finish_direct_call(now, &invocation.call_id, result);
        self.drain_audit(observer);
        let shaped = shaped.unwrap_or(DirectCallResult {
            text: String::new(),
            truncated: false,
            is_error: true,
        });
        DirectCallOutput {
            output,
            shaped,
            failure,
        }
    }

    pub(super) fn drain_audit(&self, observer: &dyn RunObserver) {
        loop {
            let record = self.agent.borrow_mut().poll_audit();
            match record {
                Some(record) => observer.on_audit(&record),
                None => return,
            }
        }
    }
}

/// Inputs the agent refuses as stale (a late result after a cancel) change nothing; the run
/// goes on, so there is nothing to do with the error.
fn ignore_stale(result: Result<(), AgentError>) {
    let _ = result;
}

/// `{"type": kind, "server": server, ...fields}` for [`RunObserver::on_server_event`]
/// (built by hand: `json!` at each site costs the wasm build more).
fn server_event(kind: &str, server: &str, fields: Vec<(&str, Value)>) -> Value {
    let mut map = serde_json::Map::new();
    map.insert("type".into(), kind.into());
    map.insert("server".into(), server.into());
    for (key, value) in fields {
        map.insert(key.into(), value);
    }
    Value::Object(map)
}

fn push_log(log: &mut VecDeque<String>, line: String) {
    if log.len() == SERVER_LOG_LINES {
        log.pop_front();
    }
    log.push_back(line);
}

fn log_text(data: &Value) -> String {
    match data {
        Value::String(s) => s.clone(),
        other => to_text(other),
    }
}
