//! A `Stop` hook that blocks continues the run: a real hook script exits 2 the first time and
//! 0 once its input says `stop_hook_active`, and the run makes one more model request with the
//! script's reason, then ends with one `done`.

#[path = "hooks/harness.rs"]
mod harness;

use agentwire::agent::UiEvent;
use agentwire::model::{ChatMessage, ModelResponse};
use agentwire::policy::Policy;
use harness::{command, local, Observer, World};
use serde_json::{json, Value};

/// Saves each input as `stop-<n>.json`; exits 0 when it follows a continuation, else 2 with
/// the reason on stderr (the hook Claude Code's documentation tells users to write).
const STOP_SCRIPT: &str = r#"input=$(cat)
n=$(ls "$CLAUDE_PROJECT_DIR" | grep -c '^stop-')
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/stop-$n.json"
if printf '%s' "$input" | grep -q '"stop_hook_active": *true'; then exit 0; fi
echo 'run the linter before you finish' >&2
exit 2
"#;

fn saved(world: &World, n: usize) -> Value {
    let text = std::fs::read_to_string(world.path().join(format!("stop-{n}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_stop_hook_that_exits_2_once_continues_the_run_with_its_reason_and_one_done() {
    let settings = json!({"hooks": {"Stop": [{"hooks": [
        command("sh \"$CLAUDE_PROJECT_DIR/stop.sh\"", Some(10.0))]}]}});
    let replies = vec![
        ModelResponse::text("all done"),
        ModelResponse::text("linted, now done"),
        ModelResponse::text("never asked for"),
    ];
    let world = World::new(Policy::new(), settings, replies);
    std::fs::write(world.path().join("stop.sh"), STOP_SCRIPT).unwrap();
    let observer = Observer::default();
    let answer = local(world.runtime.run("tidy up", &observer)).unwrap();
    assert_eq!(answer, "linted, now done");
    let requests = world.model.requests.borrow();
    assert_eq!(requests.len(), 2);
    let (first, second) = (&requests[0], &requests[1]);
    // The second request extends the first: same system prompt and tools, every message kept.
    assert_eq!(second.system, first.system);
    assert_eq!(second.tools, first.tools);
    assert_eq!(second.messages[..first.messages.len()], first.messages[..]);
    assert_eq!(
        second.messages[first.messages.len()..],
        [
            ChatMessage::Assistant {
                content: Some("all done".into()),
                tool_calls: vec![]
            },
            ChatMessage::User {
                content:
                    "Stop hook feedback:\nblocked by hook sh \"$CLAUDE_PROJECT_DIR/stop.sh\": \
                          run the linter before you finish"
                        .into()
            },
        ]
    );
    drop(requests);
    // One run, one terminal event.
    let events = observer.events.borrow();
    let dones: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            UiEvent::Done { answer, .. } => Some(answer.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(dones, ["linted, now done"]);
    assert!(!events.iter().any(|e| matches!(e, UiEvent::Error { .. })));
    assert!(matches!(events.last(), Some(UiEvent::Done { .. })));
    drop(events);
    let (one, two) = (saved(&world, 0), saved(&world, 1));
    assert_eq!(one["hook_event_name"], "Stop");
    assert_eq!(one["stop_hook_active"], false);
    assert_eq!(one["last_assistant_message"], "all done");
    assert_eq!(two["stop_hook_active"], true);
    assert_eq!(two["last_assistant_message"], "linted, now done");
    assert!(!world.path().join("stop-2.json").exists());
    let audit: Vec<(String, Value)> = world
        .hook_audit()
        .iter()
        .map(|l| (l["event"].as_str().unwrap().to_owned(), l["exit"].clone()))
        .collect();
    assert_eq!(
        audit,
        [("Stop".into(), json!(2)), ("Stop".into(), json!(0))]
    );
}

#[test]
fn ctrl_c_while_a_stop_hook_runs_ends_the_run_without_an_answer() {
    let settings = json!({"hooks": {"Stop": [{"hooks": [
        command("touch \"$CLAUDE_PROJECT_DIR/stop-started\"; sleep 30", Some(60.0))]}]}});
    let world = World::new(Policy::new(), settings, vec![ModelResponse::text("answer")]);
    let observer = Observer::default();
    let started = std::time::Instant::now();
    let handle = world.runtime.interrupt_handle();
    let result = local(async {
        let interrupt = async {
            while !world.path().join("stop-started").exists() {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            handle.interrupt("Ctrl-C").unwrap();
        };
        let (result, ()) = futures::join!(world.runtime.run("go", &observer), interrupt);
        result
    });
    let error = result.unwrap_err();
    assert!(error.0.starts_with("interrupted"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let events = observer.events.borrow();
    assert!(!events.iter().any(|e| matches!(e, UiEvent::Done { .. })));
    assert_eq!(world.model.requests.borrow().len(), 1);
}
