//! Scripted MCP servers for runtime tests: the well-behaved one and the ones that misbehave.
//!
//! Each runs as a task on the test's `LocalPool` at the far end of a `memory_pipe`. Every server
//! offers the same two tools, so two of them side by side exercise namespacing:
//! - `echo` (annotated read-only): answers `"<server> echoed <text>"`; with `"mode": "fail"` it
//!   returns an `isError` result that quotes the arguments, with `"mode": "hang"` it never
//!   answers;
//! - `publish` (no annotations, so its risk is inferred `write` and the default policy asks):
//!   answers `"<server> published <text>"`.

use super::async_io::{memory_pipe, MemoryTransport};
use futures::channel::mpsc;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use futures::StreamExt;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// How a scripted server behaves once connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// Answers everything.
    Normal,
    /// Finishes the handshake and lists its tools, then never answers a `tools/call`.
    NeverAnswersCalls,
    /// Surrounds every reply with lines that are not JSON-RPC messages.
    Noisy,
    /// Hangs up (ends its output stream) on the first `tools/call`, without answering it.
    DiesOnFirstCall,
}

/// The lines a noisy server wraps around each reply: not JSON, cut-off JSON, and JSON that is
/// not a JSON-RPC message.
pub const NOISE: [&str; 3] = [
    "this line is not JSON at all",
    r#"{"jsonrpc": "2.0", "id": "#,
    r#"{"jsonrpc": "2.0", "method": 42}"#,
];

/// The tools every scripted server lists.
pub fn tools() -> Value {
    json!([
        {
            "name": "echo",
            "description": "Echoes its text back.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}, "mode": {"type": "string"}}},
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "publish",
            "description": "Publishes its text.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}
        }
    ])
}

/// A running scripted server: the client's transport to it and every message it received.
pub struct ScriptedServer {
    /// The client's end of the pipe; hand it to `McpClient::connect`.
    pub transport: MemoryTransport,
    /// Every message the server read, in order.
    pub seen: Rc<RefCell<Vec<Value>>>,
}

/// Starts server `name` on `pool`.
pub fn spawn_server(pool: &LocalPool, name: &'static str, behaviour: Behaviour) -> ScriptedServer {
    let (transport, from_client, to_client) = memory_pipe();
    let seen = Rc::new(RefCell::new(Vec::new()));
    pool.spawner()
        .spawn_local(serve(
            name,
            behaviour,
            from_client,
            to_client,
            Rc::clone(&seen),
        ))
        .expect("the pool accepts the server task");
    ScriptedServer { transport, seen }
}

/// The `tools/call` requests a server received, as `(tool name, arguments)`.
pub fn calls_seen(seen: &RefCell<Vec<Value>>) -> Vec<(String, Value)> {
    seen.borrow()
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| {
            (
                m["params"]["name"].as_str().unwrap_or("").to_owned(),
                m["params"]["arguments"].clone(),
            )
        })
        .collect()
}

fn call_result(name: &str, msg: &Value) -> Option<Value> {
    let args = &msg["params"]["arguments"];
    let text = args["text"].as_str().unwrap_or("");
    let result = match (msg["params"]["name"].as_str(), args["mode"].as_str()) {
        (Some("echo"), Some("hang")) => return None,
        (Some("echo"), Some("fail")) => json!({
            "content": [{"type": "text", "text": format!("{name} refused arguments {args}")}],
            "isError": true
        }),
        (Some("echo"), _) => {
            json!({"content": [{"type": "text", "text": format!("{name} echoed {text}")}]})
        }
        (Some("publish"), _) => {
            json!({"content": [{"type": "text", "text": format!("{name} published {text}")}]})
        }
        (other, _) => json!({
            "content": [{"type": "text", "text": format!("{name} has no tool {other:?}")}],
            "isError": true
        }),
    };
    Some(result)
}

async fn serve(
    name: &'static str,
    behaviour: Behaviour,
    mut from_client: mpsc::UnboundedReceiver<Vec<u8>>,
    to_client: mpsc::UnboundedSender<Vec<u8>>,
    seen: Rc<RefCell<Vec<Value>>>,
) {
    let mut buffer = Vec::new();
    while let Some(chunk) = from_client.next().await {
        buffer.extend_from_slice(&chunk);
        while let Some(pos) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=pos).collect();
            let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            seen.borrow_mut().push(msg.clone());
            let result = match msg["method"].as_str() {
                Some("initialize") => json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": name, "version": "1.0"}
                }),
                Some("tools/list") => json!({"tools": tools()}),
                Some("tools/call") => match behaviour {
                    Behaviour::NeverAnswersCalls => continue,
                    // Dropping the sender ends the client's stream: the server is gone.
                    Behaviour::DiesOnFirstCall => return,
                    Behaviour::Normal | Behaviour::Noisy => match call_result(name, &msg) {
                        Some(result) => result,
                        None => continue,
                    },
                },
                _ => continue,
            };
            let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            // A noisy server sends its junk in the same chunk as the reply, so the client's
            // framing must separate them.
            let bytes = match behaviour {
                Behaviour::Noisy => {
                    format!("{}\n{}\n{reply}\n{}\n", NOISE[0], NOISE[1], NOISE[2])
                }
                _ => format!("{reply}\n"),
            };
            let _ = to_client.unbounded_send(bytes.into_bytes());
        }
    }
}
