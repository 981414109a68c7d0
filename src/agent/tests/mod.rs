//! Transcript tests of the agent loop: a scripted model and scripted tools drive the loop, and
//! the sequence of outputs (events, actions, audit records) is compared with a constant list.

mod chaos;
mod compaction;
mod direct;
mod hooks;
mod instructions;
mod limits;
mod pause;
#[cfg(feature = "skill-set")]
mod plugins;
#[cfg(feature = "skill-set")]
mod skill_api;
#[cfg(feature = "skill-set")]
mod skill_host;
mod stop;
mod transcript_rebuild;
mod transcripts;
mod usage;
mod vetting;

use super::*;
use crate::audit::Outcome;
use crate::content::ToolOutput;
use crate::model::ToolCall;
use crate::registry::{Risk, ToolSpec};
use serde_json::{json, Value};
use std::collections::VecDeque;

/// The model's turn: optional text and tool calls `(id, name, arguments)`.
fn reply(text: Option<&str>, calls: &[(&str, &str, Value)]) -> Result<ModelResponse, String> {
    Ok(ModelResponse {
        usage: None,
        text: text.map(str::to_owned),
        tool_calls: calls
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: (*id).to_owned(),
                name: (*name).to_owned(),
                arguments: arguments.clone(),
            })
            .collect(),
    })
}

fn answer(text: &str) -> Result<ModelResponse, String> {
    Ok(ModelResponse::text(text))
}

pub(super) const GET: &str = "mcp__gh__get_issue";
pub(super) const LIST: &str = "mcp__gh__list_issues";
pub(super) const CREATE: &str = "mcp__gh__create_issue";
pub(super) const DELETE: &str = "mcp__gh__delete_repo";

/// A registry with a GitHub-like MCP server and a built-in shell.
fn registry() -> Registry {
    let mut registry = Registry::new();
    let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
    let report = registry.load_server(
        "gh",
        &[
            tool("get_issue"),
            tool("list_issues"),
            tool("create_issue"),
            tool("delete_repo"),
        ],
    );
    assert!(report.is_clean());
    registry
        .register_builtin(ToolSpec::builtin(
            "shell",
            "Run a command",
            json!({"type": "object"}),
            Risk::Execute,
        ))
        .unwrap();
    registry
}

type ToolFn = Box<dyn FnMut(&ToolInvocation) -> Result<ToolOutput, ToolFailure>>;

/// Drives an [`Agent`] with a scripted model, scripted tools and scripted approvals, and logs
/// every output as one short line.
struct Harness {
    agent: Agent,
    now: u64,
    script: VecDeque<Result<ModelResponse, String>>,
    approvals: VecDeque<Approval>,
    tools: ToolFn,
    /// Answer the calls of a batch last-first, to show results may arrive in any order.
    reverse_batches: bool,
    requests: Vec<ModelRequest>,
    audit: Vec<AuditRecord>,
    log: Vec<String>,
    /// What the host's searcher answers to [`Action::SearchTools`].
    host_ranking: Result<Vec<String>, String>,
    /// What the hooks of an [`Action::RunHooks`] print (default: each exits 0 silently).
    hook_runs: HookFn,
}

type HookFn = Box<dyn FnMut(&HookRequest) -> Vec<crate::hooks::HookRun>>;

impl Harness {
    fn new(policy: Policy, config: AgentConfig) -> Self {
        let mut agent = Agent::new(registry(), policy, config);
        agent.set_transcript_recording(true);
        Harness {
            agent,
            now: 1000,
            script: VecDeque::new(),
            approvals: VecDeque::new(),
            tools: Box::new(|inv| Ok(ToolOutput::text(format!("result of {}", inv.name)))),
            reverse_batches: false,
            requests: Vec::new(),
            audit: Vec::new(),
            log: Vec::new(),
            host_ranking: Ok(Vec::new()),
            hook_runs: Box::new(|request| {
                let ok = crate::hooks::HookRun::exited(0, "", "");
                vec![ok; request.hooks.len()]
            }),
        }
    }

    fn default() -> Self {
        Harness::new(Policy::new(), AgentConfig::default())
    }

    fn script(mut self, replies: impl IntoIterator<Item = Result<ModelResponse, String>>) -> Self {
        self.script.extend(replies);
        self
    }

    fn approvals(mut self, answers: &[Approval]) -> Self {
        self.approvals.extend(answers);
        self
    }

    fn tools(
        mut self,
        f: impl FnMut(&ToolInvocation) -> Result<ToolOutput, ToolFailure> + 'static,
    ) -> Self {
        self.tools = Box::new(f);
        self
    }

    /// Starts a run and drives it until the loop asks for nothing more.
    fn run(&mut self, text: &str) -> Vec<String> {
        self.log.clear();
        self.agent
            .start_run(Instant::from_millis(self.now), text)
            .unwrap();
        self.drive();
        std::mem::take(&mut self.log)
    }

    fn drain(&mut self) -> Vec<Action> {
        while let Some(event) = self.agent.poll_event() {
            self.log.push(render_event(&event));
        }
        while let Some(record) = self.agent.poll_audit() {
            self.log.push(format!(
                "audit {} {}{}",
                record.call_id,
                record.outcome.as_str(),
                if record.truncated { " truncated" } else { "" }
            ));
            self.audit.push(record);
        }
        std::iter::from_fn(|| self.agent.poll_action()).collect()
    }

    fn drive(&mut self) {
        loop {
            let actions = self.drain();
            if actions.is_empty() {
                return;
            }
            for action in actions {
                self.perform(action);
            }
        }
    }

    fn tick(&mut self, ms: u64) -> Instant {
        self.now += ms;
        Instant::from_millis(self.now)
    }

    fn perform(&mut self, action: Action) {
        match action {
            Action::CallModel(request) => {
                self.log.push("model".into());
                self.requests.push(request);
                let reply = self
                    .script
                    .pop_front()
                    .unwrap_or_else(|| Err("script exhausted".into()));
                let now = self.tick(10);
                self.agent.handle_model_response(now, reply).unwrap();
            }
            Action::CallTools(mut invocations) => {
                let ids: Vec<_> = invocations.iter().map(|i| i.call_id.as_str()).collect();
                self.log.push(format!("tools {}", ids.join(",")));
                if self.reverse_batches {
                    invocations.reverse();
                }
                for invocation in invocations {
                    let result = (self.tools)(&invocation);
                    let now = self.tick(5);
                    self.agent
                        .handle_tool_result(now, &invocation.call_id, result)
                        .unwrap();
                }
            }
            Action::SearchTools(request) => {
                self.log
                    .push(format!("search {} {}", request.call_id, request.query));
                let ranking = self.host_ranking.clone();
                let now = self.tick(2);
                self.agent
                    .handle_search_result(now, &request.call_id, ranking)
                    .unwrap();
            }
            Action::RunHooks(request) => {
                self.log.push(format!(
                    "hooks {} {}",
                    request.event.as_str(),
                    request.call_id
                ));
                let runs = (self.hook_runs)(&request);
                let now = self.tick(1);
                let taken = self
                    .agent
                    .handle_hook_runs(now, &request.call_id, request.event, runs);
                // Runs drained before a hook stopped the run are stale, as after a cancel.
                assert!(taken.is_ok() || !self.agent.is_running(), "{taken:?}");
            }
            Action::RequestApproval(request) => {
                self.log.push(format!("ask {}", request.call_id));
                let answer = self.approvals.pop_front().expect("approval script ran out");
                let now = self.tick(1);
                self.agent
                    .handle_approval(now, &request.call_id, answer)
                    .unwrap();
            }
        }
    }

    /// Every tool message the last model request carries (the whole conversation's), as
    /// `(id, content, is_error)`.
    fn all_tool_results(&self) -> Vec<(String, String, bool)> {
        let request = self.requests.last().expect("no model request");
        let mut results = Vec::new();
        for message in &request.messages {
            if let ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } = message
            {
                results.push((tool_call_id.clone(), content.clone(), *is_error));
            }
        }
        results
    }

    /// The tool messages of the last model request, as `(id, content, is_error)`.
    fn last_tool_results(&self) -> Vec<(String, String, bool)> {
        let mut results = self.all_tool_results();
        let request = self.requests.last().expect("no model request");
        let trailing = request
            .messages
            .iter()
            .rev()
            .take_while(|m| matches!(m, ChatMessage::Tool { .. }))
            .count();
        results.split_off(results.len() - trailing)
    }

    fn outcomes(&self) -> Vec<(String, Outcome)> {
        self.audit
            .iter()
            .map(|r| (r.call_id.clone(), r.outcome))
            .collect()
    }
}

fn render_event(event: &UiEvent) -> String {
    match event {
        UiEvent::StepStart { step } => format!("step {step}"),
        UiEvent::ModelText { text } => format!("text: {text}"),
        UiEvent::ToolStart { id, name, .. } => format!("start {id} {name}"),
        UiEvent::ToolEnd {
            id, ok, truncated, ..
        } => format!(
            "end {id} {}{}",
            if *ok { "ok" } else { "err" },
            if *truncated { " truncated" } else { "" }
        ),
        UiEvent::ToolProgress { id, progress, .. } => format!("progress {id} {progress}"),
        UiEvent::ApprovalRequest { id, risk, .. } => format!("approve? {id} {risk}"),
        UiEvent::ToolSearch { query, results } => format!("found {query:?}: {results:?}"),
        UiEvent::Error { message } => format!("error: {message}"),
        UiEvent::HookNotice { event, message } => format!("notice {event}: {message}"),
        UiEvent::CommandExpanded { qualified, .. } => format!("expanded /{qualified}"),
        UiEvent::Subagent { agent, event, .. } => format!("[{agent}] {}", render_event(event)),
        UiEvent::StepEnd { step, usage } => format!("step {step} {}", usage.summary()),
        UiEvent::Done {
            answer,
            steps,
            usage: None,
            ..
        } => format!("done {steps}: {answer}"),
        UiEvent::Done {
            answer,
            steps,
            usage: Some(usage),
            ..
        } => format!("done {steps}: {answer} ({})", usage.summary()),
        UiEvent::Paused { pending } => {
            let ids: Vec<_> = pending.iter().map(|p| p.id.as_str()).collect();
            format!("paused {}", ids.join(","))
        }
        UiEvent::Compacted {
            mode,
            tokens_before,
            tokens_after,
        } => format!(
            "compacted {} {tokens_before}->{tokens_after}",
            mode.as_str()
        ),
    }
}

/// History consistency: every assistant tool call is answered, in order, right after it.
fn assert_history_consistent(history: &[ChatMessage]) {
    let mut i = 0;
    while i < history.len() {
        if let ChatMessage::Assistant { tool_calls, .. } = &history[i] {
            for (k, call) in tool_calls.iter().enumerate() {
                match history.get(i + 1 + k) {
                    Some(ChatMessage::Tool { tool_call_id, .. }) => {
                        assert_eq!(tool_call_id, &call.id, "result order at {}", i + 1 + k)
                    }
                    other => panic!("call {} has no result, found {other:?}", call.id),
                }
            }
            i += tool_calls.len();
        }
        i += 1;
    }
}
