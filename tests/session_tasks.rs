//! The Tasks extension (`io.modelcontextprotocol/tasks`) in the client session, against a
//! scripted modern server with simulated time: declared only when asked for, a `tools/call`
//! answered with a task followed by `tasks/get` at the server's interval (or a bounded backoff),
//! its input requests answered through the host and sent with `tasks/update`, status messages
//! as progress, other calls served meanwhile, and `tasks/cancel` on cancel and on timeout.
#![cfg(feature = "mcp-tasks")]

mod support;

use agentwire::mcp::{
    CallOptions, ProtocolChoice, RequestError, SessionConfig, SessionEvent, FIRST_TASK_POLL,
    MAX_TASK_POLL, TASK_FALLBACK_POLL,
};
use serde_json::{json, Value};
use std::time::Duration;
use support::{text_result, Pair};

const MODERN: &str = "2026-07-28";

fn tasks_config() -> SessionConfig {
    SessionConfig {
        protocol: ProtocolChoice::Modern,
        elicitation: true,
        tasks: true,
        ..SessionConfig::default()
    }
}

fn modern_pair(config: SessionConfig) -> Pair {
    let mut pair = Pair::new(config);
    let probe = pair.recv();
    pair.reply(
        &probe,
        json!({"supportedVersions": [MODERN], "capabilities": {"tools": {},
               "extensions": {"io.modelcontextprotocol/tasks": {}}},
               "serverInfo": {"name": "tasker", "version": "1"}}),
    );
    assert!(matches!(pair.event(), SessionEvent::Ready(_)));
    pair
}

fn call(pair: &mut Pair, tool: &str, options: CallOptions) -> (agentwire::mcp::RequestId, Value) {
    let op = pair
        .client
        .call_tool(pair.now, tool, json!({}), options)
        .unwrap();
    (op, pair.recv())
}

fn task(id: &str, status: &str) -> Value {
    json!({"resultType": "task", "taskId": id, "status": status,
           "createdAt": "2026-12-02T00:00:00Z", "lastUpdatedAt": "2026-12-02T00:00:00Z",
           "ttlMs": null})
}

/// The `subscriptions/listen` the session opens for a task's status, once it is created: its
/// request (whose id names the stream).
fn listened(pair: &mut Pair, task_id: &str) -> Value {
    let listen = pair.recv();
    assert_eq!(listen["method"], "subscriptions/listen", "{listen}");
    assert_eq!(
        listen["params"]["notifications"],
        json!({"taskIds": [task_id]}),
        "{listen}"
    );
    assert_eq!(
        listen["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        MODERN
    );
    listen
}

/// The task's stream being closed (`notifications/cancelled` naming the listen request).
fn closed(pair: &mut Pair, listen: &Value) {
    let cancelled = pair.recv();
    assert_eq!(
        cancelled["method"], "notifications/cancelled",
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], listen["id"]);
}

fn capabilities(request: &Value) -> &Value {
    &request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
}

#[test]
fn the_extension_is_declared_only_when_asked_for_and_a_task_otherwise_refused() {
    let mut plain = modern_pair(SessionConfig {
        tasks: false,
        ..tasks_config()
    });
    let (_, request) = call(&mut plain, "slow", CallOptions::default());
    assert_eq!(capabilities(&request).get("extensions"), None);
    plain.reply(&request, task("t-1", "working"));
    let SessionEvent::ToolResult {
        result: Err(RequestError::InvalidResult(reason)),
        ..
    } = plain.event()
    else {
        panic!("a task nobody asked for is an invalid result")
    };
    assert!(
        reason.contains("\"tasker\"") && reason.contains("task"),
        "{reason}"
    );

    let mut pair = modern_pair(tasks_config());
    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    assert_eq!(
        capabilities(&request)["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
}

#[test]
fn a_task_is_polled_at_its_interval_reports_progress_and_ends_with_its_result() {
    let mut pair = modern_pair(tasks_config());
    let (op, request) = call(&mut pair, "slow", CallOptions::default());
    let mut created = task("t-42", "working");
    created["pollIntervalMs"] = json!(2_000);
    created["statusMessage"] = json!("queued");
    pair.reply(&request, created);
    let SessionEvent::Progress {
        request: about,
        message,
        ..
    } = pair.event()
    else {
        panic!("the status message is progress")
    };
    assert_eq!((about, message.as_deref()), (op, Some("queued")));
    let listen = listened(&mut pair, "t-42");
    assert!(pair.sent.is_empty());
    assert_eq!(
        pair.client.poll_timeout(),
        Some(agentwire::time::Instant::from_millis(
            pair.now.as_millis() + 2_000
        ))
    );

    // Another call is served while the task runs.
    let (other, echo) = call(&mut pair, "echo", CallOptions::default());
    pair.reply(&echo, text_result("meanwhile"));
    assert!(
        matches!(pair.event(), SessionEvent::ToolResult { request, result: Ok(_) } if request == other)
    );

    pair.advance(1_999);
    assert!(pair.sent.is_empty(), "not before the interval");
    pair.advance(1);
    let poll = pair.recv();
    assert_eq!(poll["method"], "tasks/get");
    assert_eq!(poll["params"]["taskId"], "t-42");
    assert_eq!(
        poll["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        MODERN
    );
    let mut done = task("t-42", "completed");
    done["resultType"] = json!("complete");
    done["result"] = text_result("finally");
    pair.reply(&poll, done);
    let SessionEvent::ToolResult {
        request: finished,
        result: Ok(output),
    } = pair.event()
    else {
        panic!("the task's result ends the call")
    };
    assert_eq!(finished, op);
    assert_eq!(output.to_model_text(), "finally");
    closed(&mut pair, &listen);
    assert_eq!(pair.client.poll_timeout(), None, "nothing left to poll");
}

#[test]
fn without_a_hint_polls_back_off_to_the_cap_and_a_failed_task_fails_the_call() {
    let mut pair = modern_pair(tasks_config());
    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    pair.reply(&request, task("t-7", "working"));
    listened(&mut pair, "t-7");
    let mut waits = Vec::new();
    let mut last = pair.now;
    for _ in 0..14 {
        let due = pair.client.poll_timeout().expect("a poll is due");
        waits.push(due.saturating_since(last));
        pair.now = due;
        pair.client.handle_timeout(due);
        let poll = pair.recv();
        assert_eq!(poll["method"], "tasks/get");
        last = pair.now;
        pair.reply(
            &poll,
            json!({"resultType": "complete", "taskId": "t-7", "status": "working"}),
        );
    }
    assert_eq!(waits[0], FIRST_TASK_POLL);
    assert!(waits.windows(2).all(|w| w[1] >= w[0]), "{waits:?}");
    assert_eq!(*waits.last().unwrap(), MAX_TASK_POLL, "{waits:?}");

    let due = pair.client.poll_timeout().unwrap();
    pair.now = due;
    pair.client.handle_timeout(due);
    let poll = pair.recv();
    pair.reply(
        &poll,
        json!({"resultType": "complete", "taskId": "t-7", "status": "failed",
               "error": {"code": -32603, "message": "disk full"}}),
    );
    let SessionEvent::ToolResult {
        result: Err(RequestError::Rpc(error)),
        ..
    } = pair.event()
    else {
        panic!("a failed task fails the call with its error")
    };
    assert_eq!((error.code, error.message.as_str()), (-32603, "disk full"));
}

#[test]
fn a_task_needing_input_asks_the_host_and_sends_the_answers_with_tasks_update() {
    let mut pair = modern_pair(tasks_config());
    let (op, request) = call(&mut pair, "book", CallOptions::default());
    pair.reply(&request, task("t-9", "working"));
    listened(&mut pair, "t-9");
    pair.advance(FIRST_TASK_POLL.as_millis() as u64);
    let poll = pair.recv();
    pair.reply(
        &poll,
        json!({"resultType": "complete", "taskId": "t-9", "status": "input_required",
               "inputRequests": {"seat": {"method": "elicitation/create",
                   "params": {"message": "Window or aisle?", "mode": "form",
                              "requestedSchema": {"type": "object"}}}}}),
    );
    let SessionEvent::ServerRequest { id, method, .. } = pair.event() else {
        panic!("the task's input request goes to the host")
    };
    assert_eq!(method, "elicitation/create");
    pair.advance(60_000);
    assert!(pair.sent.is_empty(), "no polls while the host is asked");
    pair.client
        .respond(
            &id,
            Ok(json!({"action": "accept", "content": {"seat": "aisle"}})),
        )
        .unwrap();
    let update = pair.recv();
    assert_eq!(update["method"], "tasks/update");
    assert_eq!(update["params"]["taskId"], "t-9");
    assert_eq!(
        update["params"]["inputResponses"],
        json!({"seat": {"action": "accept", "content": {"seat": "aisle"}}})
    );
    pair.reply(&update, json!({"resultType": "complete"}));
    let due = pair.client.poll_timeout().unwrap();
    pair.now = due;
    pair.client.handle_timeout(due);
    let poll = pair.recv();
    assert_eq!(
        poll["method"], "tasks/get",
        "polling resumes after the update"
    );
    pair.reply(
        &poll,
        json!({"resultType": "complete", "taskId": "t-9", "status": "completed",
               "result": text_result("booked: aisle")}),
    );
    let SessionEvent::ToolResult {
        request,
        result: Ok(output),
    } = pair.event()
    else {
        panic!("expected the result")
    };
    assert_eq!(
        (request, output.to_model_text()),
        (op, "booked: aisle".into())
    );
}

#[test]
fn cancelling_or_running_out_of_time_sends_tasks_cancel_and_a_late_answer_is_dropped() {
    let mut pair = modern_pair(tasks_config());
    let (op, request) = call(&mut pair, "slow", CallOptions::default());
    pair.reply(&request, task("t-c", "working"));
    let listen = listened(&mut pair, "t-c");
    pair.advance(FIRST_TASK_POLL.as_millis() as u64);
    let poll = pair.recv();
    pair.client.cancel(op, "interrupted").unwrap();
    closed(&mut pair, &listen);
    let cancel = pair.recv();
    assert_eq!(cancel["method"], "tasks/cancel");
    assert_eq!(cancel["params"]["taskId"], "t-c");
    let SessionEvent::ToolResult {
        request,
        result: Err(RequestError::Cancelled(reason)),
    } = pair.event()
    else {
        panic!("the call ends cancelled")
    };
    assert_eq!((request, reason.as_str()), (op, "interrupted"));
    // The poll's late answer and the cancel's acknowledgement find no task: nothing happens.
    pair.reply(
        &poll,
        json!({"resultType": "complete", "taskId": "t-c", "status": "working"}),
    );
    pair.reply(&cancel, json!({"resultType": "complete"}));
    assert!(pair.events.is_empty(), "{:?}", pair.events);
    assert!(pair.sent.is_empty(), "{:?}", pair.sent);

    // A task that never finishes ends at the call's total-time cap, with tasks/cancel.
    let options = CallOptions {
        max_total: Some(Duration::from_secs(20)),
        ..CallOptions::default()
    };
    let (op, request) = call(&mut pair, "forever", options);
    pair.reply(&request, task("t-f", "working"));
    let mut polls = 0;
    while pair.events.is_empty() {
        let due = pair.client.poll_timeout().expect("the task keeps a timer");
        pair.now = due;
        pair.client.handle_timeout(due);
        pair.drain();
        while let Some(sent) = pair.sent.pop_front() {
            match sent["method"].as_str() {
                Some("tasks/get") => {
                    polls += 1;
                    pair.reply(&sent, json!({"taskId": "t-f", "status": "working"}));
                }
                Some("tasks/cancel") => {
                    assert_eq!(sent["params"]["taskId"], "t-f");
                    pair.reply(&sent, json!({}));
                }
                // The task's status stream, opened and (at the end) closed.
                Some("subscriptions/listen" | "notifications/cancelled") => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    let SessionEvent::ToolResult {
        request,
        result: Err(RequestError::Timeout { waited, .. }),
    } = pair.event()
    else {
        panic!("the call times out")
    };
    assert_eq!(request, op);
    assert!(waited <= Duration::from_secs(20), "{waited:?}");
    assert!((3..=20).contains(&polls), "{polls} polls in 20 s");
    assert_eq!(pair.client.poll_timeout(), None);
}

#[test]
fn hostile_task_answers_end_the_call_with_a_reason() {
    let mut pair = modern_pair(tasks_config());
    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    pair.reply(&request, json!({"resultType": "task", "status": "working"}));
    let SessionEvent::ToolResult {
        result: Err(RequestError::InvalidResult(reason)),
        ..
    } = pair.event()
    else {
        panic!("a task without an id is refused")
    };
    assert!(
        reason.contains("taskId") && reason.contains("\"tasker\""),
        "{reason}"
    );

    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    pair.reply(&request, task(&"x".repeat(2_000), "working"));
    assert!(matches!(
        pair.event(),
        SessionEvent::ToolResult {
            result: Err(RequestError::InvalidResult(_)),
            ..
        }
    ));

    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    pair.reply(&request, task("t-odd", "sleeping"));
    let cancel = pair.recv();
    assert_eq!(
        cancel["method"], "tasks/cancel",
        "an unknown status gives up on the task"
    );
    let SessionEvent::ToolResult {
        result: Err(RequestError::InvalidResult(reason)),
        ..
    } = pair.event()
    else {
        panic!("an unknown status is refused")
    };
    assert!(reason.contains("\"sleeping\""), "{reason}");
}

fn acknowledge(pair: &mut Pair, listen: &Value, task_ids: Value) {
    pair.send(
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"taskIds": task_ids},
                   "_meta": {"io.modelcontextprotocol/subscriptionId": listen["id"]}}}),
    );
}

fn pushed(pair: &mut Pair, listen: &Value, mut state: Value) {
    state["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": listen["id"]});
    pair.send(json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": state}));
}

fn due_in(pair: &Pair) -> Duration {
    let due = pair.client.poll_timeout().expect("a timer");
    due.saturating_since(pair.now)
}

#[test]
fn task_status_pushed_on_the_listen_stream_replaces_polling() {
    let mut pair = modern_pair(tasks_config());
    let (op, request) = call(&mut pair, "slow", CallOptions::default());
    let mut created = task("t-p", "working");
    created["pollIntervalMs"] = json!(1_000);
    pair.reply(&request, created);
    let listen = listened(&mut pair, "t-p");
    assert_eq!(
        due_in(&pair),
        Duration::from_secs(1),
        "polled until acknowledged"
    );
    acknowledge(&mut pair, &listen, json!(["t-p"]));
    assert!(pair.events.is_empty(), "{:?}", pair.events);
    assert_eq!(
        due_in(&pair),
        TASK_FALLBACK_POLL,
        "polling is only the fallback now"
    );
    pair.advance(10_000);
    assert!(
        pair.sent.is_empty(),
        "no tasks/get while the status is pushed"
    );

    let mut working = task("t-p", "working");
    working["statusMessage"] = json!("halfway");
    working["pollIntervalMs"] = json!(1_000);
    pushed(&mut pair, &listen, working);
    let SessionEvent::Progress {
        request, message, ..
    } = pair.event()
    else {
        panic!("a pushed status message is progress")
    };
    assert_eq!((request, message.as_deref()), (op, Some("halfway")));
    assert_eq!(
        due_in(&pair),
        TASK_FALLBACK_POLL,
        "news pushes the fallback out"
    );

    // News of a task nobody follows is dropped.
    pushed(&mut pair, &listen, task("t-other", "completed"));
    assert!(pair.events.is_empty(), "{:?}", pair.events);

    let mut done = task("t-p", "completed");
    done["result"] = text_result("pushed result");
    pushed(&mut pair, &listen, done);
    let SessionEvent::ToolResult {
        request,
        result: Ok(output),
    } = pair.event()
    else {
        panic!("the pushed completion ends the call")
    };
    assert_eq!(
        (request, output.to_model_text()),
        (op, "pushed result".into())
    );
    closed(&mut pair, &listen);
    assert!(pair.sent.is_empty(), "never a tasks/get: {:?}", pair.sent);
    assert_eq!(pair.client.poll_timeout(), None);
}

#[test]
fn a_quiet_stream_falls_back_to_tasks_get_and_an_unacknowledged_or_ended_one_to_polling() {
    let mut pair = modern_pair(tasks_config());
    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    let mut created = task("t-q", "working");
    created["pollIntervalMs"] = json!(1_000);
    pair.reply(&request, created);
    let listen = listened(&mut pair, "t-q");
    acknowledge(&mut pair, &listen, json!(["t-q"]));
    pair.advance(TASK_FALLBACK_POLL.as_millis() as u64 - 1);
    assert!(pair.sent.is_empty());
    pair.advance(1);
    let poll = pair.recv();
    assert_eq!(
        poll["method"], "tasks/get",
        "a quiet stream: the fallback poll"
    );
    let working = json!({"resultType": "complete", "taskId": "t-q", "status": "working",
                         "pollIntervalMs": 1_000});
    pair.reply(&poll, working);
    assert_eq!(due_in(&pair), TASK_FALLBACK_POLL);
    // The server ends the stream: ordinary polling at the server's interval again.
    pair.reply_error(&listen, -32603, "stream closed");
    assert!(pair.events.is_empty(), "{:?}", pair.events);
    assert_eq!(due_in(&pair), Duration::from_secs(1));

    // A stream acknowledged without the task: ordinary polling all along.
    let (_, request) = call(&mut pair, "slow", CallOptions::default());
    pair.reply(&request, {
        let mut t = task("t-r", "working");
        t["pollIntervalMs"] = json!(1_000);
        t
    });
    let other = listened(&mut pair, "t-r");
    acknowledge(&mut pair, &other, json!([]));
    let soonest = due_in(&pair);
    assert!(soonest <= Duration::from_secs(1), "{soonest:?}");
}

#[test]
fn input_required_both_pushed_and_polled_asks_the_host_once() {
    let mut pair = modern_pair(tasks_config());
    let (_, request) = call(&mut pair, "book", CallOptions::default());
    pair.reply(&request, task("t-i", "working"));
    let listen = listened(&mut pair, "t-i");
    pair.advance(FIRST_TASK_POLL.as_millis() as u64);
    let poll = pair.recv();
    let needs = json!({"taskId": "t-i", "status": "input_required",
        "inputRequests": {"seat": {"method": "elicitation/create",
            "params": {"message": "Window or aisle?", "mode": "form",
                       "requestedSchema": {"type": "object"}}}}});
    pushed(&mut pair, &listen, needs.clone());
    pair.reply(&poll, needs);
    assert!(matches!(pair.event(), SessionEvent::ServerRequest { .. }));
    assert!(pair.events.is_empty(), "asked once: {:?}", pair.events);
}
