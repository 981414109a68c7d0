//! The async driver over an in-memory transport, a scripted server task and a manual clock.

mod support;

use agentwire::driver::{McpClient, RequestHandler};
use agentwire::jsonrpc::ErrorObject;
use agentwire::mcp::{CallOptions, RequestError, SessionConfig};
use futures::channel::mpsc;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;
use support::async_io::{memory_pipe, ManualClock, MemoryTransport};

/// A scripted server: answers the handshake, lists one tool, echoes calls (unless the call's
/// `mode` is "hang"), and hangs up when asked to with `mode: "exit"`.
async fn scripted_server(
    mut from_client: mpsc::UnboundedReceiver<Vec<u8>>,
    mut to_client: mpsc::UnboundedSender<Vec<u8>>,
    version: &'static str,
    seen: Rc<RefCell<Vec<Value>>>,
) {
    let mut buffer = Vec::new();
    let mut held = Vec::new();
    let mut sampling_for = None;
    while let Some(chunk) = from_client.next().await {
        buffer.extend_from_slice(&chunk);
        while let Some(pos) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=pos).collect();
            let msg: Value = serde_json::from_slice(&line).unwrap();
            seen.borrow_mut().push(msg.clone());
            // The client's answer to our sampling request: finishes the call that asked.
            if msg["id"] == "sample-1" {
                let call: Value = sampling_for.take().expect("a call waiting for sampling");
                let text = match msg["result"]["content"]["text"].as_str() {
                    Some(text) => text.to_owned(),
                    None => format!("sampling failed: {}", msg["error"]["message"]),
                };
                let reply = json!({"jsonrpc": "2.0", "id": call["id"],
                    "result": {"content": [{"type": "text", "text": text}]}});
                let _ = to_client.send(format!("{reply}\n").into_bytes()).await;
                continue;
            }
            let result = match msg["method"].as_str() {
                Some("initialize") => {
                    json!({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "scripted"}})
                }
                Some("tools/list") => {
                    json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
                }
                Some("tools/call") => match msg["params"]["arguments"]["mode"].as_str() {
                    Some("hang") => continue,
                    // Asks the client's model first, as a server using sampling would.
                    Some("sample") => {
                        let ask = json!({"jsonrpc": "2.0", "id": "sample-1",
                            "method": "sampling/createMessage", "params": {"maxTokens": 50,
                            "messages": [{"role": "user", "content": {"type": "text",
                            "text": msg["params"]["arguments"]["text"]}}]}});
                        let _ = to_client.send(format!("{ask}\n").into_bytes()).await;
                        sampling_for = Some(msg);
                        continue;
                    }
                    Some("exit") => return,
                    // Held until a "flush" call arrives, then answered newest first.
                    Some("hold") => {
                        held.push(msg);
                        continue;
                    }
                    Some("flush") => {
                        for m in held.drain(..).rev() {
                            let text = m["params"]["arguments"]["text"].clone();
                            let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": text}]}});
                            let _ = to_client.send(format!("{reply}\n").into_bytes()).await;
                        }
                        json!({"content": []})
                    }
                    _ => {
                        json!({"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}]})
                    }
                },
                _ => continue,
            };
            let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            let _ = to_client.send(format!("{reply}\n").into_bytes()).await;
        }
    }
}

struct Harness {
    pool: LocalPool,
    clock: ManualClock,
    seen: Rc<RefCell<Vec<Value>>>,
    closed: Rc<Cell<bool>>,
    transport: Option<MemoryTransport>,
}

fn harness(version: &'static str) -> Harness {
    let pool = LocalPool::new();
    let (transport, c2s_rx, s2c_tx) = memory_pipe();
    let seen = Rc::new(RefCell::new(Vec::new()));
    pool.spawner()
        .spawn_local(scripted_server(c2s_rx, s2c_tx, version, Rc::clone(&seen)))
        .unwrap();
    let closed = Rc::clone(&transport.closed);
    Harness {
        pool,
        clock: ManualClock::default(),
        seen,
        closed,
        transport: Some(transport),
    }
}

impl Harness {
    fn connect(&mut self, config: SessionConfig) -> Result<McpClient, String> {
        self.connect_serving(config, None)
    }

    fn connect_serving(
        &mut self,
        config: SessionConfig,
        handler: Option<RequestHandler>,
    ) -> Result<McpClient, String> {
        let spawner = self.pool.spawner();
        let spawn = move |f| spawner.spawn_local(f).unwrap();
        let transport = self.transport.take().unwrap();
        let connect =
            McpClient::connect_serving(config, transport, self.clock.clone(), spawn, handler);
        self.pool
            .run_until(connect)
            .map(|(client, _)| client)
            .map_err(|e| e.to_string())
    }
}

/// Polls `future` once, lets every task run until none can move, and polls it again: its
/// output if it finished without time passing.
fn settle<F: std::future::Future>(h: &mut Harness, future: F) -> Option<F::Output> {
    let mut future = Box::pin(future);
    if let Some(out) = h
        .pool
        .run_until(futures::future::poll_immediate(&mut future))
    {
        return Some(out);
    }
    h.pool.run_until_stalled();
    h.pool
        .run_until(futures::future::poll_immediate(&mut future))
}

async fn call(client: &McpClient, args: Value) -> Result<String, RequestError> {
    let out = client
        .call_tool("echo", args, CallOptions::default())
        .await?;
    Ok(out.to_model_text())
}

#[test]
fn many_calls_in_flight_on_one_connection() {
    let mut h = harness("2025-11-25");
    let client = h.connect(SessionConfig::default()).unwrap();
    let tools = h.pool.run_until(client.list_tools()).unwrap();
    assert_eq!(tools[0]["name"], "echo");

    let calls = futures::future::join_all(
        (0..100).map(|i| call(&client, json!({"mode": "hold", "text": format!("t{i}")}))),
    );
    let flush = call(&client, json!({"mode": "flush"}));
    let (results, _) = h.pool.run_until(futures::future::join(calls, flush));
    let texts: Vec<String> = results.into_iter().map(Result::unwrap).collect();
    assert_eq!(texts, (0..100).map(|i| format!("t{i}")).collect::<Vec<_>>());
}

#[test]
fn one_sleep_serves_many_turns_while_the_earliest_deadline_stays() {
    let mut h = harness("2025-11-25");
    let client = h.connect(SessionConfig::default()).unwrap();
    let before = h.clock.sleeps_started();
    // With the clock standing still, 100 calls share one deadline; issuing and answering them
    // takes the driver many turns, and none of those turns may start a sleep of its own.
    let calls = futures::future::join_all(
        (0..100).map(|i| call(&client, json!({"mode": "hold", "text": format!("t{i}")}))),
    );
    let flush = call(&client, json!({"mode": "flush"}));
    let (results, _) = h.pool.run_until(futures::future::join(calls, flush));
    assert!(results.iter().all(Result::is_ok));
    let started = h.clock.sleeps_started() - before;
    assert_eq!(started, 1, "{started} sleeps for one unchanged deadline");
}

#[test]
fn a_hung_call_times_out_while_others_complete() {
    let mut h = harness("2025-11-25");
    let config = SessionConfig {
        request_timeout: Duration::from_secs(5),
        ..SessionConfig::default()
    };
    let client = h.connect(config).unwrap();
    let hung = client.call_tool("echo", json!({"mode": "hang"}), CallOptions::default());
    let mut hung = Box::pin(hung);
    assert!(h
        .pool
        .run_until(futures::future::poll_immediate(&mut hung))
        .is_none());
    assert_eq!(
        h.pool
            .run_until(call(&client, json!({"text": "still fine"})))
            .unwrap(),
        "still fine"
    );
    h.clock.advance(5_000);
    let err = h.pool.run_until(hung).unwrap_err();
    assert!(matches!(err, RequestError::Timeout { .. }), "{err}");
    h.pool.run_until_stalled();
    let seen = h.seen.borrow();
    let cancel = seen
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("cancelled was sent");
    assert!(cancel["params"]["reason"]
        .as_str()
        .unwrap()
        .contains("timed out after 5000 ms"));
}

#[test]
fn timeouts_stop_while_the_transport_authorizes() {
    let mut h = harness("2025-11-25");
    let signal = h.transport.as_mut().unwrap().authorization_signal();
    let config = SessionConfig {
        request_timeout: Duration::from_secs(5),
        ..SessionConfig::default()
    };
    let client = h.connect(config).unwrap();
    let hung = client.call_tool("echo", json!({"mode": "hang"}), CallOptions::default());
    let mut hung = Box::pin(hung);
    let mut pending = |h: &mut Harness| {
        h.pool
            .run_until(futures::future::poll_immediate(&mut hung))
            .is_none()
    };
    assert!(pending(&mut h));
    h.clock.advance(2_000);
    // The user spends a minute in the browser: far past the 5 s timeout.
    signal.unbounded_send(true).unwrap();
    h.pool.run_until_stalled();
    h.clock.advance(60_000);
    assert!(pending(&mut h), "no timeout while authorizing");
    signal.unbounded_send(false).unwrap();
    h.pool.run_until_stalled();
    // 2 s were used before the pause: 3 s are left.
    h.clock.advance(2_999);
    assert!(pending(&mut h));
    h.clock.advance(1);
    let err = h.pool.run_until(hung).unwrap_err();
    assert!(matches!(err, RequestError::Timeout { .. }), "{err}");
}

#[test]
fn a_server_samples_the_model_in_the_middle_of_its_tool_call() {
    let mut h = harness("2025-11-25");
    // A "model" that shouts, and refuses the word "secret".
    let handler: RequestHandler = Rc::new(|method: &str, params: Option<Value>| {
        let method = method.to_owned();
        Box::pin(async move {
            assert_eq!(method, "sampling/createMessage");
            let prompt = params.unwrap()["messages"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .to_owned();
            if prompt.contains("secret") {
                return Err(ErrorObject::new(-32603, "the model refused"));
            }
            Ok(json!({"role": "assistant", "model": "shouter",
                "content": {"type": "text", "text": prompt.to_uppercase()}}))
        })
    });
    let config = SessionConfig {
        sampling: true,
        ..SessionConfig::default()
    };
    let client = h.connect_serving(config, Some(handler)).unwrap();
    // No time passes: the call can only finish if the request was answered meanwhile.
    let shouted = settle(
        &mut h,
        call(&client, json!({"mode": "sample", "text": "shout this"})),
    );
    assert_eq!(
        shouted.expect("answered without waiting").unwrap(),
        "SHOUT THIS"
    );
    let refused = settle(
        &mut h,
        call(&client, json!({"mode": "sample", "text": "the secret"})),
    );
    assert_eq!(
        refused.expect("answered without waiting").unwrap(),
        "sampling failed: \"the model refused\""
    );
    let seen = h.seen.borrow();
    assert!(
        seen[0]["params"]["capabilities"]["sampling"].is_object(),
        "declared: {}",
        seen[0]
    );
}

#[test]
fn server_exit_fails_pending_calls_at_once_with_the_reason() {
    let mut h = harness("2025-11-25");
    let client = h.connect(SessionConfig::default()).unwrap();
    let pending = client.call_tool("echo", json!({"mode": "hang"}), CallOptions::default());
    let exit = client.call_tool("echo", json!({"mode": "exit"}), CallOptions::default());
    let (a, b) = h.pool.run_until(futures::future::join(pending, exit));
    for result in [a, b] {
        assert_eq!(
            result.unwrap_err(),
            RequestError::Closed("scripted server hung up".into())
        );
    }
    assert_eq!(
        client.closed_reason().as_deref(),
        Some("scripted server hung up")
    );
    h.pool.run_until_stalled();
    assert!(
        h.closed.get(),
        "the transport is closed once the session is"
    );
    let later = h.pool.run_until(call(&client, json!({"text": "x"})));
    assert!(matches!(later, Err(RequestError::Closed(_))));
}

#[test]
fn dropping_a_call_cancels_it_on_the_server() {
    let mut h = harness("2025-11-25");
    let client = h.connect(SessionConfig::default()).unwrap();
    {
        let mut hung =
            Box::pin(client.call_tool("echo", json!({"mode": "hang"}), CallOptions::default()));
        assert!(h
            .pool
            .run_until(futures::future::poll_immediate(&mut hung))
            .is_none());
    }
    h.pool.run_until_stalled();
    let seen = h.seen.borrow();
    let cancel = seen
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("cancelled was sent");
    assert_eq!(cancel["params"]["reason"], "the caller stopped waiting");
}

#[test]
fn an_unsupported_version_fails_connect_with_the_reason() {
    let mut h = harness("2023-01-01");
    let err = h.connect(SessionConfig::default()).err().unwrap();
    assert!(
        err.contains("\"2023-01-01\"") && err.contains("does not support"),
        "{err}"
    );
    h.pool.run_until_stalled();
    assert!(h.closed.get());
}

#[test]
fn dropping_every_handle_closes_the_transport() {
    let mut h = harness("2025-11-25");
    let client = h.connect(SessionConfig::default()).unwrap();
    h.pool.run_until_stalled();
    assert!(!h.closed.get());
    drop(client);
    h.pool.run_until_stalled();
    assert!(h.closed.get());
}
