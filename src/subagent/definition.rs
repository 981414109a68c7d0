//! What an agent definition says: who the child is, what it may use, and how long it may run.

/// Name of the built-in agent every session has.
pub const GENERAL_PURPOSE: &str = "general-purpose";

/// How a child's permission prompts are settled. A definition may only make its child stricter
/// than the parent: modes that would widen the parent's rights (`acceptEdits`,
/// `bypassPermissions`, `auto`) are read as [`PermissionMode::Inherit`] with a warning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionMode {
    /// The parent's rules, asking where the parent asks.
    #[default]
    Inherit,
    /// Read-only: only tools whose (trusted) risk is `read`.
    Plan,
    /// Never ask: a tool the parent would ask about is removed from the child.
    DontAsk,
}

impl PermissionMode {
    /// `inherit`, `plan` or `dontAsk`.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Inherit => "inherit",
            PermissionMode::Plan => "plan",
            PermissionMode::DontAsk => "dontAsk",
        }
    }

    /// Reads a Claude Code `permissionMode` (or a Codex `sandbox_mode`); a mode that would
    /// widen the parent's rights is `Err` with the reason, and the caller keeps `Inherit`.
    pub fn parse(text: &str) -> Result<PermissionMode, String> {
        match text.trim() {
            "" | "default" | "inherit" => Ok(PermissionMode::Inherit),
            "plan" | "read-only" => Ok(PermissionMode::Plan),
            "dontAsk" | "dont-ask" => Ok(PermissionMode::DontAsk),
            wider @ ("acceptEdits" | "bypassPermissions" | "auto" | "workspace-write"
            | "danger-full-access") => Err(format!(
                "permission mode {wider} would give the agent more than its parent; the \
                 parent's rules apply"
            )),
            other => Err(format!(
                "unknown permission mode {other}; the parent's rules apply"
            )),
        }
    }
}

/// One agent a parent can dispatch with the `Agent` tool.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentDefinition {
    /// Name the model passes as `subagent_type`: `reviewer`, or `plugin:reviewer` for a
    /// plugin's agent.
    pub name: String,
    /// When to use it, for the catalog in the tool's description.
    pub description: String,
    /// The child's system prompt (the Markdown body, Codex `developer_instructions`).
    pub instructions: String,
    /// Tools the child may use (Claude Code or agentwire names, `*` globs); `None`: every tool
    /// of the parent. Always intersected with the parent's tools.
    pub tools: Option<Vec<String>>,
    /// Tools the child must not use, on top of every deny of the parent.
    pub disallowed_tools: Vec<String>,
    /// Model name; `None` (or `inherit`) runs the child on the parent's model.
    pub model: Option<String>,
    /// Most model calls of one child run; `None`: the parent's step limit.
    pub max_turns: Option<u32>,
    /// Skills the definition names (listed; skill tools are not given to children).
    pub skills: Vec<String>,
    /// MCP servers, by name, whose tools the child may use (empty: every server of the parent).
    /// The child shares the parent's connections; it never starts a server.
    pub mcp_servers: Vec<String>,
    /// How the child's permission prompts are settled (only ever stricter than the parent).
    pub permission_mode: PermissionMode,
    /// Where it came from: `built-in`, `host`, `user`, `project`, `plugin:<p>`, or a path.
    pub source: String,
    /// Fields that were read leniently or ignored, for `agents list`.
    pub warnings: Vec<String>,
}

impl AgentDefinition {
    /// The built-in general-purpose agent: every tool of its parent, the parent's model.
    pub fn general_purpose() -> Self {
        AgentDefinition {
            name: GENERAL_PURPOSE.to_owned(),
            description: GENERAL_PURPOSE_DESCRIPTION.to_owned(),
            instructions: GENERAL_PURPOSE_INSTRUCTIONS.to_owned(),
            source: "built-in".to_owned(),
            ..AgentDefinition::default()
        }
    }

    /// The system prompt of a child run: the definition's instructions, or the general
    /// agent's when the definition has none.
    pub fn system_prompt(&self) -> String {
        let body = self.instructions.trim();
        if body.is_empty() {
            GENERAL_PURPOSE_INSTRUCTIONS
        } else {
            body
        }
        .to_owned()
    }
}

const GENERAL_PURPOSE_DESCRIPTION: &str = "General-purpose agent for research and multi-step \
    tasks: give it a complete, self-contained task; it works in a fresh context and answers \
    with a concise report.";

const GENERAL_PURPOSE_INSTRUCTIONS: &str = "You are a subagent working on one task for another \
    agent. Work on your own with the tools you have; do not ask questions. When done, answer \
    with a concise, complete report of what you found or did: it is all the other agent will \
    see.";

/// Whether `name` can be a `subagent_type`: 1 to 64 characters of `[A-Za-z0-9_.-]`, with one
/// optional `plugin:` qualifier of the same characters.
pub fn valid_name(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.len() <= 64
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    match name.split_once(':') {
        Some((plugin, rest)) => part(plugin) && part(rest),
        None => part(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_modes_only_ever_tighten() {
        assert_eq!(PermissionMode::parse("plan"), Ok(PermissionMode::Plan));
        assert_eq!(PermissionMode::parse("read-only"), Ok(PermissionMode::Plan));
        assert_eq!(
            PermissionMode::parse("dontAsk"),
            Ok(PermissionMode::DontAsk)
        );
        assert_eq!(
            PermissionMode::parse("default"),
            Ok(PermissionMode::Inherit)
        );
        for wider in [
            "acceptEdits",
            "bypassPermissions",
            "auto",
            "danger-full-access",
        ] {
            let err = PermissionMode::parse(wider).unwrap_err();
            assert!(
                err.contains(wider) && err.contains("more than its parent"),
                "{err}"
            );
        }
        assert!(PermissionMode::parse("sudo")
            .unwrap_err()
            .contains("unknown"));
    }

    #[test]
    fn names_are_plain_or_plugin_qualified() {
        for good in [
            "reviewer",
            "code-reviewer",
            "superpowers:code-reviewer",
            "a.b_c",
        ] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "a b", "a:b:c", ":x", "x:", "../x", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn an_empty_body_gets_the_general_instructions() {
        let def = AgentDefinition {
            instructions: "  \n".into(),
            ..AgentDefinition::default()
        };
        assert_eq!(
            def.system_prompt(),
            AgentDefinition::general_purpose().instructions
        );
    }
}
