//! Instructions in the loop: the block is the fixed prefix, conditional rules join the result
//! of the first file tool call on a matching file, once per conversation.

use super::*;
use crate::instructions::{resolve, Access, InstructionReader, ReadError, Sources};

/// A project at `/r` with one always-on file and one rule for `src/**/*.ts`.
struct Project;

impl InstructionReader for Project {
    fn read(&self, path: &str, _access: Access) -> Result<String, ReadError> {
        match path {
            "/r/AGENTS.md" => Ok("Run the tests before you answer.".into()),
            "/r/.claude/rules/ts.md" => Ok("---\npaths: src/**/*.ts\n---\nTS RULE".into()),
            _ => Err(ReadError::Missing),
        }
    }
    fn list_markdown(&self, dir: &str, _access: Access) -> Vec<String> {
        match dir {
            "/r/.claude/rules" => vec!["/r/.claude/rules/ts.md".into()],
            _ => Vec::new(),
        }
    }
}

fn harness() -> Harness {
    let mut h = Harness::new(
        Policy::from_lists::<&str>(&["read_file"], &[], &[]).unwrap(),
        AgentConfig::default(),
    );
    h.agent
        .registry_mut()
        .register_builtin(ToolSpec::builtin(
            "read_file",
            "Read",
            json!({"type": "object"}),
            Risk::Read,
        ))
        .unwrap();
    let found = resolve(&Sources::new("/r", "/r"), &Project);
    h.agent.set_instructions("BASE", &found).unwrap();
    h
}

fn tool_contents(request: &ModelRequest) -> Vec<String> {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_rule_joins_the_first_matching_read_and_the_prefix_never_changes() {
    let read = |id: &str, path: &str| reply(None, &[(id, "read_file", json!({"path": path}))]);
    let mut h = harness().script([
        read("1", "README.md"),
        read("2", "src/a.ts"),
        read("3", "src/b.ts"),
        answer("done"),
        read("4", "src/a.ts"),
        answer("again"),
    ]);
    h.run("look");
    h.run("more");
    let first = &h.requests[0];
    assert!(
        first.system.starts_with("BASE\n\n# Instructions"),
        "{}",
        first.system
    );
    assert!(first.system.contains("Run the tests before you answer."));
    assert!(
        !first.system.contains("TS RULE"),
        "a conditional rule is never in the prefix"
    );
    for request in &h.requests {
        assert_eq!(
            request.system, first.system,
            "the system prompt changed within a session"
        );
    }
    let last = h.requests.last().unwrap();
    let contents = tool_contents(last);
    assert_eq!(contents[0], "result of read_file");
    assert_eq!(
        contents[1],
        "result of read_file\n\n[Instructions for files like src/a.ts, from .claude/rules/ts.md]\nTS RULE"
    );
    assert_eq!(contents[2], "result of read_file", "a rule joins once");
    assert_eq!(
        contents[3], "result of read_file",
        "still once in the next run"
    );
    // Earlier messages are kept byte for byte: each request extends the one before.
    for pair in h.requests.windows(2) {
        assert_eq!(
            pair[0].messages[..],
            pair[1].messages[..pair[0].messages.len()]
        );
    }
    // A new conversation: the rule may join again.
    h.agent.clear_history().unwrap();
    let mut h = h.script([read("5", "src/a.ts"), answer("ok")]);
    h.run("new");
    assert!(tool_contents(h.requests.last().unwrap())[0].ends_with("TS RULE"));
}

#[test]
fn a_failed_call_brings_no_rule_and_instructions_cannot_change_mid_run() {
    let mut h = harness()
        .tools(|_| Err(ToolFailure::Error("no such file".into())))
        .script([
            reply(None, &[("1", "read_file", json!({"path": "src/a.ts"}))]),
            answer("done"),
        ]);
    h.run("look");
    let contents = tool_contents(h.requests.last().unwrap());
    assert!(!contents[0].contains("TS RULE"), "{}", contents[0]);
    assert_eq!(h.agent.path_rules().rules().len(), 1);
    let before = h.agent.config().system_prompt.clone();
    h.agent.start_run(Instant::from_millis(1), "x").unwrap();
    let empty = crate::instructions::Instructions::default();
    assert_eq!(
        h.agent.set_instructions("OTHER", &empty),
        Err(AgentError::RunActive)
    );
    assert_eq!(h.agent.config().system_prompt, before);
}
