//! Tests of the mock server through its public line interface, as a client would drive it.

mod issue_tools;
mod protocol;
mod repo_tools;
mod resources;
mod tool_errors;

use super::{MockGithubServer, MockOptions};
use serde_json::{json, Value};

/// Sends one JSON value as a line; returns the parsed response lines, checking the framing.
fn send(server: &mut MockGithubServer, message: &Value) -> Vec<Value> {
    send_raw(server, message.to_string().as_bytes())
}

/// Sends raw bytes as one line; returns the parsed response lines, checking the framing.
fn send_raw(server: &mut MockGithubServer, line: &[u8]) -> Vec<Value> {
    server
        .handle_line(line)
        .into_iter()
        .map(|out| {
            assert_eq!(
                out.last(),
                Some(&b'\n'),
                "every response line ends in a newline"
            );
            assert_eq!(
                out.iter().filter(|&&b| b == b'\n').count(),
                1,
                "a response is exactly one line"
            );
            serde_json::from_slice(&out).unwrap_or_else(|e| panic!("response is not JSON: {e}"))
        })
        .collect()
}

/// Sends one request and returns its single response.
fn request(server: &mut MockGithubServer, id: u64, method: &str, params: Value) -> Value {
    let mut out = send(
        server,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
    assert_eq!(
        out.len(),
        1,
        "{method} must get exactly one response: {out:?}"
    );
    let response = out.remove(0);
    assert_eq!(response["id"], json!(id), "the response echoes the id");
    assert_eq!(response["jsonrpc"], "2.0");
    response
}

/// The outcome of a `tools/call`: whether it is an error result, and its text.
fn call(server: &mut MockGithubServer, name: &str, arguments: Value) -> (bool, String) {
    let response = request(
        server,
        99,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    );
    let result = &response["result"];
    assert!(
        result.is_object(),
        "{name}: expected a result, got {response}"
    );
    let content = result["content"].as_array().cloned().unwrap_or_default();
    assert_eq!(content.len(), 1, "{name}: one text block");
    assert_eq!(content[0]["type"], "text");
    let text = content[0]["text"].as_str().unwrap_or_default().to_owned();
    (result["isError"] == json!(true), text)
}

/// A successful `tools/call`, with its text parsed back into the GitHub API response.
fn call_ok(server: &mut MockGithubServer, name: &str, arguments: Value) -> Value {
    let (is_error, text) = call(server, name, arguments.clone());
    assert!(!is_error, "{name}({arguments}) failed: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: result text is not JSON: {e}"))
}

/// A failed `tools/call`: its error text.
fn call_err(server: &mut MockGithubServer, name: &str, arguments: Value) -> String {
    let (is_error, text) = call(server, name, arguments.clone());
    assert!(is_error, "{name}({arguments}) should fail, got {text}");
    text
}

fn server() -> MockGithubServer {
    MockGithubServer::with_options(MockOptions::new())
}

/// The `number` of each item (of a list, or of a search result's `items`).
fn numbers(v: &Value) -> Vec<u64> {
    let items = v.get("items").unwrap_or(v);
    items
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["number"].as_u64()).collect())
        .unwrap_or_default()
}

/// The string `key` of each item (of a list, or of a search result's `items`).
fn strings(v: &Value, key: &str) -> Vec<String> {
    let items = v.get("items").unwrap_or(v);
    items
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i[key].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}
