//! Hook events: their names, what their matcher tests, and the JSON a hook gets on stdin.

use serde_json::{json, Map, Value};

/// A point in a session where hooks run (Claude Code's event names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// A session starts, resumes, or restarts after `/clear` or compaction (`source`).
    SessionStart,
    /// The user sent a prompt, before the model sees it.
    UserPromptSubmit,
    /// A tool call is about to go through the gate.
    PreToolUse,
    /// The gate is about to ask the user about a call.
    PermissionRequest,
    /// A tool call succeeded.
    PostToolUse,
    /// A tool call failed.
    PostToolUseFailure,
    /// A run finished.
    Stop,
    /// The session ends (`reason`).
    SessionEnd,
    /// The runtime notifies the user (an approval is waiting, …).
    Notification,
    /// The conversation is about to be compacted (`trigger`: `manual` or `auto`).
    PreCompact,
    /// A subagent is about to start (`agent_type`, `agent_id`).
    SubagentStart,
    /// A subagent finished (`agent_type`, `agent_id`, `last_assistant_message`).
    SubagentStop,
}

impl HookEvent {
    /// Every event, in the order the docs list them.
    pub const ALL: [HookEvent; 12] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PermissionRequest,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::Stop,
        HookEvent::SessionEnd,
        HookEvent::Notification,
        HookEvent::PreCompact,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
    ];

    /// The event's name as settings files spell it (`PreToolUse`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::Stop => "Stop",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::Notification => "Notification",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }

    /// The event named `name` (exact, case-sensitive as in Claude Code).
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The input field a matcher is tested against, or `None` when the event has no matcher
    /// (every hook of the event runs).
    pub fn matcher_field(self) -> Option<&'static str> {
        match self {
            HookEvent::PreToolUse
            | HookEvent::PermissionRequest
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure => Some("tool_name"),
            HookEvent::SessionStart => Some("source"),
            HookEvent::SessionEnd => Some("reason"),
            HookEvent::Notification => Some("notification_type"),
            HookEvent::PreCompact => Some("trigger"),
            HookEvent::SubagentStart | HookEvent::SubagentStop => Some("agent_type"),
            HookEvent::UserPromptSubmit | HookEvent::Stop => None,
        }
    }

    /// Whether the event concerns one tool call.
    pub fn is_tool_event(self) -> bool {
        self.matcher_field() == Some("tool_name")
    }
}

/// What every hook input carries: who and where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookContext {
    /// The session's id.
    pub session_id: String,
    /// The session's transcript file, when the host keeps one.
    pub transcript_path: Option<String>,
    /// The working directory.
    pub cwd: String,
    /// The permission mode shown to hooks (`default`).
    pub permission_mode: String,
}

/// The JSON object a hook gets for `event`: the common fields (`session_id`,
/// `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`) and the event's own
/// `fields` (an object; anything else is ignored), common fields first.
pub fn hook_input(context: &HookContext, event: HookEvent, fields: Value) -> Value {
    let mut input = Map::new();
    input.insert("session_id".into(), json!(context.session_id));
    if let Some(path) = &context.transcript_path {
        input.insert("transcript_path".into(), json!(path));
    }
    input.insert("cwd".into(), json!(context.cwd));
    let mode = if context.permission_mode.is_empty() {
        "default"
    } else {
        &context.permission_mode
    };
    input.insert("permission_mode".into(), json!(mode));
    input.insert("hook_event_name".into(), json!(event.as_str()));
    if let Value::Object(fields) = fields {
        for (key, value) in fields {
            input.entry(key).or_insert(value);
        }
    }
    Value::Object(input)
}

/// The event fields of a tool event: `tool_name`, `tool_input`, `tool_use_id`.
pub fn tool_fields(name: &str, arguments: &Value, call_id: &str) -> Value {
    json!({"tool_name": name, "tool_input": arguments, "tool_use_id": call_id})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_none() {
        for event in HookEvent::ALL {
            assert_eq!(HookEvent::parse(event.as_str()), Some(event));
        }
        assert_eq!(HookEvent::parse("pretooluse"), None);
        assert_eq!(HookEvent::parse("subagentstop"), None);
        assert_eq!(HookEvent::parse("TeammateIdle"), None);
        assert_eq!(HookEvent::SubagentStop.matcher_field(), Some("agent_type"));
        assert_eq!(HookEvent::PreCompact.matcher_field(), Some("trigger"));
    }

    #[test]
    fn input_has_the_common_fields_first_and_they_cannot_be_overridden() {
        let context = HookContext {
            session_id: "s1".into(),
            transcript_path: None,
            cwd: "/w".into(),
            permission_mode: String::new(),
        };
        let mut fields = tool_fields("bash", &json!({"command": "ls"}), "call_1");
        fields["hook_event_name"] = json!("Stop");
        let input = hook_input(&context, HookEvent::PreToolUse, fields);
        let keys: Vec<&String> = input.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "session_id",
                "cwd",
                "permission_mode",
                "hook_event_name",
                "tool_name",
                "tool_input",
                "tool_use_id"
            ]
        );
        assert_eq!(input["hook_event_name"], "PreToolUse");
        assert_eq!(input["permission_mode"], "default");
        assert_eq!(input["tool_input"]["command"], "ls");
        let with_path = HookContext {
            transcript_path: Some("/t.jsonl".into()),
            ..context
        };
        let input = hook_input(&with_path, HookEvent::Stop, json!(null));
        assert_eq!(input["transcript_path"], "/t.jsonl");
    }
}
