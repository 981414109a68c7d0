//! The modern era over Streamable HTTP: headers from the message itself, no session, the
//! modern error bodies of error statuses, parameter headers, and re-sends of broken streams.

use super::Host;
use serde_json::{json, Value};

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

fn request(id: u64, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn modern_requests_name_their_method_version_and_target_and_carry_no_session() {
    let mut host = Host::new();
    host.send(request(1, "server/discover", json!({})));
    let discover = host.request();
    assert_eq!(discover.header("MCP-Protocol-Version"), Some("2026-07-28"));
    assert_eq!(discover.header("Mcp-Method"), Some("server/discover"));
    assert_eq!(discover.header("Mcp-Name"), None);
    // A session id offered anyway is not adopted: the modern era has none.
    host.json(
        discover.id,
        &[("Mcp-Session-Id", "s-1")],
        r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}"#,
    );
    assert_eq!(host.messages().len(), 1);
    host.send(request(
        2,
        "tools/call",
        json!({"name": "café tool", "arguments": {}}),
    ));
    let call = host.request();
    assert_eq!(call.header("Mcp-Session-Id"), None);
    assert_eq!(call.header("Mcp-Method"), Some("tools/call"));
    assert_eq!(call.header("Mcp-Name"), Some("=?base64?Y2Fmw6kgdG9vbA==?="));
    host.send(request(
        3,
        "resources/read",
        json!({"uri": "file:///a%20b"}),
    ));
    assert_eq!(host.request().header("Mcp-Name"), Some("file:///a%20b"));
    // No GET stream is ever opened, and notifications name their method too.
    host.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
    );
    let note = host.request();
    assert_eq!(note.header("Mcp-Method"), Some("notifications/cancelled"));
    host.no_request();
}

#[test]
fn declared_parameters_become_headers_and_undeclared_or_null_ones_do_not() {
    let mut host = Host::new();
    host.send(request(1, "tools/list", json!({})));
    let list = host.request();
    let tools = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "route",
        "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "query": {"type": "string"}}}}]}});
    host.json(list.id, &[], &tools.to_string());
    let _ = host.messages();
    host.send(request(
        2,
        "tools/call",
        json!({"name": "route", "arguments":
        {"region": " eu ", "priority": 42, "verbose": null, "query": "q"}}),
    ));
    let call = host.request();
    assert_eq!(call.header("Mcp-Param-Region"), Some("=?base64?IGV1IA==?="));
    assert_eq!(call.header("Mcp-Param-Priority"), Some("42"));
    assert_eq!(call.header("Mcp-Param-Verbose"), None);
    assert_eq!(call.header("Mcp-Param-Query"), None);
    // The same call before its tool was listed, or in the legacy era, carries none.
    let mut legacy = Host::new();
    legacy.handshake("s");
    legacy.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "route", "arguments": {"region": "eu"}}}));
    let call = legacy.request();
    assert_eq!(call.header("Mcp-Method"), None);
    assert_eq!(call.header("Mcp-Param-Region"), None);
}

#[test]
fn a_modern_error_body_of_an_error_status_reaches_the_session() {
    let mut host = Host::new();
    host.send(request(1, "server/discover", json!({})));
    let discover = host.request();
    host.head(discover.id, 400, &[("Content-Type", "application/json")]);
    host.chunk(discover.id, r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}"#);
    host.end(discover.id);
    let messages = host.messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["id"], 1, "addressed to the request");
    assert_eq!(messages[0]["error"]["code"], -32022);
    assert_eq!(messages[0]["error"]["data"]["supported"][0], "2026-07-28");
    // A 4xx without such a body is synthesized as before (legacy servers answer the probe so).
    host.send(request(2, "server/discover", json!({})));
    let again = host.request();
    host.head(again.id, 400, &[("Content-Type", "text/plain")]);
    host.chunk(again.id, "Bad Request: No valid session ID provided");
    host.end(again.id);
    let messages = host.messages();
    assert_eq!(messages[0]["id"], 2);
    assert_eq!(messages[0]["error"]["data"]["httpStatus"], 400);
}

#[test]
fn a_broken_stream_re_sends_the_request_under_a_new_id_a_bounded_number_of_times() {
    let mut host = Host::new();
    host.send(request(
        7,
        "tools/call",
        json!({"name": "slow", "arguments": {}}),
    ));
    let first = host.request();
    host.sse_head(first.id);
    host.chunk(first.id, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1}}\n\n");
    host.http
        .handle_request_error(host.now, first.id, "connection reset");
    let second = host.request();
    let body: Value = serde_json::from_slice(second.body.as_ref().unwrap()).unwrap();
    assert_ne!(body["id"], 7, "a new id");
    assert_eq!(body["params"]["name"], "slow");
    assert_eq!(second.header("Mcp-Method"), Some("tools/call"));
    // Its answer reaches the session under the id the session sent.
    let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": {"content": []}});
    host.json(second.id, &[], &answer.to_string());
    let messages = host.messages();
    assert_eq!(messages.last().unwrap()["id"], 7);
    assert_eq!(messages.last().unwrap()["result"], json!({"content": []}));

    // A stream that keeps breaking: two re-sends, then the request fails under its own id.
    host.send(request(
        8,
        "tools/call",
        json!({"name": "flaky", "arguments": {}}),
    ));
    for _ in 0..3 {
        let post = host.request();
        host.sse_head(post.id);
        host.end(post.id);
    }
    host.no_request();
    let messages = host.messages();
    let failed = messages.last().unwrap();
    assert_eq!(failed["id"], 8);
    let text = failed["error"]["message"].as_str().unwrap();
    assert!(text.contains("also after 2 re-sends"), "{text}");
}
