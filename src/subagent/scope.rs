//! What a child may use: never more than its parent.
//!
//! A child's tools are the parent's tools that its definition names, minus every tool the
//! parent's policy (or the definition's `disallowedTools`) denies; its policy is the parent's
//! (every deny and ask rule, this run's denials made lasting), so a tool the parent would ask
//! about asks in the child too, at the same prompt. A `permissionMode` only removes tools.
//! Skill tools never reach a child (a trusted skill's grants would widen its run), and the
//! `Agent` tool only while the depth limit allows another level.

use super::definition::{AgentDefinition, PermissionMode};
use crate::json::quoted;
use crate::policy::{agentwire_tool_name, Decision, Policy, RuleKind};
use crate::registry::{Registry, Risk, ToolSource, ToolSpec};

/// A child's tools and gate, derived from its parent's.
#[derive(Clone, Debug)]
pub struct ChildScope {
    /// The tools the child's model is offered.
    pub registry: Registry,
    /// The child's gate.
    pub policy: Policy,
}

/// `entry` as an agentwire pattern, and whether it carried an argument specifier
/// (`Bash(git add:*)`), which agentwire patterns cannot express.
fn entry_pattern(entry: &str) -> (String, bool) {
    let (tool, specified) = match entry.split_once('(') {
        Some((tool, _)) => (tool.trim(), true),
        None => (entry.trim(), false),
    };
    (agentwire_tool_name(tool).to_owned(), specified)
}

/// Whether `patterns` (a policy of deny rules) covers `spec` by either of its names.
fn covers(patterns: &Policy, spec: &ToolSpec) -> bool {
    matches!(patterns.decide_tool(spec), Decision::Deny { .. })
}

/// Whether `pattern` is a tool pattern the gate can hold.
fn is_pattern(pattern: &str) -> bool {
    Policy::new().add_rule(RuleKind::Deny, pattern).is_ok()
}

/// What [`child_scope`] cannot honour as `def` writes it (it always narrows instead): said
/// once, when the definition joins a set ([`super::AgentSet::insert`]), for `agents list`,
/// rather than at every child's start.
pub fn scope_warnings(def: &AgentDefinition) -> Vec<String> {
    let mut warnings = Vec::new();
    for entry in &def.disallowed_tools {
        if !is_pattern(&entry_pattern(entry).0) {
            warnings.push(format!(
                "disallowedTools entry {} is not a tool pattern: the agent gets no tools",
                quoted(entry)
            ));
        }
    }
    for entry in def.tools.iter().flatten() {
        let (pattern, specified) = entry_pattern(entry);
        if !is_pattern(&pattern) {
            warnings.push(format!(
                "tools entry {} is not a tool pattern; ignored",
                quoted(entry)
            ));
        } else if specified {
            warnings.push(format!(
                "tools entry {}: argument rules are not supported, so every call of \
                 {pattern} asks",
                quoted(entry)
            ));
        }
    }
    warnings
}

/// The scope of a child of `parent_registry` / `parent_policy` running `def`; `may_dispatch`
/// says whether the depth limit lets the child start children of its own. What it cannot
/// honour as written is narrowed: [`scope_warnings`] says what.
pub fn child_scope(
    parent_registry: &Registry,
    parent_policy: &Policy,
    def: &AgentDefinition,
    may_dispatch: bool,
) -> ChildScope {
    let mut policy = parent_policy.for_child();
    for entry in &def.disallowed_tools {
        // `Bash(rm:*)` cannot be expressed: the whole tool is denied (never less).
        let (pattern, _) = entry_pattern(entry);
        if policy.add_rule(RuleKind::Deny, &pattern).is_err() {
            let _ = policy.add_rule(RuleKind::Deny, "*");
        }
    }
    let allowed = def.tools.as_ref().map(|entries| {
        let mut named = Policy::new();
        for entry in entries {
            let (pattern, specified) = entry_pattern(entry);
            if named.add_rule(RuleKind::Deny, &pattern).is_ok() && specified {
                // Only part of the tool was granted: every call of it asks.
                let _ = policy.add_rule(RuleKind::Ask, &pattern);
            }
        }
        named
    });
    let registry = parent_registry.narrowed(|spec| {
        let named = allowed.as_ref().is_none_or(|named| covers(named, spec));
        let kind_ok = match &spec.source {
            ToolSource::Skill => false,
            ToolSource::Subagent => may_dispatch,
            ToolSource::Mcp { server, .. } => {
                def.mcp_servers.is_empty() || def.mcp_servers.iter().any(|s| s == server)
            }
            _ => true,
        };
        let decision = policy.decide_tool(spec);
        let mode_ok = match def.permission_mode {
            PermissionMode::Inherit => true,
            PermissionMode::Plan => spec.gate_risk() == Risk::Read,
            PermissionMode::DontAsk => decision == Decision::Allow,
        };
        named && kind_ok && mode_ok && !matches!(decision, Decision::Deny { .. })
    });
    ChildScope { registry, policy }
}

#[cfg(test)]
mod tests;
