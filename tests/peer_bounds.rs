//! A server that floods the client with what no request waits for: the session's and the
//! driver's queues stay bounded, the flood is counted and reported, and calls still complete.

mod support;

use agentwire::driver::{McpClient, EVENT_QUEUE_CAPACITY};
use agentwire::mcp::{CallOptions, SessionConfig, SessionEvent, MAX_QUEUED_EVENTS};
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use futures::StreamExt;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::async_io::{memory_pipe, ManualClock};
use support::{text_result, Pair};

fn log_line(n: usize) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "data": format!("flood {n}")}})
    )
}

#[test]
fn an_undrained_session_drops_and_counts_notifications_but_never_a_response() {
    let mut pair = Pair::ready();
    let call = pair
        .client
        .call_tool(pair.now, "echo", json!({}), CallOptions::default())
        .unwrap();
    pair.drain();
    let request = pair.sent.pop_back().unwrap();
    // One huge input: far more notifications than the cap, then the call's answer.
    let flood = MAX_QUEUED_EVENTS + 1000;
    let mut bytes: String = (0..flood).map(log_line).collect();
    bytes.push_str(&format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": request["id"], "result": text_result("done")})
    ));
    pair.client.handle_bytes(pair.now, bytes.as_bytes());
    assert_eq!(pair.client.dropped_events(), 1000);
    let mut logs = 0;
    let mut answered = false;
    while let Some(event) = pair.client.poll_event() {
        match event {
            SessionEvent::Log { .. } => logs += 1,
            SessionEvent::ToolResult { request, result } => {
                assert_eq!(request, call);
                assert_eq!(result.unwrap().to_model_text(), "done");
                answered = true;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(logs, MAX_QUEUED_EVENTS);
    assert!(answered, "the response is never dropped");
}

#[test]
fn server_requests_the_host_never_answers_are_refused_beyond_the_cap() {
    let mut pair = Pair::ready_with(SessionConfig {
        roots: true,
        ..SessionConfig::default()
    });
    let asks: String = (0..MAX_QUEUED_EVENTS + 3)
        .map(|i| {
            format!(
                "{}\n",
                json!({"jsonrpc": "2.0", "id": i, "method": "roots/list"})
            )
        })
        .collect();
    pair.client.handle_bytes(pair.now, asks.as_bytes());
    pair.drain();
    let refused: Vec<&Value> = pair
        .sent
        .iter()
        .filter(|m| m["error"]["message"].as_str().is_some())
        .collect();
    assert_eq!(refused.len(), 3, "{:?}", pair.sent.front());
    assert!(refused[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("unanswered requests"));
    assert_eq!(pair.client.dropped_events(), 3);
}

/// A server that answers the handshake and `echo`, and floods `per_wake` log lines (plus a
/// `roots/list` request every 100) each time the client sends it something.
async fn flooding_server(
    mut from_client: futures::channel::mpsc::UnboundedReceiver<Vec<u8>>,
    to_client: futures::channel::mpsc::UnboundedSender<Vec<u8>>,
    per_wake: usize,
    refusals: Rc<RefCell<Vec<Value>>>,
) {
    let mut buffer = Vec::new();
    let mut sent = 0;
    while let Some(chunk) = from_client.next().await {
        buffer.extend_from_slice(&chunk);
        while let Some(pos) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=pos).collect();
            let msg: Value = serde_json::from_slice(&line).unwrap();
            let result = match msg["method"].as_str() {
                Some("initialize") => json!({"protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}}, "serverInfo": {"name": "flood"}}),
                Some("tools/call") => text_result("still here"),
                Some(_) => continue,
                None => {
                    if msg.get("error").is_some() {
                        refusals.borrow_mut().push(msg);
                    }
                    continue;
                }
            };
            let mut out: String = (0..per_wake)
                .map(|n| {
                    sent += 1;
                    if sent % 100 == 0 {
                        format!(
                            "{}\n",
                            json!({"jsonrpc": "2.0", "id": format!("r{sent}"), "method": "roots/list"})
                        )
                    } else {
                        log_line(n)
                    }
                })
                .collect();
            out.push_str(&format!(
                "{}\n",
                json!({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            ));
            let _ = to_client.unbounded_send(out.into_bytes());
        }
    }
}

#[test]
fn the_driver_keeps_at_most_its_capacity_for_a_reader_that_never_reads() {
    let mut pool = LocalPool::new();
    let (transport, from_client, to_client) = memory_pipe();
    let refusals = Rc::new(RefCell::new(Vec::new()));
    pool.spawner()
        .spawn_local(flooding_server(
            from_client,
            to_client,
            3000,
            Rc::clone(&refusals),
        ))
        .unwrap();
    let spawner = pool.spawner();
    let spawn = move |f| spawner.spawn_local(f).unwrap();
    let config = SessionConfig {
        roots: true,
        ..SessionConfig::default()
    };
    let connect = McpClient::connect(config, transport, ManualClock::default(), spawn);
    let (client, _) = pool.run_until(connect).expect("connected");
    for _ in 0..3 {
        let out = pool
            .run_until(client.call_tool("echo", json!({}), CallOptions::default()))
            .expect("the flooded session still answers");
        assert_eq!(out.to_model_text(), "still here");
    }
    pool.run_until_stalled();
    // 4 floods of 3,000 (30 of each 3,000 a server request): all but the capacity dropped.
    let dropped = client.dropped_events();
    assert_eq!(dropped, 4 * 3000 - EVENT_QUEUE_CAPACITY as u64);
    assert!(
        !refusals.borrow().is_empty()
            && refusals.borrow()[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not keeping up"),
        "server requests that find the queue full are answered with an error"
    );
    let mut events = client.take_events().expect("the event stream");
    assert_eq!(events.len(), EVENT_QUEUE_CAPACITY);
    assert_eq!(
        events.try_recv(),
        Ok(SessionEvent::EventsDropped { count: dropped })
    );
    let rest = std::iter::from_fn(|| events.try_recv().ok()).count();
    assert_eq!(rest, EVENT_QUEUE_CAPACITY);
}
