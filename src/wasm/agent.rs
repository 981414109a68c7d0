//! `WasmAgent`: the runtime as a JS class (wrapped by the JS layer's `Agent`).

use super::backends::{JsModel, JsObserver, JsTools};
use super::clock::{spawn, JsClock};
use super::transport::{JsTransport, Probe};
use crate::agent::{Agent, AgentConfig};
use crate::driver::{DirectCallOutput, LocalTools, McpClient, Runtime, ServerStatus};
use crate::json::to_text;
use crate::mcp::{Root, SessionConfig};
use crate::policy::{Policy, RuleKind};
use crate::registry::{Registry, Risk, ToolLimits, ToolSource, ToolSpec};
use js_sys::{Function, Promise};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

pub(super) type JsRuntime = Runtime<JsClock>;

/// The agent runtime for JS: the agent loop, its MCP servers, JS tools and a model.
#[wasm_bindgen]
pub struct WasmAgent {
    runtime: Rc<JsRuntime>,
    tools: Rc<JsTools>,
    stop: Rc<RefCell<RunStop>>,
    /// Whether the host listens to audit records (`auditEvents` in the config).
    audit_events: bool,
    /// Where transcript entries go (`setSession`): runs then pause for approvals nobody answers.
    session: Rc<RefCell<Option<crate::driver::TranscriptSink>>>,
}

/// What a run starts from: the user's prompt, a paused run's decisions (call id, answer), or
/// a compaction now (its focus), which resolves to nothing.
pub(super) enum Start {
    Prompt(String),
    Resume(Vec<(String, crate::agent::Approval)>),
    Compact(Option<String>),
}

/// A stop asked for between `run()` and the run's first step (the runtime only accepts one
/// once the run is active), kept for that step; `in_run` says a run's future is alive, so a
/// stop arriving after it ended is never kept for the next run.
#[derive(Default)]
struct RunStop {
    in_run: bool,
    pending: Option<String>,
}

fn parse_object(text: &str, what: &str) -> Result<Map<String, Value>, JsError> {
    match crate::json::parse_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(JsError::new(&format!("{what} must be a JSON object"))),
        Err(e) => Err(JsError::new(&format!("{what} is not JSON: {e}"))),
    }
}

fn millis(obj: &Map<String, Value>, key: &str) -> Option<Duration> {
    obj.get(key)
        .and_then(Value::as_f64)
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| Duration::from_millis(ms as u64))
}

fn count(obj: &Map<String, Value>, key: &str) -> Option<u64> {
    obj.get(key).and_then(Value::as_u64)
}

fn config_from(obj: &Map<String, Value>) -> AgentConfig {
    let mut config = AgentConfig::default();
    if let Some(prompt) = obj.get("systemPrompt").and_then(Value::as_str) {
        config.system_prompt = prompt.to_owned();
    }
    if let Some(n) = count(obj, "maxSteps") {
        config.max_steps = u32::try_from(n).unwrap_or(u32::MAX);
    }
    if let Some(n) = count(obj, "maxIdenticalCalls") {
        config.max_identical_calls = u32::try_from(n).unwrap_or(u32::MAX);
    }
    if let Some(n) = count(obj, "outputBudgetChars") {
        config.output_budget_chars = usize::try_from(n).unwrap_or(usize::MAX);
    }
    if let Some(n) = count(obj, "previewChars") {
        config.preview_chars = usize::try_from(n).unwrap_or(usize::MAX);
    }
    // The window also sets the compaction threshold (`compactAt` percent, `compact: false`).
    config.context.window = count(obj, "contextWindow");
    if let Some(pct) = count(obj, "compactAt") {
        config.context.compact_at_pct = u8::try_from(pct.clamp(1, 100)).unwrap_or(100);
    }
    if obj.get("compact").and_then(Value::as_bool) == Some(false) {
        config.context.auto_compact = false;
    }
    config
}

/// `instructions: {text, pathRules}` (what `loadInstructions` returns): the text after the
/// system prompt, fixed for the agent's conversations, and the rules that join by path.
fn instructions_from(obj: &Map<String, Value>, agent: &mut Agent) -> Result<(), JsError> {
    let Some(value) = obj.get("instructions").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let text = value
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let path_rules = match value.get("pathRules").filter(|v| !v.is_null()) {
        Some(rules) => {
            crate::instructions::path_rules_from_json(rules).map_err(|e| JsError::new(&e))?
        }
        None => Default::default(),
    };
    let found = crate::instructions::Instructions {
        text: text.to_owned(),
        path_rules,
        ..Default::default()
    };
    let base = agent.config().system_prompt.clone();
    agent
        .set_instructions(&base, &found)
        .map_err(|e| JsError::new(&e.to_string()))
}

fn policy_from(obj: &Map<String, Value>) -> Result<Policy, JsError> {
    let mut policy = Policy::new();
    for kind in [RuleKind::Allow, RuleKind::Ask, RuleKind::Deny] {
        let Some(Value::Array(patterns)) = obj.get(kind.as_str()) else {
            continue;
        };
        for pattern in patterns {
            let text = pattern.as_str().unwrap_or_default();
            policy
                .add_rule(kind, text)
                .map_err(|e| JsError::new(&format!("{}: {e}", kind.as_str())))?;
        }
    }
    Ok(policy)
}

/// Limits from `toolTimeoutMs` / `maxOutputChars`, over `base`.
fn limits_from(obj: &Map<String, Value>, base: ToolLimits) -> ToolLimits {
    ToolLimits {
        timeout: millis(obj, "toolTimeoutMs").unwrap_or(base.timeout),
        max_output_chars: count(obj, "maxOutputChars")
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .unwrap_or(base.max_output_chars),
    }
}

fn tool_value(spec: &ToolSpec) -> Value {
    let mut v = json!({
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
        "risk": spec.risk.as_str(),
        "source": "builtin",
        "timeoutMs": u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX),
        "maxOutputChars": spec.max_output_chars,
        "concurrencySafe": spec.concurrency_safe,
    });
    if let ToolSource::Mcp {
        server,
        original_name,
    } = &spec.source
    {
        v["source"] = "mcp".into();
        v["server"] = server.as_str().into();
        v["originalName"] = original_name.as_str().into();
    }
    if let Some(plugin) = spec.plugin() {
        v["plugin"] = plugin.into();
    }
    match &spec.source {
        ToolSource::Plugin { original_name, .. } => {
            v["source"] = "plugin".into();
            v["originalName"] = original_name.as_str().into();
        }
        ToolSource::Skill => v["source"] = "skill".into(),
        ToolSource::Subagent => v["source"] = "subagent".into(),
        _ => {}
    }
    if let Some(annotations) = &spec.annotations {
        v["annotations"] = annotations.clone();
    }
    v
}

fn server_value(runtime: &JsRuntime, name: &str, status: &ServerStatus) -> Value {
    let mut v = json!({"name": name, "status": status.as_str(), "log": runtime.server_log(name)});
    match status {
        ServerStatus::Connected { tools } => v["tools"] = (*tools).into(),
        ServerStatus::Failed { reason } => v["error"] = reason.as_str().into(),
        _ => {}
    }
    if let Some(details) = runtime.client(name).and_then(|c| c.server()) {
        v["serverInfo"] = details.server_info;
        v["protocolVersion"] = details.protocol_version.into();
        v["era"] = details.era.as_str().into();
        let extensions = runtime
            .client(name)
            .map(|c| c.extensions())
            .unwrap_or_default();
        if !extensions.is_empty() {
            v["extensions"] = extensions.into();
        }
    }
    v
}

fn server_status(runtime: &JsRuntime, name: &str) -> Value {
    let status = runtime
        .servers()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, status)| status);
    match status {
        Some(status) => server_value(runtime, name, &status),
        None => json!({"name": name, "status": "failed", "error": "the server was removed"}),
    }
}

fn direct_output_value(out: DirectCallOutput) -> Value {
    let mut v = match &out.output {
        Some(output) => output.to_mcp_value(),
        None => json!({"content": []}),
    };
    v["isError"] = out.shaped.is_error.into();
    v["text"] = out.shaped.text.into();
    v["truncated"] = out.shaped.truncated.into();
    if let Some(failure) = out.failure {
        v["error"] = failure.into();
    }
    v
}

/// Connects `name` over `transport` and registers its tools; failures are recorded on the
/// server, never raised. Resolves to the server's status.
async fn attach(
    runtime: Rc<JsRuntime>,
    name: String,
    options: Map<String, Value>,
    transport: Result<JsTransport, String>,
    probe: Rc<RefCell<Probe>>,
) -> Value {
    runtime.with_agent(|agent| {
        let registry = agent.registry_mut();
        let limits = limits_from(&options, registry.limits_for(&name));
        registry.set_server_limits(&name, limits);
        if let Some(defer) = super::tool_search::server_defer(&options) {
            agent.config_mut().tool_search.set_server(&name, defer);
        }
    });
    let transport = match transport {
        Ok(transport) => transport,
        Err(reason) => {
            runtime.add_failed_server(&name, &reason);
            return server_status(&runtime, &name);
        }
    };
    // `auto` as natively: a `server/discover` probe, `initialize` for a legacy server.
    let mut config = SessionConfig {
        protocol: crate::mcp::ProtocolChoice::Auto,
        ..SessionConfig::default()
    };
    if let Some(protocol) = options.get("protocol").and_then(Value::as_str) {
        match crate::mcp::ProtocolChoice::parse(protocol) {
            Ok(choice) => config.protocol = choice,
            Err(reason) => {
                runtime.add_failed_server(&name, &reason);
                return server_status(&runtime, &name);
            }
        }
    }
    if let Some(timeout) = millis(&options, "timeoutMs") {
        config.initialize_timeout = timeout;
        config.request_timeout = timeout;
    }
    // The agent's roots (checked by the JS layer), answered by the session itself.
    if let Some(Value::Array(roots)) = options.get("roots") {
        config.fixed_roots = roots
            .iter()
            .filter_map(|root| {
                Some(Root {
                    uri: root.get("uri")?.as_str()?.to_owned(),
                    name: root.get("name").and_then(Value::as_str).map(str::to_owned),
                })
            })
            .collect();
    }
    // Only for servers the host let use the model (`sampling: true`): it spends the user's
    // model budget.
    let on = |key: &str| options.get(key) == Some(&Value::Bool(true));
    let sampling = on("sampling");
    config.sampling = sampling;
    // The 2026-07-28 extensions the host opted this server in to (as `.mcp.json` does).
    config.tasks = on("tasks");
    config.skills = on("skills");
    let handler = sampling.then(|| runtime.sampling_handler());
    match McpClient::connect_serving(config, transport, JsClock, spawn, handler).await {
        Ok((client, _)) => {
            // A failed tools/list is recorded on the server by add_server itself.
            let _ = runtime.add_server(&name, client).await;
        }
        Err(error) => {
            let mut reason = error.0;
            if let Some(bad) = probe.borrow_mut().bad_message.take() {
                reason.push_str(&format!("; it sent a message that is not JSON-RPC ({bad})"));
            }
            runtime.add_failed_server(&name, &reason);
        }
    }
    server_status(&runtime, &name)
}

fn resolve_json(value: Value) -> Result<JsValue, JsValue> {
    Ok(JsValue::from_str(&to_text(&value)))
}

impl WasmAgent {
    /// The runtime, for the other binding modules.
    pub(super) fn runtime(&self) -> &Rc<JsRuntime> {
        &self.runtime
    }

    /// The JS functions behind local tools, for the other binding modules.
    pub(super) fn js_tools(&self) -> &Rc<JsTools> {
        &self.tools
    }

    /// The session's transcript sink, for the session module.
    pub(super) fn session(&self) -> &Rc<RefCell<Option<crate::driver::TranscriptSink>>> {
        &self.session
    }
}

#[wasm_bindgen]
impl WasmAgent {
    /// An agent from `config_json` (`allow`, `ask`, `deny`, `systemPrompt`, `maxSteps`,
    /// `maxIdenticalCalls`, `outputBudgetChars`, `previewChars`, `toolTimeoutMs`,
    /// `maxOutputChars`, `toolSearch`, `contextWindow`, `instructions`, `agents`, `maxAgentDepth`,
    /// `agentTokenBudget`, `auditEvents`: whether `emit` gets audit records) and a model (`complete(requestJson) → Promise<responseJson>`; the JS
    /// layer wraps the mock model, which lives in the mocks module, into one too). An invalid
    /// permission pattern throws.
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str, model: Function) -> Result<WasmAgent, JsError> {
        let options = parse_object(config_json, "the agent options")?;
        let policy = policy_from(&options)?;
        let mut registry = Registry::new();
        registry.set_default_limits(limits_from(&options, ToolLimits::default()));
        let mut config = config_from(&options);
        config.tool_search = super::tool_search::config_from(&options);
        let mut agent = Agent::new(registry, policy, config);
        instructions_from(&options, &mut agent)?;
        if let Some(n) = count(&options, "skillCatalogChars") {
            agent.set_skill_catalog_chars(usize::try_from(n).unwrap_or(usize::MAX));
        }
        let tools = Rc::new(JsTools::default());
        let local: Rc<dyn LocalTools> = tools.clone();
        let runtime = Runtime::new(agent, Rc::new(JsModel::new(model)), local, JsClock);
        super::subagents::configure(&runtime, &options)?;
        Ok(WasmAgent {
            runtime: Rc::new(runtime),
            tools,
            stop: Rc::default(),
            audit_events: options.get("auditEvents") == Some(&Value::Bool(true)),
            session: Rc::default(),
        })
    }

    /// Replaces the model; takes effect at the next model call.
    #[wasm_bindgen(js_name = setModel)]
    pub fn set_model(&self, model: Function) {
        self.runtime.set_model(Rc::new(JsModel::new(model)));
    }

    /// Connects MCP server `name` over a JS transport `{ send(line), start(onMessage,
    /// onClose), close() }` (the mock GitHub server too: it lives in the mocks module, behind
    /// such an object). `options_json`: `timeoutMs`, `toolTimeoutMs`, `maxOutputChars`,
    /// `sampling`, `defer`, `alwaysLoad`, `protocol`, `tasks`, `skills`.
    /// Resolves to the server's status JSON; never rejects.
    pub fn connect(&self, name: String, transport: JsValue, options_json: &str) -> Promise {
        let runtime = Rc::clone(&self.runtime);
        let mut options = parse_object(options_json, "the connect options").unwrap_or_default();
        // A plugin's server (the JS layer's `agent.use`, never a user option): named
        // `plugin_<p>_<s>`, and never offered sampling.
        let name = match options.remove("plugin") {
            Some(Value::String(plugin)) => {
                options.remove("sampling");
                crate::registry::names::plugin_server_name(&plugin, &name)
            }
            _ => name,
        };
        future_to_promise(async move {
            let probe = Rc::new(RefCell::new(Probe::default()));
            let transport = JsTransport::new(transport, Rc::clone(&probe));
            resolve_json(attach(runtime, name, options, transport, probe).await)
        })
    }

    /// Disconnects server `name` and removes its tools; false when there was none.
    pub fn disconnect(&self, name: &str) -> bool {
        self.runtime.remove_server(name)
    }

    /// Registers a JS tool. `spec_json`: `name`, `description`, `inputSchema`, `risk`,
    /// `timeoutMs`?, `maxOutputChars`?, and for a plugin's tool `plugin` (+ `trusted`): it is
    /// then `plugin__<plugin>__<name>`, its declared risk counting only when not lower than the
    /// name suggests unless trusted. `execute(argsJson) → Promise<CallToolResult JSON>`.
    /// Returns the registered name; a bad name, a taken or reserved name or an unknown risk
    /// throws.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, spec_json: &str, execute: Function) -> Result<String, JsError> {
        let spec = parse_object(spec_json, "the tool")?;
        let text = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or_default();
        let risk = Risk::parse(text("risk")).map_err(|e| JsError::new(&e))?;
        let schema = spec
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        let limits = self
            .runtime
            .with_agent(|agent| limits_from(&spec, agent.registry().limits_for("")));
        let tool = ToolSpec::builtin(text("name"), text("description"), schema, risk)
            .with_timeout(limits.timeout)
            .with_max_output_chars(limits.max_output_chars);
        let trusted = spec.get("trusted") == Some(&Value::Bool(true));
        let name = self
            .runtime
            .with_agent(|agent| match spec.get("plugin").and_then(Value::as_str) {
                Some(plugin) => agent
                    .registry_mut()
                    .register_plugin_tool(plugin, tool, trusted),
                None => {
                    let name = tool.name.clone();
                    agent.registry_mut().register_builtin(tool).map(|()| name)
                }
            })
            .map_err(|e| JsError::new(&e.to_string()))?;
        self.tools.insert(&name, execute);
        Ok(name)
    }

    /// Removes JS tool `name`; false when there was none.
    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&self, name: &str) -> bool {
        let removed = self
            .runtime
            .with_agent(|agent| agent.registry_mut().unregister_builtin(name).is_some());
        if removed {
            self.tools.remove(name);
        }
        removed
    }

    /// Every tool in the registry as a JSON array of `{name, description, inputSchema, risk,
    /// source, server?, originalName?, timeoutMs, maxOutputChars, concurrencySafe, loading,
    /// estimatedTokens}`.
    pub fn tools(&self) -> String {
        let tools: Vec<Value> = self.runtime.with_agent(|agent| {
            let all = agent.tool_loading();
            // A plain loop (no `zip`/`collect` instances); the loading list is in registry order.
            let mut tools = Vec::with_capacity(all.len());
            for (spec, loading) in agent.registry().tools().iter().zip(&all) {
                let mut v = tool_value(spec);
                v["loading"] = loading.loading.as_str().into();
                v["estimatedTokens"] = loading.estimated_tokens.into();
                tools.push(v);
            }
            tools
        });
        to_text(&Value::Array(tools))
    }

    /// Every server with its status, as a JSON array.
    pub fn servers(&self) -> String {
        let servers: Vec<Value> = self
            .runtime
            .servers()
            .iter()
            .map(|(name, status)| server_value(&self.runtime, name, status))
            .collect();
        to_text(&Value::Array(servers))
    }

    /// The conversation so far, as a JSON array of transcript entries (one per message).
    pub fn history(&self) -> String {
        let entries: Vec<Value> = self.runtime.with_agent(|agent| {
            let history = agent.history();
            let entry = |m| crate::transcript::Entry::from_message(m, None).to_value();
            history.iter().map(entry).collect()
        });
        to_text(&Value::Array(entries))
    }

    /// Replaces the conversation with `messages_json` (an array of messages in the core's
    /// shape, as `history()` gives them); throws naming the first bad message, or while a run
    /// is active.
    #[wasm_bindgen(js_name = setHistory)]
    pub fn set_history(&self, messages_json: &str) -> Result<(), JsError> {
        let value = crate::json::parse_str(messages_json)
            .map_err(|e| JsError::new(&format!("the messages are not JSON: {e}")))?;
        let Value::Array(list) = value else {
            return Err(JsError::new("\"messages\" must be an array"));
        };
        let messages = list
            .iter()
            .enumerate()
            .map(|(i, m)| {
                super::request::message_from_value(m).map_err(|e| format!("messages[{i}]: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| JsError::new(&e))?;
        self.runtime
            .with_agent(|agent| agent.set_history(messages))
            .map_err(|e| JsError::new(&e.to_string()))?;
        self.record_set_history();
        Ok(())
    }

    /// What the next request would take of the context window, as JSON
    /// (`{system, tools, skills, history, total, window?, free?, compact_at?, measured}`).
    pub fn context(&self) -> String {
        let report = self.runtime.with_agent(|agent| agent.context_report());
        to_text(&report.to_value())
    }

    /// Starts a new conversation; throws while a run is active.
    #[wasm_bindgen(js_name = clearHistory)]
    pub fn clear_history(&self) -> Result<(), JsError> {
        self.runtime
            .with_agent(Agent::clear_history)
            .map_err(|e| JsError::new(&e.to_string()))?;
        // A session's store hears of it now, not with the next run.
        self.runtime.flush_transcript();
        Ok(())
    }

    /// Starts what `what` names, one export for the three (each export costs the module its
    /// own glue): `"run"` one user turn on the prompt `text`, `"resume"` a paused run with the
    /// decisions `text` (`{callId: "yes" | "no" | "always"}`: approved calls run once, rejected
    /// ones reach the model as declined), `"compact"` a compaction now with a summary the model
    /// writes (`text`, if any, steers it). Events go to `emit(json)`, approvals to
    /// `approve(requestJson)` (none and a session: the run may pause). Resolves to the final
    /// answer (nothing for a compaction); rejects with the reason a run ended without one,
    /// while a run is active, or when a summary request fails.
    pub fn begin(
        &self,
        what: &str,
        text: Option<String>,
        emit: Function,
        approve: Option<Function>,
    ) -> Promise {
        let start = match what {
            "run" => Start::Prompt(text.unwrap_or_default()),
            "compact" => Start::Compact(text),
            "resume" => match super::session::decisions_from(text.as_deref().unwrap_or_default()) {
                Ok(decisions) => Start::Resume(decisions),
                Err(e) => return Promise::reject(&JsError::new(&e).into()),
            },
            _ => {
                let e = "begin: expected \"run\", \"resume\" or \"compact\"";
                return Promise::reject(&JsError::new(e).into());
            }
        };
        self.start(start, emit, approve)
    }

    /// The promise of a run, new, resumed or a compaction ([`WasmAgent::begin`]): one async
    /// body for all, so the module carries one copy of it; a stop asked for before its first
    /// step reaches it as it reaches a run.
    fn start(&self, start: Start, emit: Function, approve: Option<Function>) -> Promise {
        let runtime = Rc::clone(&self.runtime);
        let stop = Rc::clone(&self.stop);
        stop.borrow_mut().in_run = true;
        let audit = self.audit_events;
        let pause = self.session.borrow().is_some();
        future_to_promise(async move {
            let observer = JsObserver::new(emit, approve, audit).pausing(pause);
            // `@server:uri` mentions were attached by the JS layer (`agent.run`), over `mcp`.
            let handle = runtime.interrupt_handle();
            let run = async {
                match &start {
                    Start::Prompt(prompt) => runtime.run(prompt, &observer).await.map(Some),
                    Start::Resume(decisions) => {
                        runtime.resume(decisions, &observer).await.map(Some)
                    }
                    Start::Compact(focus) => runtime
                        .compact(focus.as_deref(), &observer)
                        .await
                        .map(|()| None),
                }
            };
            futures::pin_mut!(run);
            // After each step, hand a stop that came too early to the now active run.
            let result = futures::future::poll_fn(|cx| {
                let step = run.as_mut().poll(cx);
                if step.is_pending() && handle.is_active() {
                    if let Some(reason) = stop.borrow_mut().pending.take() {
                        let _ = handle.interrupt(&reason);
                    }
                }
                step
            })
            .await;
            *stop.borrow_mut() = RunStop::default();
            match result {
                Ok(Some(answer)) => Ok(JsValue::from_str(&answer)),
                Ok(None) => Ok(JsValue::UNDEFINED),
                Err(error) => Err(JsError::new(&error.0).into()),
            }
        })
    }

    /// Stops the active run (or direct call): calls in flight are cancelled (MCP servers get
    /// `notifications/cancelled`, model and JS tool promises their `abort()`), and the run ends
    /// with one `error` event naming `reason`. False when nothing runs.
    pub fn interrupt(&self, reason: &str) -> bool {
        if self.runtime.interrupt_handle().interrupt(reason).is_ok() {
            return true;
        }
        let mut stop = self.stop.borrow_mut();
        if stop.in_run {
            stop.pending.get_or_insert_with(|| reason.to_owned());
        }
        stop.in_run
    }

    /// Calls one tool directly, through the permission gate (deny rules apply, nothing asks)
    /// and the audit; or, with `origin` (`plugin:<p>`: plugin code), through the whole gate as
    /// a model's call would: ask rules and risky tools ask `approve` (none: declined). Resolves
    /// to `{content, structuredContent?, isError, text, truncated, error?}`; rejects when the
    /// tool is unknown, denied or declined.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(
        &self,
        name: String,
        args_json: &str,
        emit: Function,
        origin: Option<String>,
        approve: Option<Function>,
    ) -> Promise {
        let runtime = Rc::clone(&self.runtime);
        let arguments = crate::json::parse_str(args_json);
        let audit = self.audit_events;
        future_to_promise(async move {
            let arguments =
                arguments.map_err(|e| JsError::new(&format!("arguments are not JSON: {e}")))?;
            let observer = JsObserver::new(emit, approve, audit);
            // Runs refresh servers before they start; a direct call does the same on both
            // sides, so a dead server fails fast and its log and status are current after.
            runtime.refresh_servers(&observer).await;
            let result = match &origin {
                Some(origin) => runtime
                    .call_gated(&name, arguments, origin, &observer)
                    .await
                    .map_err(|e| e.to_string()),
                None => runtime
                    .call_tool(&name, arguments, &observer)
                    .await
                    .map_err(|e| e.to_string()),
            };
            runtime.refresh_servers(&observer).await;
            match result {
                Ok(output) => resolve_json(direct_output_value(output)),
                Err(error) => Err(JsError::new(&error).into()),
            }
        })
    }

    /// Closes every server connection.
    pub fn close(&self) {
        self.runtime.close();
    }
}
