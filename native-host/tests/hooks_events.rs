//! The lifecycle events beyond a run's own: `PreCompact` and `SessionStart` `compact` around a
//! compaction (manual and automatic), `SubagentStart` and `SubagentStop` around a child, each
//! with real hook processes that record the JSON they were given.

#[path = "hooks/harness.rs"]
mod harness;

use agentwire::model::{ChatMessage, ModelResponse, ToolCall};
use agentwire::policy::Policy;
use agentwire::subagent::{AgentSet, AGENT_TOOL};
use harness::{command, local, Observer, World};
use serde_json::{json, Value};

/// A hook that saves its stdin to `$CLAUDE_PROJECT_DIR/<file>` and prints `stdout` (if any).
fn recorder(file: &str, stdout: Option<Value>) -> Value {
    let print = match stdout {
        Some(out) => format!("; printf '%s' '{out}'"),
        None => String::new(),
    };
    command(
        &format!("cat > \"$CLAUDE_PROJECT_DIR/{file}\"{print}"),
        None,
    )
}

fn recorded(world: &World, file: &str) -> Option<Value> {
    let text = std::fs::read_to_string(world.path().join(file)).ok()?;
    Some(serde_json::from_str(&text).expect("the hook saved JSON"))
}

fn user_texts(world: &World, request: usize) -> Vec<String> {
    world.model.requests.borrow()[request]
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::User { content } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

fn compaction_hooks() -> Value {
    let context = json!({"hookSpecificOutput": {
        "hookEventName": "SessionStart", "additionalContext": "after-compact canary 31"}});
    json!({"hooks": {
        "PreCompact": [
            {"matcher": "manual", "hooks": [recorder("pre-manual.json", None)]},
            {"matcher": "auto", "hooks": [recorder("pre-auto.json", None)]}
        ],
        "SessionStart": [
            {"matcher": "compact", "hooks": [recorder("start-compact.json", Some(context))]},
            {"matcher": "startup", "hooks": [recorder("start-startup.json", None)]}
        ]
    }})
}

#[test]
fn a_manual_compaction_fires_pre_compact_then_session_start_compact_whose_context_joins_the_next_prompt(
) {
    let replies = vec![
        ModelResponse::text("first answer"),
        ModelResponse::text("the summary"),
        ModelResponse::text("second answer"),
    ];
    let world = World::new(Policy::new(), compaction_hooks(), replies);
    let observer = Observer::default();
    local(async {
        world.runtime.run("hello there", &observer).await.unwrap();
        assert!(recorded(&world, "pre-manual.json").is_none());
        world
            .runtime
            .compact(Some("keep the names"), &observer)
            .await
            .unwrap();
        world.runtime.run("and now?", &observer).await.unwrap();
    });
    let pre = recorded(&world, "pre-manual.json").expect("PreCompact ran");
    assert_eq!(pre["hook_event_name"], "PreCompact");
    assert_eq!(pre["trigger"], "manual");
    assert_eq!(pre["custom_instructions"], "keep the names");
    assert_eq!(pre["session_id"], "test-session");
    assert!(recorded(&world, "pre-auto.json").is_none());
    let after = recorded(&world, "start-compact.json").expect("SessionStart compact ran");
    assert_eq!(after["hook_event_name"], "SessionStart");
    assert_eq!(after["source"], "compact");
    assert!(recorded(&world, "start-startup.json").is_none());
    let requests = world.model.requests.borrow();
    assert_eq!(requests.len(), 3);
    // The context is in the conversation after the compaction, never in the system prompt.
    let last = user_texts(&world, 2).join("\n");
    assert!(last.contains("after-compact canary 31"), "{last}");
    assert!(requests.iter().all(|r| !r.system.contains("canary")));
    assert!(!user_texts(&world, 1).join("").contains("canary"));
    drop(requests);
    let events: Vec<String> = world
        .hook_audit()
        .iter()
        .map(|l| l["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["PreCompact", "SessionStart"]);
}

#[test]
fn a_refused_compaction_fires_no_hook() {
    let world = World::new(Policy::new(), compaction_hooks(), vec![]);
    let observer = Observer::default();
    let refused = local(world.runtime.compact(None, &observer));
    assert!(refused.is_err(), "nothing to compact");
    assert!(recorded(&world, "pre-manual.json").is_none());
    assert!(world.hook_audit().is_empty());
}

#[test]
fn an_automatic_compaction_fires_pre_compact_auto_and_session_start_compact() {
    let long = "a long answer that fills the window. ".repeat(60);
    let replies = vec![
        ModelResponse::text(long),
        ModelResponse::text("the summary"),
        ModelResponse::text("second answer"),
    ];
    let world = World::new(Policy::new(), compaction_hooks(), replies);
    let observer = Observer::default();
    local(async {
        world.runtime.run("hello there", &observer).await.unwrap();
        world
            .runtime
            .with_agent(|agent| agent.config_mut().context.window = Some(400));
        world.runtime.run("and now?", &observer).await.unwrap();
    });
    let pre = recorded(&world, "pre-auto.json").expect("PreCompact auto ran");
    assert_eq!(pre["trigger"], "auto");
    assert_eq!(pre["custom_instructions"], "");
    assert!(recorded(&world, "pre-manual.json").is_none());
    let after = recorded(&world, "start-compact.json").expect("SessionStart compact ran");
    assert_eq!(after["source"], "compact");
    let requests = world.model.requests.borrow();
    assert_eq!(requests.len(), 3, "answer, summary, answer");
    let summary = format!("{:?}", requests[1].messages.last());
    assert!(summary.to_lowercase().contains("summar"), "{summary}");
    // The hook's context reached the request right after the compaction, in the same run:
    // the compacted conversation, then the context as a message of its own.
    let after = &requests[2];
    assert!(!after.system.contains("canary"));
    assert_eq!(
        after.messages.last(),
        Some(&ChatMessage::User {
            content: "<hook-context>\nafter-compact canary 31\n</hook-context>".into()
        })
    );
    let compacted = &after.messages[..after.messages.len() - 1];
    assert!(!format!("{compacted:?}").contains("canary"));
    assert!(format!("{compacted:?}").contains("and now?"));
    drop(requests);
    // It is in the history once, not held back for the next prompt as well.
    world
        .runtime
        .with_agent(|agent| agent.config_mut().context.window = None);
    local(world.runtime.run("later", &observer)).unwrap();
    let requests = world.model.requests.borrow();
    let last = format!("{:?}", requests.last().unwrap().messages);
    assert_eq!(last.matches("canary 31").count(), 1, "{last}");
}

#[test]
fn stubbing_old_tool_results_fires_pre_compact_auto_once_and_no_session_start_compact() {
    let big = json!({"echo": "a long tool result that fills the window. ", "times": 200});
    let replies = vec![
        harness::call(1, "peek", big),
        ModelResponse::text("first answer"),
        ModelResponse::text("second answer"),
        ModelResponse::text("third answer"),
    ];
    let world = World::new(Policy::new(), compaction_hooks(), replies);
    let observer = Observer::default();
    local(async {
        world.runtime.run("hello there", &observer).await.unwrap();
        assert!(recorded(&world, "pre-auto.json").is_none());
        world.runtime.with_agent(|agent| {
            let context = &mut agent.config_mut().context;
            context.window = Some(1000);
            context.keep_tool_results = 0;
        });
        world.runtime.run("and now?", &observer).await.unwrap();
        // The stubbed conversation fits: no compaction, so no second `PreCompact`.
        world.runtime.run("and then?", &observer).await.unwrap();
    });
    let pre = recorded(&world, "pre-auto.json").expect("PreCompact auto ran for the stubs");
    assert_eq!(pre["hook_event_name"], "PreCompact");
    assert_eq!(pre["trigger"], "auto");
    assert_eq!(pre["custom_instructions"], "");
    assert!(recorded(&world, "pre-manual.json").is_none());
    assert!(
        recorded(&world, "start-compact.json").is_none(),
        "stubs keep the conversation: no SessionStart compact"
    );
    let requests = world.model.requests.borrow();
    assert_eq!(
        requests.len(),
        4,
        "no summary request: call, answer, answer, answer"
    );
    let results: Vec<&String> = requests[2]
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { content, .. } => Some(content),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].starts_with("[result of peek (call c1, 8400 characters) cleared"));
    let second = format!("{:?}", requests[2].messages);
    assert!(!second.to_lowercase().contains("summar"), "{second}");
    drop(requests);
    let stubs = observer
        .events
        .borrow()
        .iter()
        .filter(|e| matches!(e, agentwire::agent::UiEvent::Compacted { .. }))
        .count();
    assert_eq!(stubs, 1);
    let events: Vec<String> = world
        .hook_audit()
        .iter()
        .map(|l| l["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["PreCompact"]);
}

fn agent_call(prompt: &str) -> ModelResponse {
    ModelResponse {
        text: None,
        tool_calls: vec![ToolCall {
            id: "call-agent".into(),
            name: AGENT_TOOL.into(),
            arguments: json!({"description": "task", "prompt": prompt, "subagent_type": "general-purpose"}),
        }],
        usage: None,
    }
}

/// A `SubagentStop` hook that saves its input and blocks unless it follows a continuation.
const SUB_STOP: &str = r#"f="$CLAUDE_PROJECT_DIR/sub-stop.json"; [ -e "$f" ] && f="$CLAUDE_PROJECT_DIR/sub-stop-2.json"; cat > "$f"; grep -q '"stop_hook_active": *true' "$f" || printf '%s' '{"decision": "block", "reason": "keep going"}'"#;

#[test]
fn a_subagent_fires_subagent_start_with_context_for_its_prompt_and_subagent_stop_with_its_answer() {
    let context = json!({"hookSpecificOutput": {
        "hookEventName": "SubagentStart", "additionalContext": "child canary 44"}});
    // Blocks once: the child goes on with the reason, and the next firing says it follows a
    // continuation (saved beside the first).
    let sub_stop = command(SUB_STOP, None);
    let settings = json!({"hooks": {
        "SubagentStart": [
            {"matcher": "general-purpose", "hooks": [recorder("sub-start.json", Some(context))]},
            {"matcher": "^Explore$", "hooks": [recorder("explore-start.json", None)]}
        ],
        "SubagentStop": [{"matcher": "general-purpose|Plan", "hooks": [sub_stop]}]
    }});
    let replies = vec![
        agent_call("count the files"),
        ModelResponse::text("the child's answer: 3 files"),
        ModelResponse::text("the child's second answer: 4 files"),
        ModelResponse::text("parent done"),
    ];
    let world = World::new(Policy::new(), settings, replies);
    world.runtime.set_agents(AgentSet::with_builtin());
    let observer = Observer::default();
    let answer = local(world.runtime.run("delegate", &observer)).unwrap();
    assert_eq!(answer, "parent done");
    let start = recorded(&world, "sub-start.json").expect("SubagentStart ran");
    assert_eq!(start["hook_event_name"], "SubagentStart");
    assert_eq!(start["agent_type"], "general-purpose");
    let id = start["agent_id"].as_str().unwrap().to_owned();
    assert!(!id.is_empty());
    assert!(recorded(&world, "explore-start.json").is_none());
    let stop = recorded(&world, "sub-stop.json").expect("SubagentStop ran");
    assert_eq!(stop["hook_event_name"], "SubagentStop");
    assert_eq!(stop["agent_type"], "general-purpose");
    assert_eq!(stop["agent_id"], id.as_str());
    assert_eq!(stop["stop_hook_active"], false);
    assert_eq!(
        stop["last_assistant_message"],
        "the child's answer: 3 files"
    );
    let again = recorded(&world, "sub-stop-2.json").expect("SubagentStop ran again");
    assert_eq!(again["stop_hook_active"], true);
    assert_eq!(again["agent_id"], id.as_str());
    assert_eq!(
        again["last_assistant_message"],
        "the child's second answer: 4 files"
    );
    // The context reached the child's first request as conversation, not as its system prompt,
    // and never the parent's requests.
    let requests = world.model.requests.borrow();
    assert_eq!(requests.len(), 4, "parent, child, child continued, parent");
    let child = format!("{:?}", requests[1].messages);
    assert!(child.contains("child canary 44") && child.contains("count the files"));
    assert!(!requests[1].system.contains("canary"));
    // The hook's block continued the child inside its own run: its second request extends
    // its first with the answer and the reason.
    let (first, second) = (&requests[1], &requests[2]);
    assert_eq!(second.system, first.system);
    assert_eq!(second.messages[..first.messages.len()], first.messages[..]);
    assert_eq!(
        second.messages.last(),
        Some(&ChatMessage::User {
            content: "SubagentStop hook feedback:\nblocked by hook ".to_owned()
                + SUB_STOP
                + ": keep going"
        })
    );
    // The parent got the child's last answer only.
    let parent = format!("{:?}", requests[3].messages);
    assert!(!parent.contains("canary"));
    assert!(
        parent.contains("4 files") && !parent.contains("3 files"),
        "{parent}"
    );
    drop(requests);
    let events: Vec<String> = world
        .hook_audit()
        .iter()
        .map(|l| l["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["SubagentStart", "SubagentStop", "SubagentStop"]);
}
