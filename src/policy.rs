//! The permission gate: allow / ask / deny rules over tool names.
//!
//! Patterns name tools as the model sees them:
//! - `get_weather`: exactly that tool;
//! - `mcp__github` or `mcp__github__*`: every tool of MCP server `github` (tool names carry the
//!   server's sanitised name, see [`crate::registry::names::mcp_server_prefix`]);
//! - `mcp__github__get_*`, `mcp__*`: every tool whose name starts with the text before `*`;
//! - `*`: every tool.
//!
//! A rule holds for an MCP tool when it matches either the model-facing name or the tool's full
//! name `mcp__<server>__<original name>` ([`names::full_mcp_name`]): a deny written with a tool's
//! real name still stops it when the model sees it with a hash suffix (two names that sanitise
//! alike, or one over 64 characters). Matching is exact and case-sensitive; hosts warn about
//! rules that match no tool ([`Policy::unmatched_rules`]).
//!
//! Precedence: deny beats everything; then "always" answers given this session; then ask; then
//! allow. Session approvals beat ask rules because the user answering "always" to an ask rule's
//! question means "stop asking"; they never beat deny. Without a matching rule, `read` tools are
//! allowed and every other risk asks.

use crate::json::quoted;
use crate::registry::{names, Risk, ToolSource, ToolSpec};
use std::fmt;

/// The built-in tools whose `"server"` argument names the MCP server they reach (the
/// runtime's resource tools): a deny covering that server covers these calls.
pub const SERVER_TOOLS: [&str; 2] = ["list_mcp_resources", "read_mcp_resource"];

/// Claude Code's tool names, as skills' `allowed-tools` / `disallowed-tools` and agent files'
/// `tools` / `disallowedTools` write them, and agentwire's tool for each.
const CLAUDE_TOOL_NAMES: [(&str, &str); 9] = [
    ("Read", "read_file"),
    ("Grep", "grep"),
    ("Glob", "glob"),
    ("Write", "write_file"),
    ("Edit", "edit_file"),
    ("MultiEdit", "edit_file"),
    ("Bash", "bash"),
    ("Task", "Agent"),
    ("Skill", "activate_skill"),
];

/// `name` as agentwire's tool name when it is one of Claude Code's (`Read` → `read_file`),
/// else unchanged: one table for every file format that writes Claude Code's names.
pub fn agentwire_tool_name(name: &str) -> &str {
    for (claude, ours) in CLAUDE_TOOL_NAMES {
        if name == claude {
            return ours;
        }
    }
    name
}

/// What a rule does to the tools it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// Run without asking.
    Allow,
    /// Ask the user first.
    Ask,
    /// Never run.
    Deny,
}

impl RuleKind {
    /// `"allow"`, `"ask"` or `"deny"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Ask => "ask",
            RuleKind::Deny => "deny",
        }
    }

    /// Reads `allow` / `ask` / `deny`.
    pub fn parse(text: &str) -> Result<RuleKind, String> {
        match text {
            "allow" => Ok(RuleKind::Allow),
            "ask" => Ok(RuleKind::Ask),
            "deny" => Ok(RuleKind::Deny),
            other => Err(format!(
                "unknown permission rule kind {other}: expected allow, ask or deny",
                other = quoted(other)
            )),
        }
    }
}

/// An invalid permission pattern, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    /// The pattern as given.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid permission pattern {}: {}",
            quoted(&self.pattern),
            self.reason
        )
    }
}

impl std::error::Error for PolicyError {}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Matcher {
    Any,
    Exact(String),
    Prefix(String),
    /// `mcp__<server>`: the name itself, or anything under `mcp__<server>__`.
    Server(String),
    /// `plugin__<plugin>`: the name itself, or anything under `plugin__<plugin>__`.
    Plugin(String),
}

/// A validated tool-name pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    matcher: Matcher,
}

impl Pattern {
    /// Validates `text`; errors say what is wrong and how to write it.
    pub fn parse(text: &str) -> Result<Pattern, PolicyError> {
        let fail = |reason: String| PolicyError {
            pattern: text.to_owned(),
            reason,
        };
        if text.is_empty() {
            return Err(fail("the pattern is empty".into()));
        }
        let (body, glob) = match text.strip_suffix('*') {
            Some(body) => (body, true),
            None => (text, false),
        };
        if body.contains('*') {
            return Err(fail(
                "'*' may only appear once, at the end (as in mcp__github__*)".into(),
            ));
        }
        if let Some(c) = body
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return Err(fail(format!(
                "character {} cannot occur in tool names (A-Z, a-z, 0-9, '_', '-'); \
                 MCP server names appear sanitised, e.g. \"my.server\" as mcp__my_server",
                quoted(c.encode_utf8(&mut [0; 4]))
            )));
        }
        let matcher = if glob {
            if body.is_empty() {
                Matcher::Any
            } else {
                Matcher::Prefix(body.to_owned())
            }
        } else if body == "mcp__" {
            return Err(fail(
                "name a server (mcp__github) or use mcp__* for every MCP tool".into(),
            ));
        } else if let Some(server) = body.strip_prefix("mcp__").filter(|s| !s.contains("__")) {
            Matcher::Server(server.to_owned())
        } else if body.starts_with("plugin__") && !body[8..].contains("__") && body.len() > 8 {
            Matcher::Plugin(body.to_owned())
        } else {
            Matcher::Exact(body.to_owned())
        };
        Ok(Pattern {
            text: text.to_owned(),
            matcher,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether tool `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Exact(exact) => name == exact,
            Matcher::Prefix(prefix) => name.starts_with(prefix.as_str()),
            Matcher::Server(server) => name
                .strip_prefix("mcp__")
                .and_then(|rest| rest.strip_prefix(server.as_str()))
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("__")),
            Matcher::Plugin(plugin) => name
                .strip_prefix(plugin.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("__")),
        }
    }

    /// Whether the pattern covers every tool a server whose tools start with `prefix__` could
    /// have (`prefix` is `mcp__<server>`): `*`, `mcp__*`, `mcp__<server>`, `mcp__<server>__*`.
    /// A rule naming some of its tools (`mcp__<server>__get_*`) does not.
    fn covers_server(&self, prefix: &str) -> bool {
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Prefix(start) => format!("{prefix}__").starts_with(start.as_str()),
            Matcher::Server(_) => self.matches(prefix),
            Matcher::Exact(_) | Matcher::Plugin(_) => false,
        }
    }
}

/// One permission rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// What the rule does.
    pub kind: RuleKind,
    /// Which tools it covers.
    pub pattern: Pattern,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.as_str(), self.pattern.as_str())
    }
}

/// The gate's verdict on one call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the user first.
    Ask,
    /// Refuse it.
    Deny {
        /// The deny rule that matched, as `deny <pattern>`.
        rule: String,
    },
}

/// Permission rules plus the approvals given this session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    rules: Vec<Rule>,
    session_allows: Vec<String>,
    /// Grants for the current run only (a trusted skill's `allowed-tools`): beat the risk
    /// default, never an ask or deny rule.
    run_allows: Vec<Pattern>,
    /// Denials for the current run only (a skill's `disallowed-tools`): beat everything.
    run_denies: Vec<Pattern>,
}

impl Policy {
    /// No rules: reads are allowed, everything else asks.
    pub fn new() -> Self {
        Self::default()
    }

    /// A policy from three lists of patterns; the first invalid pattern is the error.
    pub fn from_lists<S: AsRef<str>>(
        allow: &[S],
        ask: &[S],
        deny: &[S],
    ) -> Result<Policy, PolicyError> {
        let mut policy = Policy::new();
        for (kind, list) in [
            (RuleKind::Allow, allow),
            (RuleKind::Ask, ask),
            (RuleKind::Deny, deny),
        ] {
            for pattern in list {
                policy.add_rule(kind, pattern.as_ref())?;
            }
        }
        Ok(policy)
    }

    /// Adds a rule; an invalid pattern is an error and leaves the policy unchanged.
    pub fn add_rule(&mut self, kind: RuleKind, pattern: &str) -> Result<(), PolicyError> {
        let pattern = Pattern::parse(pattern)?;
        self.rules.push(Rule { kind, pattern });
        Ok(())
    }

    /// Adds an allow rule.
    pub fn allow(&mut self, pattern: &str) -> Result<&mut Self, PolicyError> {
        self.add_rule(RuleKind::Allow, pattern).map(|()| self)
    }

    /// Adds an ask rule.
    pub fn ask(&mut self, pattern: &str) -> Result<&mut Self, PolicyError> {
        self.add_rule(RuleKind::Ask, pattern).map(|()| self)
    }

    /// Adds a deny rule.
    pub fn deny(&mut self, pattern: &str) -> Result<&mut Self, PolicyError> {
        self.add_rule(RuleKind::Deny, pattern).map(|()| self)
    }

    /// The configured rules, in the order they were added.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Records an "always" answer: `tool_name` runs without asking for the rest of the session.
    pub fn allow_always(&mut self, tool_name: &str) {
        if !self.session_allows.iter().any(|n| n == tool_name) {
            self.session_allows.push(tool_name.to_owned());
        }
    }

    /// Tools approved with "always" this session.
    pub fn session_allows(&self) -> &[String] {
        &self.session_allows
    }

    /// Allows `pattern` for the current run only: it beats the risk default but never an ask
    /// or deny rule. Only the host grants these (from a trusted skill's `allowed-tools`).
    pub fn allow_for_run(&mut self, pattern: &str) -> Result<(), PolicyError> {
        let pattern = Pattern::parse(pattern)?;
        self.run_allows.push(pattern);
        Ok(())
    }

    /// Denies `pattern` for the current run only; beats every allow, "always" included.
    pub fn deny_for_run(&mut self, pattern: &str) -> Result<(), PolicyError> {
        let pattern = Pattern::parse(pattern)?;
        self.run_denies.push(pattern);
        Ok(())
    }

    /// Forgets the current run's grants and denials (the agent calls it when a run starts).
    pub fn clear_run(&mut self) {
        self.run_allows.clear();
        self.run_denies.clear();
    }

    /// The policy a child agent starts from: every rule and "always" answer of this one, this
    /// run's denials as lasting deny rules (a child's own run must not forget them), and none
    /// of this run's grants (a child asks where its parent had a skill's grant).
    pub fn for_child(&self) -> Policy {
        let mut rules = self.rules.clone();
        for pattern in &self.run_denies {
            rules.push(Rule {
                kind: RuleKind::Deny,
                pattern: pattern.clone(),
            });
        }
        Policy {
            rules,
            session_allows: self.session_allows.clone(),
            run_allows: Vec::new(),
            run_denies: Vec::new(),
        }
    }

    /// Forgets this session's "always" answers.
    pub fn clear_session(&mut self) {
        self.session_allows.clear();
    }

    fn first_match(&self, kind: RuleKind, names: &[&str]) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|r| r.kind == kind && names.iter().any(|n| r.pattern.matches(n)))
    }

    /// The verdict for a call of `tool_name`, whose risk is `risk`, matching that one name.
    pub fn decide(&self, tool_name: &str, risk: Risk) -> Decision {
        self.decide_names(&[tool_name], risk)
    }

    /// The verdict for a call of `spec`, matching its model-facing name and its full name.
    pub fn decide_tool(&self, spec: &ToolSpec) -> Decision {
        let full = rule_name(spec);
        let names = [spec.name.as_str(), full.as_deref().unwrap_or(&spec.name)];
        self.decide_names(&names, spec.gate_risk())
    }

    /// Whether an ask rule covers `spec` (by either name): the question it asks is the user's,
    /// which no hook's allow skips (see [`crate::hooks::gate`]).
    pub fn asks_by_rule(&self, spec: &ToolSpec) -> bool {
        let full = rule_name(spec);
        let names = [spec.name.as_str(), full.as_deref().unwrap_or(&spec.name)];
        self.first_match(RuleKind::Ask, &names).is_some()
    }

    /// `names[0]` is the model-facing name: session approvals are kept under it.
    fn decide_names(&self, names: &[&str], risk: Risk) -> Decision {
        if let Some(rule) = self.first_match(RuleKind::Deny, names) {
            return Decision::Deny {
                rule: rule.to_string(),
            };
        }
        let run = |list: &[Pattern]| {
            list.iter()
                .find(|p| names.iter().any(|n| p.matches(n)))
                .map(|p| p.as_str().to_owned())
        };
        if let Some(pattern) = run(&self.run_denies) {
            return Decision::Deny {
                rule: format!("disallowed-tools {pattern} (this run)"),
            };
        }
        if self.session_allows.iter().any(|n| n == names[0]) {
            return Decision::Allow;
        }
        if self.first_match(RuleKind::Ask, names).is_some() {
            return Decision::Ask;
        }
        if self.first_match(RuleKind::Allow, names).is_some()
            || run(&self.run_allows).is_some()
            || risk.is_read_only()
        {
            return Decision::Allow;
        }
        Decision::Ask
    }

    /// The verdict for what a server offers beside its tools (its resources, prompts and
    /// completions) on behalf of the user or the model: denied when a deny rule, or this run's
    /// `disallowed-tools`, covers every tool of `server` (`mcp__<server>`, `mcp__<server>__*`,
    /// `mcp__*`, `*`), by the server's name in model-facing tool names or written out in
    /// full; else allowed (reading is what these are, and the tools that reach them are gated
    /// like any tool).
    pub fn decide_server(&self, server: &str) -> Decision {
        let full = names::full_mcp_name(server, "");
        let prefixes = [
            names::mcp_server_prefix(server),
            full.trim_end_matches("__").to_owned(),
        ];
        let covers = |p: &Pattern| prefixes.iter().any(|prefix| p.covers_server(prefix));
        let rule = self
            .rules
            .iter()
            .find(|r| r.kind == RuleKind::Deny && covers(&r.pattern));
        if let Some(rule) = rule {
            return Decision::Deny {
                rule: rule.to_string(),
            };
        }
        if let Some(pattern) = self.run_denies.iter().find(|p| covers(p)) {
            return Decision::Deny {
                rule: format!("disallowed-tools {} (this run)", pattern.as_str()),
            };
        }
        Decision::Allow
    }

    /// The verdict for a call of `spec` with `arguments`: [`decide_tool`](Self::decide_tool),
    /// and for a built-in tool that reaches one MCP server named by its `"server"` argument
    /// ([`SERVER_TOOLS`]: reading resources), also [`decide_server`](Self::decide_server) for
    /// that server, so `--deny mcp__h` stops `read_mcp_resource` on `h`.
    pub fn decide_call(&self, spec: &ToolSpec, arguments: &serde_json::Value) -> Decision {
        let decision = self.decide_tool(spec);
        if matches!(decision, Decision::Deny { .. })
            || spec.source != ToolSource::Builtin
            || !SERVER_TOOLS.contains(&spec.name.as_str())
        {
            return decision;
        }
        match arguments.get("server").and_then(serde_json::Value::as_str) {
            Some(server) => match self.decide_server(server) {
                Decision::Allow => decision,
                denied => denied,
            },
            None => decision,
        }
    }

    /// Rules that match none of `tools` (by either name), in the order they were added, each
    /// with a hint when a tool differs only in letter case (`deny BASH` → `bash`).
    pub fn unmatched_rules<'a>(&'a self, tools: &[ToolSpec]) -> Vec<UnmatchedRule<'a>> {
        let names: Vec<String> = tools
            .iter()
            .flat_map(|t| std::iter::once(t.name.clone()).chain(rule_name(t)))
            .collect();
        self.rules
            .iter()
            .filter(|rule| !names.iter().any(|n| rule.pattern.matches(n)))
            .map(|rule| {
                let lower = Pattern::parse(&rule.pattern.text.to_ascii_lowercase()).ok();
                let hint = names
                    .iter()
                    .find(|n| {
                        let lower_name = n.to_ascii_lowercase();
                        lower.as_ref().is_some_and(|p| p.matches(&lower_name))
                    })
                    .cloned();
                UnmatchedRule { rule, hint }
            })
            .collect()
    }
}

/// The full name `mcp__<server>__<original name>` of an MCP tool, when it differs from the
/// model-facing one.
fn rule_name(spec: &ToolSpec) -> Option<String> {
    match &spec.source {
        ToolSource::Mcp {
            server,
            original_name,
        } => Some(names::full_mcp_name(server, original_name)).filter(|n| *n != spec.name),
        _ => None,
    }
}

/// A rule that matches no tool, for a start-up warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmatchedRule<'a> {
    /// The rule.
    pub rule: &'a Rule,
    /// A tool name the pattern would match but for letter case.
    pub hint: Option<String>,
}

impl fmt::Display for UnmatchedRule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "permission rule `{}` matches no tool", self.rule)?;
        match &self.hint {
            // Tool names are case-sensitive.
            Some(name) => write!(f, " (did you mean `{name}`?)"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod server_tests;
#[cfg(test)]
mod tool_name_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_tool_names_become_the_agentwire_tools_they_mean() {
        // The names that are easy to get wrong; the two tools named by constants stay in step.
        for (claude, ours) in [
            ("Read", "read_file"),
            ("MultiEdit", "edit_file"),
            ("Task", crate::subagent::AGENT_TOOL),
            ("Skill", crate::ext::tools::ACTIVATE_SKILL),
        ] {
            assert_eq!(agentwire_tool_name(claude), ours, "{claude}");
        }
        // Anything else, agentwire's own names and near misses included, stays as written.
        for name in ["read_file", "mcp__github__*", "read", "Reader", "", "Task "] {
            assert_eq!(agentwire_tool_name(name), name);
        }
    }

    #[test]
    fn defaults_follow_risk() {
        let p = Policy::new();
        assert_eq!(p.decide("anything", Risk::Read), Decision::Allow);
        for risk in [Risk::Write, Risk::Execute, Risk::Network] {
            assert_eq!(p.decide("anything", risk), Decision::Ask, "{risk}");
        }
    }

    #[test]
    fn deny_beats_ask_beats_allow() {
        let p = Policy::from_lists(&["*"], &["mcp__github"], &["mcp__github__delete_*"]).unwrap();
        assert_eq!(p.decide("shell", Risk::Execute), Decision::Allow);
        assert_eq!(
            p.decide("mcp__github__get_issue", Risk::Read),
            Decision::Ask
        );
        assert_eq!(
            p.decide("mcp__github__delete_repo", Risk::Read),
            Decision::Deny {
                rule: "deny mcp__github__delete_*".into()
            }
        );
        // Rule order within a kind does not matter; kinds decide.
        let p = Policy::from_lists(&["x"], &["x"], &["x"]).unwrap();
        assert!(matches!(p.decide("x", Risk::Read), Decision::Deny { .. }));
    }

    #[test]
    fn patterns_match_what_they_say() {
        let cases: &[(&str, &str, bool)] = &[
            ("*", "anything", true),
            ("shell", "shell", true),
            ("shell", "shell2", false),
            ("mcp__github", "mcp__github__get_issue", true),
            ("mcp__github", "mcp__github", true),
            ("mcp__github", "mcp__githubx__get", false),
            ("mcp__git", "mcp__github__get_issue", false),
            ("mcp__github__*", "mcp__github__get_issue", true),
            ("mcp__github__*", "mcp__github_enterprise__get", false),
            ("mcp__*", "mcp__fs__read", true),
            ("mcp__*", "shell", false),
            ("mcp__github__get_*", "mcp__github__get_me", true),
            ("mcp__github__get_*", "mcp__github__list", false),
            ("mcp__github__get_issue", "mcp__github__get_issue", true),
            ("mcp__github__get_issue", "mcp__github__get_issues", false),
        ];
        for &(pattern, name, want) in cases {
            let p = Pattern::parse(pattern).unwrap();
            assert_eq!(p.matches(name), want, "{pattern} vs {name}");
            assert_eq!(p.as_str(), pattern);
        }
    }

    #[test]
    fn invalid_patterns_are_explained() {
        for (pattern, needle) in [
            ("", "empty"),
            ("a*b", "only appear once, at the end"),
            ("**", "only appear once"),
            ("mcp__my.server", "mcp__my_server"),
            ("has space", "character \" \""),
            ("mcp__", "name a server"),
        ] {
            let err = Pattern::parse(pattern).unwrap_err();
            assert_eq!(err.pattern, pattern);
            assert!(err.to_string().contains(needle), "{pattern}: {err}");
        }
        let mut p = Policy::new();
        assert!(p.deny("bad*pattern").is_err());
        assert!(
            p.rules().is_empty(),
            "a bad pattern leaves the policy unchanged"
        );
        assert!(Policy::from_lists(&["ok"], &[], &["x y"]).is_err());
    }

    #[test]
    fn always_adds_a_session_allow_that_beats_ask_but_not_deny() {
        let mut p = Policy::new();
        p.ask("mcp__gh").unwrap().deny("mcp__gh__nuke").unwrap();
        assert_eq!(p.decide("mcp__gh__comment", Risk::Write), Decision::Ask);
        p.allow_always("mcp__gh__comment");
        p.allow_always("mcp__gh__comment");
        assert_eq!(p.session_allows().len(), 1);
        assert_eq!(p.decide("mcp__gh__comment", Risk::Write), Decision::Allow);
        assert_eq!(p.decide("mcp__gh__other", Risk::Write), Decision::Ask);
        p.allow_always("mcp__gh__nuke");
        assert!(matches!(
            p.decide("mcp__gh__nuke", Risk::Write),
            Decision::Deny { .. }
        ));
        p.clear_session();
        assert_eq!(p.decide("mcp__gh__comment", Risk::Write), Decision::Ask);
    }

    #[test]
    fn rule_kinds_parse() {
        assert_eq!(RuleKind::parse("deny"), Ok(RuleKind::Deny));
        assert!(RuleKind::parse("maybe").unwrap_err().contains("\"maybe\""));
        for k in [RuleKind::Allow, RuleKind::Ask, RuleKind::Deny] {
            assert_eq!(RuleKind::parse(k.as_str()), Ok(k));
        }
    }
}
