//! A test host for the whole runtime: a local executor, a manual clock, an observer that keeps
//! everything it is told, and models that record what they are asked.

use super::async_io::ManualClock;
use super::stepper::Stepper;
use agentwire::agent::{Agent, AgentConfig, Approval, ApprovalRequest, UiEvent};
use agentwire::audit::AuditRecord;
use agentwire::driver::{
    McpClient, ModelBackend, ModelStream, NoLocalTools, RunError, RunObserver, Runtime, Transport,
};
use agentwire::mcp::SessionConfig;
use agentwire::model::{ChatMessage, ModelRequest, ModelResponse, ToolCall};
use agentwire::policy::Policy;
use agentwire::registry::Registry;
use futures::executor::LocalPool;
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// The runtime with everything a host would give it, all in memory.
pub struct Host {
    /// Runs connection drivers and scripted servers.
    pub pool: LocalPool,
    /// The clock the runtime and every connection use.
    pub clock: ManualClock,
    /// The runtime under test.
    pub runtime: Runtime<ManualClock>,
}

impl Host {
    /// A host over `agent` and `model`, without local tools.
    pub fn new(agent: Agent, model: Rc<dyn ModelBackend>) -> Self {
        let clock = ManualClock::default();
        Host {
            pool: LocalPool::new(),
            runtime: Runtime::new(agent, model, Rc::new(NoLocalTools), clock.clone()),
            clock,
        }
    }

    /// A host with an empty registry, `policy`, and the default configuration.
    pub fn with_policy(policy: Policy, model: Rc<dyn ModelBackend>) -> Self {
        Self::new(
            Agent::new(Registry::new(), policy, AgentConfig::default()),
            model,
        )
    }

    /// Connects to a server over `transport` (handshake included).
    pub fn connect<T: Transport + 'static>(&mut self, transport: T) -> McpClient {
        let spawner = self.pool.spawner();
        let spawn = move |f| spawner.spawn_local(f).expect("the pool accepts tasks");
        let connect = McpClient::connect(
            SessionConfig::default(),
            transport,
            self.clock.clone(),
            spawn,
        );
        let (client, _) = Stepper::new(connect)
            .step(&mut self.pool)
            .expect("the handshake finishes without the clock moving")
            .expect("the handshake succeeds");
        client
    }

    /// Connects over `transport` and adds the server as `name`; returns its client.
    pub fn add_server<T: Transport + 'static>(&mut self, name: &str, transport: T) -> McpClient {
        let client = self.connect(transport);
        let added = Stepper::new(self.runtime.add_server(name, client.clone()))
            .step(&mut self.pool)
            .expect("tools/list finishes without the clock moving");
        added.unwrap_or_else(|e| panic!("adding server {name} failed: {e}"));
        client
    }

    /// Runs one user turn that needs no clock movement; panics if it stalls.
    pub fn run(&mut self, prompt: &str, observer: &Observer) -> Result<String, RunError> {
        Stepper::new(self.runtime.run(prompt, observer))
            .step(&mut self.pool)
            .unwrap_or_else(|| panic!("the run of {prompt:?} stalled"))
    }

    /// The conversation so far.
    pub fn history(&self) -> Vec<ChatMessage> {
        self.runtime.with_agent(|a| a.history().to_vec())
    }
}

/// A [`RunObserver`] that keeps a transcript and answers approvals from a script.
#[derive(Default)]
pub struct Observer {
    /// UI events as one-line summaries ([`summary`]), in the order they arrived. Audit records
    /// are kept apart: the two streams are independent, so their interleaving means nothing.
    pub log: RefCell<Vec<String>>,
    /// Every UI event.
    pub events: RefCell<Vec<UiEvent>>,
    /// Every audit record.
    pub audits: RefCell<Vec<AuditRecord>>,
    /// Every notice from the runtime.
    pub notices: RefCell<Vec<String>>,
    /// What the model streamed, as `"text: …"` and `"reasoning: …"`, in order.
    pub streamed: RefCell<Vec<String>>,
    /// Every approval request, in order.
    pub asked: RefCell<Vec<ApprovalRequest>>,
    /// Answers to give, in order; an unscripted question is answered `No`.
    pub answers: RefCell<VecDeque<Approval>>,
}

impl Observer {
    /// An observer that will answer approvals with `answers`, in order.
    pub fn answering(answers: impl IntoIterator<Item = Approval>) -> Self {
        let observer = Observer::default();
        observer.answers.borrow_mut().extend(answers);
        observer
    }

    /// The transcript so far, and forgets it.
    pub fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut self.log.borrow_mut())
    }

    /// `"<call id> <tool> <outcome>"` for every audit record so far, in order.
    pub fn audit_log(&self) -> Vec<String> {
        self.audits
            .borrow()
            .iter()
            .map(|r| format!("{} {} {}", r.call_id, r.tool, r.outcome.as_str()))
            .collect()
    }

    /// The audit records so far, and forgets them.
    pub fn take_audits(&self) -> Vec<AuditRecord> {
        std::mem::take(&mut self.audits.borrow_mut())
    }
}

/// The key fields of an event: what a transcript compares.
pub fn summary(event: &UiEvent) -> String {
    match event {
        UiEvent::StepStart { step } => format!("step_start {step}"),
        // Model text is long and checked on its own; the transcript notes that it came.
        UiEvent::ModelText { .. } => "model_text".to_owned(),
        UiEvent::ToolStart { id, name, args } => format!("tool_start {id} {name} {args}"),
        UiEvent::ToolEnd { id, name, ok, .. } => format!("tool_end {id} {name} ok={ok}"),
        UiEvent::ApprovalRequest { id, name, risk, .. } => {
            format!("approval_request {id} {name} {risk}")
        }
        UiEvent::Error { message } => format!("error {message}"),
        UiEvent::Done { steps, .. } => format!("done steps={steps}"),
        other => other.kind().to_owned(),
    }
}

impl RunObserver for Observer {
    fn on_event(&self, event: &UiEvent) {
        self.log.borrow_mut().push(summary(event));
        self.events.borrow_mut().push(event.clone());
    }

    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> LocalBoxFuture<'a, Approval> {
        self.asked.borrow_mut().push(request.clone());
        let answer = self
            .answers
            .borrow_mut()
            .pop_front()
            .unwrap_or(Approval::No);
        Box::pin(async move { answer })
    }

    fn on_audit(&self, record: &AuditRecord) {
        self.audits.borrow_mut().push(record.clone());
    }

    fn on_notice(&self, message: &str) {
        self.notices.borrow_mut().push(message.to_owned());
    }

    fn on_text_delta(&self, text: &str) {
        self.streamed.borrow_mut().push(format!("text: {text}"));
    }

    fn on_reasoning_delta(&self, text: &str) {
        self.streamed
            .borrow_mut()
            .push(format!("reasoning: {text}"));
    }
}

/// A model that answers from a script and records every request it gets.
#[derive(Default)]
pub struct ScriptedModel {
    script: RefCell<VecDeque<ModelResponse>>,
    /// Every request, in order.
    pub requests: RefCell<Vec<ModelRequest>>,
}

impl ScriptedModel {
    /// A model that will give `responses`, in order, then fail.
    pub fn new(responses: impl IntoIterator<Item = ModelResponse>) -> Rc<Self> {
        Rc::new(ScriptedModel {
            script: RefCell::new(responses.into_iter().collect()),
            requests: RefCell::new(Vec::new()),
        })
    }

    /// The tool messages at the end of request `index` (what the model was told about the
    /// calls of its previous turn), as `(call id, content, is_error)`.
    pub fn tool_results(&self, index: usize) -> Vec<(String, String, bool)> {
        let requests = self.requests.borrow();
        let messages = &requests[index].messages;
        let start = messages
            .iter()
            .rposition(|m| !matches!(m, ChatMessage::Tool { .. }))
            .map_or(0, |i| i + 1);
        messages[start..]
            .iter()
            .filter_map(|m| match m {
                ChatMessage::Tool {
                    tool_call_id,
                    content,
                    is_error,
                    ..
                } => Some((tool_call_id.clone(), content.clone(), *is_error)),
                _ => None,
            })
            .collect()
    }
}

impl ModelBackend for ScriptedModel {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        _on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        self.requests.borrow_mut().push(request);
        let next = self.script.borrow_mut().pop_front();
        Box::pin(
            async move { next.ok_or_else(|| "the scripted model ran out of responses".into()) },
        )
    }
}

/// Records the requests to another model and passes them on.
pub struct RecordingModel<M> {
    inner: M,
    /// Every request, in order.
    pub requests: RefCell<Vec<ModelRequest>>,
}

impl<M: ModelBackend> RecordingModel<M> {
    /// Wraps `inner`.
    pub fn new(inner: M) -> Rc<Self> {
        Rc::new(RecordingModel {
            inner,
            requests: RefCell::new(Vec::new()),
        })
    }
}

impl<M: ModelBackend> ModelBackend for RecordingModel<M> {
    fn complete<'a>(
        &'a self,
        request: ModelRequest,
        on_stream: &'a dyn Fn(ModelStream<'_>),
    ) -> LocalBoxFuture<'a, Result<ModelResponse, String>> {
        self.requests.borrow_mut().push(request.clone());
        self.inner.complete(request, on_stream)
    }
}

/// A model turn that calls tools: `(id, name, arguments)` each.
pub fn calls(list: &[(&str, &str, Value)]) -> ModelResponse {
    ModelResponse {
        usage: None,
        text: None,
        tool_calls: list
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: (*id).to_owned(),
                name: (*name).to_owned(),
                arguments: arguments.clone(),
            })
            .collect(),
    }
}

/// A final answer.
pub fn answer(text: &str) -> ModelResponse {
    ModelResponse::text(text)
}
