//! Merging what several hooks said into one verdict, and applying it to the gate so that hooks
//! can only tighten.
//!
//! The user's rules come first: a deny rule refuses whatever a hook says; an ask rule asks
//! whatever a hook says. A hook may refuse (deny, exit 2), ask, block a prompt or stop a run.
//! A hook's `allow` counts for one thing only: skipping the question a tool's inferred risk
//! (no rule) would ask. Among hooks the strictest wins (deny over ask over allow).

use super::output::{HookResult, Permission};
use serde_json::Value;

/// What every hook of one event said, merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookVerdict {
    /// A block: every blocking hook's reason, joined.
    pub block: Option<String>,
    /// The strictest permission verdict, with the reasons of the hooks that gave it.
    pub permission: Option<(Permission, String)>,
    /// Replacement arguments (the first hook's; differing replacements also ask the user).
    pub updated_input: Option<Value>,
    /// Context for the conversation, in hook order.
    pub context: Vec<String>,
    /// `continue: false`: stop the run with these reasons.
    pub stop: Option<String>,
    /// Lines for the user only: system messages and non-blocking errors, in hook order.
    pub notices: Vec<String>,
}

/// Merges `results` (in configuration order) into one verdict.
pub fn merge(results: &[HookResult]) -> HookVerdict {
    let mut verdict = HookVerdict::default();
    let join = |slot: &mut Option<String>, text: &str| match slot {
        Some(existing) => {
            existing.push_str("; ");
            existing.push_str(text);
        }
        None => *slot = Some(text.to_owned()),
    };
    for result in results {
        if let Some(reason) = &result.block {
            join(&mut verdict.block, reason);
        }
        if let Some(reason) = &result.stop {
            join(&mut verdict.stop, reason);
        }
        if let Some((permission, reason)) = &result.permission {
            verdict.permission = match verdict.permission.take() {
                None => Some((*permission, reason.clone())),
                Some((current, _)) if *permission > current => Some((*permission, reason.clone())),
                Some((current, mut reasons)) => {
                    if *permission == current {
                        reasons.push_str("; ");
                        reasons.push_str(reason);
                    }
                    Some((current, reasons))
                }
            };
        }
        if let Some(context) = &result.context {
            verdict.context.push(context.clone());
        }
        verdict
            .notices
            .extend(result.system_message.iter().cloned());
        verdict.notices.extend(result.error.iter().cloned());
    }
    let replacements: Vec<(&Value, &str)> = results
        .iter()
        .filter_map(|r| Some((r.updated_input.as_ref()?, r.hook.as_str())))
        .collect();
    if let Some(&(first, hook)) = replacements.first() {
        verdict.updated_input = Some(first.clone());
        if replacements.iter().any(|(other, _)| *other != first) {
            // Two hooks rewrote the call differently: the user decides.
            let reason =
                format!("hooks rewrote the arguments differently; {hook}'s version is asked");
            tighten_to(&mut verdict, Permission::Ask, reason);
        }
    }
    if verdict.block.is_some() || matches!(verdict.permission, Some((Permission::Deny, _))) {
        verdict.updated_input = None;
    }
    verdict
}

/// Raises the verdict's permission to at least `floor`.
fn tighten_to(verdict: &mut HookVerdict, floor: Permission, reason: String) {
    match &verdict.permission {
        Some((current, _)) if *current >= floor => {}
        _ => verdict.permission = Some((floor, reason)),
    }
}

/// How the user's rules decided a call, before any hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleVerdict {
    /// A rule, an "always" answer, or a read-only risk lets it run.
    Allow,
    /// No rule matched and the tool's risk asks.
    AskByRisk,
    /// An ask rule matched.
    AskByRule,
    /// A deny rule matched, as `deny <pattern>`.
    Deny(String),
}

/// What the gate does with a call once hooks are heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateOutcome {
    /// Run it.
    Run,
    /// Ask the user.
    Ask,
    /// Refuse it: the user's deny rule (`deny <pattern>`).
    RuleDenied(String),
    /// Refuse it: a hook's reason.
    HookDenied(String),
}

/// The gate's outcome for a call: the rules' verdict, tightened by the hooks' `permission`;
/// `approved` says the user already said yes to this very call.
pub fn gate(
    rules: &RuleVerdict,
    permission: Option<&(Permission, String)>,
    approved: bool,
) -> GateOutcome {
    if let RuleVerdict::Deny(rule) = rules {
        return GateOutcome::RuleDenied(rule.clone());
    }
    if let Some((Permission::Deny, reason)) = permission {
        return GateOutcome::HookDenied(reason.clone());
    }
    if approved {
        return GateOutcome::Run;
    }
    match (rules, permission.map(|(p, _)| *p)) {
        (_, Some(Permission::Ask)) => GateOutcome::Ask,
        (RuleVerdict::Allow, _) => GateOutcome::Run,
        (RuleVerdict::AskByRisk, Some(Permission::Allow)) => GateOutcome::Run,
        _ => GateOutcome::Ask,
    }
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
