//! The npm package's hooks: JS functions (`createAgent({ hooks })`) and plugins' command hooks,
//! held by the core's [`HookSet`] and merged by the core exactly as the CLI's are, so the
//! only-tighten rule is the same code. The JS layer runs what the runtime asks (functions
//! anywhere; command hooks only in Node, each under its timeout and output cap) and answers
//! with one run per hook.

use super::agent::WasmAgent;
use super::backends::JsObserver;
use super::js::{error_text, expect_string, settle};
use crate::driver::HookRunner;
use crate::hooks::{
    HookContext, HookEvent, HookExit, HookHandler, HookRun, HookSet, HookSource, HookSpec, Matcher,
    DEFAULT_TIMEOUT, MAX_TIMEOUT,
};
use crate::json::to_text;
use js_sys::{Function, Promise};
use serde_json::{json, Map, Value};
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// The timeout of a function hook: `timeoutMs` if positive, at most [`MAX_TIMEOUT`].
fn timeout_of(entry: &Map<String, Value>) -> Duration {
    entry
        .get("timeoutMs")
        .and_then(Value::as_f64)
        .filter(|ms| ms.is_finite() && *ms > 0.0)
        .map_or(DEFAULT_TIMEOUT, |ms| Duration::from_millis(ms as u64))
        .min(MAX_TIMEOUT)
}

/// The hook set of `config`: every source's settings (plugins' `hooks.json`), then the
/// functions, each a [`HookHandler::Host`] named by its id. Warnings name what was skipped.
fn hook_set(config: &Map<String, Value>) -> (HookSet, Vec<String>) {
    let mut set = HookSet::new();
    let mut warnings = Vec::new();
    let text =
        |v: &Map<String, Value>, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    for source in config
        .get("sources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(source) = source.as_object() else {
            continue;
        };
        let label = text(source, "label").unwrap_or_else(|| "hooks".to_owned());
        let origin = HookSource {
            label,
            plugin_root: text(source, "pluginRoot"),
            blocked: text(source, "blocked"),
        };
        let settings = source.get("settings").cloned().unwrap_or(Value::Null);
        warnings.extend(set.add_settings(&settings, &origin));
    }
    let functions = config.get("functions").and_then(Value::as_array);
    for entry in functions.into_iter().flatten() {
        let Some(entry) = entry.as_object() else {
            continue;
        };
        let (Some(name), Some(id)) = (text(entry, "event"), text(entry, "id")) else {
            warnings.push("a hook function without event or id; skipped".to_owned());
            continue;
        };
        let Some(event) = HookEvent::parse(&name) else {
            warnings.push(format!(
                "hook event {name:?} is not supported; {id} skipped"
            ));
            continue;
        };
        let matcher = match Matcher::parse(&text(entry, "matcher").unwrap_or_default()) {
            Ok(matcher) => matcher,
            Err(error) => {
                warnings.push(format!("{id}: {error}; skipped"));
                continue;
            }
        };
        set.push(HookSpec {
            event,
            matcher,
            handler: HookHandler::Host { id },
            timeout: timeout_of(entry),
            source: HookSource {
                label: "createAgent hooks".to_owned(),
                plugin_root: None,
                blocked: None,
            },
        });
    }
    (set, warnings)
}

/// What the JS runner is told about one hook.
fn describe(spec: &HookSpec) -> Value {
    let timeout_ms = u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX);
    let mut hook = match &spec.handler {
        HookHandler::Host { id } => json!({"kind": "function", "id": id}),
        HookHandler::Command { command } => json!({"kind": "command", "command": command}),
        HookHandler::Http { url, headers } => {
            let headers: Map<String, Value> =
                headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            json!({"kind": "http", "url": url, "headers": headers})
        }
    };
    hook["timeoutMs"] = json!(timeout_ms);
    hook["source"] = json!(spec.source.label);
    if let Some(root) = &spec.source.plugin_root {
        hook["pluginRoot"] = json!(root);
    }
    hook
}

/// One run from the JS answer: `{code, stdout, stderr, durationMs}`, `{timedOut: true}` or
/// `{failed: why}`; anything else is a failure saying so.
fn run_of(value: Option<&Value>, spec: &HookSpec) -> HookRun {
    let text = |key: &str| {
        value
            .and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let duration = value
        .and_then(|v| v.get("durationMs"))
        .and_then(Value::as_f64)
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map_or(Duration::ZERO, |ms| Duration::from_millis(ms as u64));
    let code = value.and_then(|v| v.get("code")).and_then(Value::as_i64);
    let exit = if let Some(code) = code.and_then(|c| i32::try_from(c).ok()) {
        HookExit::Code(code)
    } else if value.and_then(|v| v.get("timedOut")) == Some(&Value::Bool(true)) {
        HookExit::TimedOut(spec.timeout)
    } else if let Some(why) = value.and_then(|v| v.get("failed")).and_then(Value::as_str) {
        HookExit::Failed(why.to_owned())
    } else {
        HookExit::Failed("the hook runner gave no result for it".to_owned())
    };
    // As the CLI's runs: what a hook printed may reach the model and the user, never a secret.
    HookRun {
        exit,
        stdout: crate::audit::redact_text(&text("stdout")),
        stderr: crate::audit::redact_text(&text("stderr")),
        duration,
    }
}

/// The runtime's runner over `run(event, inputJson, hooksJson) → Promise<runsJson>`. A runner
/// that throws or answers nonsense costs each hook a failure (a non-blocking error), never a
/// permission.
fn js_runner(run: Function) -> HookRunner {
    Rc::new(
        move |event: HookEvent, input: Value, hooks: Vec<HookSpec>| {
            let run = run.clone();
            Box::pin(async move {
                let described: Vec<Value> = hooks.iter().map(describe).collect();
                let answer = async {
                    let returned = run
                        .call3(
                            &JsValue::NULL,
                            &JsValue::from_str(event.as_str()),
                            &JsValue::from_str(&to_text(&input)),
                            &JsValue::from_str(&to_text(&Value::Array(described))),
                        )
                        .map_err(|e| error_text(&e))?;
                    let text = expect_string(settle(returned).await?, "the hook runner")?;
                    match crate::json::parse_str(&text) {
                        Ok(Value::Array(runs)) => Ok(runs),
                        _ => Err("the hook runner did not answer an array of runs".to_owned()),
                    }
                };
                match answer.await {
                    Ok(runs) => hooks
                        .iter()
                        .enumerate()
                        .map(|(i, spec)| run_of(runs.get(i), spec))
                        .collect(),
                    Err(why) => hooks
                        .iter()
                        .map(|_| HookRun {
                            exit: HookExit::Failed(why.clone()),
                            stdout: String::new(),
                            stderr: String::new(),
                            duration: Duration::ZERO,
                        })
                        .collect(),
                }
            })
        },
    )
}

/// The listing of `set`: event, matcher, kind, name, source and whether it runs (and why not).
fn listing(set: &HookSet) -> Vec<Value> {
    set.specs()
        .iter()
        .map(|spec| {
            let mut entry = describe(spec);
            entry["event"] = json!(spec.event.as_str());
            entry["matcher"] = json!(spec.matcher.as_str());
            entry["runs"] = json!(spec.source.blocked.is_none());
            if let Some(why) = &spec.source.blocked {
                entry["why"] = json!(why);
            }
            entry
        })
        .collect()
}

#[wasm_bindgen]
impl WasmAgent {
    /// Sets the session's hooks from `config_json` (`{sessionId?, cwd?, sources: [{label,
    /// pluginRoot?, blocked?, settings}], functions: [{event, matcher?, id, timeoutMs?}]}`) and
    /// the runner `run(event, inputJson, hooksJson) → Promise<runsJson>`. Returns `{warnings,
    /// hooks}` JSON: what was skipped, and every hook with whether it runs. Throws while a run
    /// is active.
    #[wasm_bindgen(js_name = setHooks)]
    pub fn set_hooks(&self, config_json: &str, run: Function) -> Result<String, JsError> {
        let config = match crate::json::parse_str(config_json) {
            Ok(Value::Object(config)) => config,
            _ => return Err(JsError::new("the hook configuration must be a JSON object")),
        };
        let (set, warnings) = hook_set(&config);
        let text = |key: &str| config.get(key).and_then(Value::as_str).unwrap_or_default();
        let context = HookContext {
            session_id: text("sessionId").to_owned(),
            transcript_path: None,
            cwd: text("cwd").to_owned(),
            permission_mode: "default".to_owned(),
        };
        let listed = listing(&set);
        let runtime = self.runtime();
        if runtime.with_agent(|agent| agent.is_running()) {
            return Err(JsError::new("hooks cannot change while a run is active"));
        }
        runtime.with_agent(|agent| agent.set_hooks(set, context));
        runtime.set_hook_runner(Some(js_runner(run)));
        Ok(to_text(&json!({"warnings": warnings, "hooks": listed})))
    }

    /// Fires `SessionStart` with `source` (`startup`, `clear`, …); the context its hooks give
    /// joins the next prompt. Events go to `emit(json)`.
    #[wasm_bindgen(js_name = sessionStart)]
    pub fn session_start(&self, source: String, emit: Function) -> Promise {
        let runtime = Rc::clone(self.runtime());
        future_to_promise(async move {
            let observer = JsObserver::new(emit, None, false);
            runtime.session_start(&source, &observer).await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Fires `SessionEnd` with `reason`; events go to `emit(json)`.
    #[wasm_bindgen(js_name = sessionEnd)]
    pub fn session_end(&self, reason: String, emit: Function) -> Promise {
        let runtime = Rc::clone(self.runtime());
        future_to_promise(async move {
            let observer = JsObserver::new(emit, None, false);
            runtime.session_end(&reason, &observer).await;
            Ok(JsValue::UNDEFINED)
        })
    }
}
