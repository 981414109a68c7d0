//! One tool call: where it goes, what the gate says, and how its result is shaped.

use crate::agent::ToolFailure;
use crate::audit::Outcome;
use crate::content::ToolOutput;
use crate::hooks::{gate, GateOutcome, Permission, RuleVerdict};
use crate::json::quoted;
use crate::policy::{Decision, Policy};
use crate::registry::{char_prefix, truncate_output, Registry, Risk, ToolSource, ToolSpec};
use serde_json::Value;
use std::time::Duration;

/// The parts of a tool's spec a call needs, copied when the call is taken up so that registry
/// changes mid-call (a server reloading its tools) cannot change where a result belongs.
#[derive(Clone, Debug)]
pub(super) struct Target {
    pub(super) source: ToolSource,
    pub(super) risk: Risk,
    pub(super) timeout: Duration,
    pub(super) max_output_chars: usize,
    pub(super) concurrency_safe: bool,
}

impl Target {
    pub(super) fn of(spec: &ToolSpec) -> Self {
        Target {
            source: spec.source.clone(),
            risk: spec.risk,
            timeout: spec.timeout,
            max_output_chars: spec.max_output_chars,
            concurrency_safe: spec.concurrency_safe,
        }
    }

    pub(super) fn server(&self) -> Option<String> {
        match &self.source {
            ToolSource::Mcp { server, .. } => Some(server.clone()),
            _ => None,
        }
    }
}

/// The gate's verdict on a call, with everything needed to act on it.
pub(super) enum Resolution {
    /// Answer the model at once; the call never runs.
    Refuse {
        content: String,
        outcome: Outcome,
        target: Option<Target>,
    },
    /// Run it.
    Run(Target),
    /// Ask the user first.
    Ask(Target),
}

/// Looks the call up and asks the gate. `approved` skips the question (not the lookup).
pub(super) fn resolve(
    registry: &Registry,
    policy: &Policy,
    (name, arguments): (&str, &Value),
    hook: Option<&(Permission, String)>,
    approved: bool,
) -> Resolution {
    let Some(spec) = registry.get(name) else {
        return Resolution::Refuse {
            content: format!(
                "error: unknown tool {name}; call only the tools you were given",
                name = quoted(name)
            ),
            outcome: Outcome::Error,
            target: None,
        };
    };
    let target = Target::of(spec);
    if !arguments.is_object() {
        return Resolution::Refuse {
            content: bad_arguments(name, arguments),
            outcome: Outcome::Error,
            target: Some(target),
        };
    }
    let rules = match policy.decide_call(spec, arguments) {
        Decision::Deny { rule } => RuleVerdict::Deny(rule),
        Decision::Allow => RuleVerdict::Allow,
        _ if policy.asks_by_rule(spec) => RuleVerdict::AskByRule,
        _ => RuleVerdict::AskByRisk,
    };
    // Hooks only tighten: see `crate::hooks::gate`.
    match gate(&rules, hook, approved) {
        GateOutcome::RuleDenied(rule) => Resolution::Refuse {
            content: format!(
                "denied: the permission rule `{rule}` does not allow {name}; do not retry it"
            ),
            outcome: Outcome::Denied,
            target: Some(target),
        },
        GateOutcome::HookDenied(reason) => Resolution::Refuse {
            content: format!("denied: {reason}; do not retry it"),
            outcome: Outcome::Denied,
            target: Some(target),
        },
        GateOutcome::Run => Resolution::Run(target),
        GateOutcome::Ask => Resolution::Ask(target),
    }
}

/// What the model is told about arguments that are not a JSON object. Text that is not JSON at
/// all (the decoders keep it as a string) gets the parser's complaint and where it is, so the
/// model can fix it and call again.
fn bad_arguments(name: &str, arguments: &Value) -> String {
    match arguments {
        Value::String(text) => match crate::json::parse_str(text) {
            Err(error) => format!(
                "error: the arguments for {name} are not valid JSON ({error}): {text}; call \
                 {name} again with a JSON object",
                text = quoted(&preview(text, 200))
            ),
            Ok(_) => format!("error: the arguments for {name} must be a JSON object, not a string"),
        },
        _ => format!("error: the arguments for {name} must be a JSON object"),
    }
}

/// The first `max` characters of `text`, with `…` when cut.
pub(super) fn preview(text: &str, max: usize) -> String {
    match char_prefix(text, max) {
        (head, 0) => head.to_owned(),
        (head, _) => format!("{head}…"),
    }
}

/// A tool's result, shaped for the model and the audit log.
pub(super) struct Shaped {
    pub(super) content: String,
    pub(super) is_error: bool,
    pub(super) outcome: Outcome,
    pub(super) error: Option<String>,
    pub(super) output_chars: usize,
    pub(super) truncated: bool,
}

/// Shapes a result: cut to the tool's limit, then (when `budget` is given) to what is left of
/// the run's budget. Failure messages are the loop's own words and do not use the budget.
pub(super) fn shape(
    result: Result<ToolOutput, ToolFailure>,
    target: &Target,
    budget: Option<(&mut usize, usize)>,
) -> Shaped {
    let failure = |content: String, outcome, error: String| Shaped {
        content,
        is_error: true,
        outcome,
        error: Some(error),
        output_chars: 0,
        truncated: false,
    };
    let output = match result {
        Ok(output) => output,
        Err(ToolFailure::Error(message)) => {
            return failure(format!("error: {message}"), Outcome::Error, message)
        }
        Err(ToolFailure::Timeout) => {
            let ms = millis(target.timeout);
            return failure(
                format!("error: the tool did not answer within {ms} ms and was abandoned"),
                Outcome::Timeout,
                format!("timed out after {ms} ms"),
            );
        }
        Err(ToolFailure::Cancelled) => {
            return failure(
                "error: the tool call was cancelled".into(),
                Outcome::Cancelled,
                "cancelled".into(),
            )
        }
        Err(ToolFailure::Interrupted(reason)) => {
            return failure(
                format!("error: {reason} interrupted the tool call"),
                Outcome::Interrupted,
                format!("interrupted by {reason}"),
            )
        }
    };
    let text = output.to_model_text();
    let output_chars = text.chars().count();
    let (mut content, cut) = truncate_output(&text, target.max_output_chars);
    let mut truncated = cut.is_some();
    if let Some((left, total)) = budget {
        let len = content.chars().count();
        if len > *left {
            let (head, cut) = char_prefix(&content, *left);
            content = format!(
                "{head}\n[tool output budget of {total} characters for this run used up: \
                 {cut} characters cut]"
            );
            truncated = true;
            *left = 0;
        } else {
            *left -= len;
        }
    }
    Shaped {
        is_error: output.is_error,
        outcome: if output.is_error {
            Outcome::Error
        } else {
            Outcome::Ok
        },
        error: output.is_error.then(|| text.clone()),
        content,
        output_chars,
        truncated,
    }
}

pub(super) fn millis(d: Duration) -> u64 {
    crate::time::whole_millis(d)
}
