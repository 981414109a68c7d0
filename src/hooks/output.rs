//! What one hook run said: exit codes and JSON output read as Claude Code defines them.
//!
//! Exit 0: stdout is JSON output when it is a JSON object, else plain text (context for
//! `SessionStart` and `UserPromptSubmit`, ignored elsewhere). Exit 2: a blocking error whose
//! reason is stderr. Any other code, a timeout, a failure to start, or stdout that looks like
//! JSON but does not parse: a non-blocking error naming the hook; the session goes on.

use super::event::HookEvent;
use crate::json::parse_str;
use crate::registry::char_prefix;
use serde_json::Value;
use std::time::Duration;

/// Most characters of context one hook may add (Claude Code's 10 000); more is cut with a note.
pub const MAX_CONTEXT_CHARS: usize = 10_000;

/// How a hook process (or request) ended, as the host saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookExit {
    /// It exited with this code (an HTTP hook: 0 for a 2xx answer).
    Code(i32),
    /// It was killed at its timeout.
    TimedOut(Duration),
    /// It could not run, or died by a signal, or the HTTP request failed: why.
    Failed(String),
}

/// One hook run as the host reports it: output already bounded, redacted, escape-free.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookRun {
    /// How it ended.
    pub exit: HookExit,
    /// Its stdout (an HTTP hook: the response body).
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// How long it took.
    pub duration: Duration,
}

impl HookRun {
    /// A run that exited with `code` and printed `stdout` / `stderr`.
    pub fn exited(code: i32, stdout: &str, stderr: &str) -> HookRun {
        HookRun {
            exit: HookExit::Code(code),
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            duration: Duration::ZERO,
        }
    }
}

/// A hook's verdict on a permission question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Permission {
    /// Skip the prompt a tool's inferred risk would cause (never an ask or deny rule's).
    Allow,
    /// Ask the user.
    Ask,
    /// Refuse the call.
    Deny,
}

impl Permission {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Deny => "deny",
        }
    }
}

/// What one hook asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookResult {
    /// The hook, as named in messages.
    pub hook: String,
    /// A block (exit 2, `decision: "block"`): the reason.
    pub block: Option<String>,
    /// A permission verdict with its reason.
    pub permission: Option<(Permission, String)>,
    /// Replacement tool arguments.
    pub updated_input: Option<Value>,
    /// Text for the conversation.
    pub context: Option<String>,
    /// `continue: false`: stop the run, with this reason for the user.
    pub stop: Option<String>,
    /// Text for the user only.
    pub system_message: Option<String>,
    /// A non-blocking error for the user, naming the hook.
    pub error: Option<String>,
    /// `suppressOutput`: the host need not show the hook's stdout.
    pub suppress_output: bool,
}

/// Reads what `run` of the hook named `hook` said on `event`.
pub fn read_run(event: HookEvent, hook: &str, run: &HookRun) -> HookResult {
    let mut result = HookResult {
        hook: hook.to_owned(),
        ..HookResult::default()
    };
    let stderr = run.stderr.trim();
    match &run.exit {
        HookExit::Code(0) => read_stdout(event, run.stdout.trim(), &mut result),
        HookExit::Code(2) => {
            let reason = if stderr.is_empty() {
                format!("blocked by hook {hook}")
            } else {
                format!("blocked by hook {hook}: {stderr}")
            };
            match event {
                HookEvent::PreToolUse | HookEvent::PermissionRequest => {
                    result.permission = Some((Permission::Deny, reason));
                }
                // `Stop` / `SubagentStop`: the reason is what the model is told to go on with.
                HookEvent::UserPromptSubmit
                | HookEvent::PostToolUse
                | HookEvent::PostToolUseFailure
                | HookEvent::Stop
                | HookEvent::SubagentStop => result.block = Some(reason),
                // Nothing to block: the event already happened; the user sees why.
                _ => result.error = Some(reason),
            }
        }
        HookExit::Code(code) => {
            result.error = Some(with_detail(
                format!("hook {hook} exited with code {code}"),
                stderr,
            ));
        }
        HookExit::TimedOut(after) => {
            result.error = Some(format!(
                "hook {hook} timed out after {} s and was stopped",
                after.as_secs_f64()
            ));
        }
        HookExit::Failed(why) => result.error = Some(format!("hook {hook} failed: {why}")),
    }
    result
}

fn with_detail(message: String, stderr: &str) -> String {
    if stderr.is_empty() {
        message
    } else {
        let (head, cut) = char_prefix(stderr, 500);
        format!("{message}: {head}{}", if cut > 0 { "…" } else { "" })
    }
}

fn read_stdout(event: HookEvent, stdout: &str, result: &mut HookResult) {
    if !stdout.starts_with('{') {
        if !stdout.is_empty()
            && matches!(event, HookEvent::SessionStart | HookEvent::UserPromptSubmit)
        {
            result.context = Some(bounded(stdout));
        }
        return;
    }
    let output = match parse_str(stdout) {
        Ok(Value::Object(output)) => output,
        other => {
            let error = match other {
                Err(error) => error.to_string(),
                Ok(_) => "not an object".to_owned(),
            };
            result.error = Some(format!(
                "hook {} printed invalid JSON ({error}); its output was ignored",
                result.hook
            ));
            return;
        }
    };
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    if output.get("continue") == Some(&Value::Bool(false)) {
        let reason = text(output.get("stopReason"));
        result.stop = Some(reason.unwrap_or_else(|| format!("stopped by hook {}", result.hook)));
    }
    result.system_message = text(output.get("systemMessage"));
    result.suppress_output = output.get("suppressOutput") == Some(&Value::Bool(true));
    let reason = text(output.get("reason"));
    let labelled = |reason: Option<String>, what: &str| match reason {
        Some(reason) if !reason.trim().is_empty() => {
            format!("{what} by hook {}: {reason}", result.hook)
        }
        _ => format!("{what} by hook {}", result.hook),
    };
    match output.get("decision").and_then(Value::as_str) {
        Some("block") if event == HookEvent::PreToolUse => {
            result.permission = Some((Permission::Deny, labelled(reason.clone(), "blocked")));
        }
        Some("block") => result.block = Some(labelled(reason.clone(), "blocked")),
        // The older PreToolUse spelling of allow.
        Some("approve") if event == HookEvent::PreToolUse => {
            result.permission = Some((Permission::Allow, labelled(reason.clone(), "allowed")));
        }
        _ => {}
    }
    let Some(Value::Object(specific)) = output.get("hookSpecificOutput") else {
        return;
    };
    if let Some(name) = specific.get("hookEventName").and_then(Value::as_str) {
        if name != event.as_str() {
            result.error = Some(format!(
                "hook {} answered for event {name} on {}; its hookSpecificOutput was ignored",
                result.hook,
                event.as_str()
            ));
            return;
        }
    }
    if let Some(context) = text(specific.get("additionalContext")).filter(|c| !c.trim().is_empty())
    {
        result.context = Some(bounded(&context));
    }
    let permission_reason = text(specific.get("permissionDecisionReason"));
    let decision = match event {
        HookEvent::PreToolUse => {
            let kind = specific.get("permissionDecision").and_then(Value::as_str);
            kind.and_then(parse_permission)
                .map(|p| (p, permission_reason, specific.get("updatedInput")))
        }
        HookEvent::PermissionRequest => specific.get("decision").and_then(|d| {
            let behavior = d.get("behavior").and_then(Value::as_str)?;
            let permission = match behavior {
                "allow" => Permission::Allow,
                "deny" => Permission::Deny,
                _ => return None,
            };
            Some((permission, text(d.get("message")), d.get("updatedInput")))
        }),
        _ => None,
    };
    if let Some((permission, reason, updated)) = decision {
        let verb = match permission {
            Permission::Allow => "allowed",
            Permission::Ask => "held for approval",
            Permission::Deny => "denied",
        };
        result.permission = Some((permission, labelled(reason, verb)));
        if permission != Permission::Deny {
            result.updated_input = updated.filter(|v| v.is_object()).cloned();
        }
    }
}

fn parse_permission(text: &str) -> Option<Permission> {
    match text {
        "allow" => Some(Permission::Allow),
        "ask" => Some(Permission::Ask),
        "deny" => Some(Permission::Deny),
        _ => None,
    }
}

fn bounded(text: &str) -> String {
    match char_prefix(text, MAX_CONTEXT_CHARS) {
        (head, 0) => head.to_owned(),
        (head, cut) => format!("{head}\n[hook context cut: {cut} more characters]"),
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
