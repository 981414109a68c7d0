//! POSTs, JSON answers, 202s, headers and the initialize gate.

use super::*;

#[test]
fn initialize_is_posted_with_the_accept_header_and_no_session_headers() {
    let mut host = Host::new();
    host.send(initialize(1));
    let request = host.request();
    assert_eq!(request.method, HttpMethod::Post);
    assert_eq!(request.url, URL);
    assert_eq!(
        request.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("mcp-session-id"), None);
    assert_eq!(request.header("mcp-protocol-version"), None);
    let body: Value = serde_json::from_slice(request.body.as_deref().unwrap()).unwrap();
    assert_eq!(body, initialize(1));
    host.no_request();
}

#[test]
fn session_id_and_protocol_version_are_echoed_after_initialize() {
    let mut host = Host::new();
    host.send(initialize(1));
    let init = host.request();
    host.json(
        init.id,
        &[("mcp-session-id", "abc-123")],
        &init_result(1, "2025-06-18").to_string(),
    );
    assert_eq!(host.messages(), vec![init_result(1, "2025-06-18")]);
    assert_eq!(host.http.session_id(), Some("abc-123"));
    assert_eq!(host.http.protocol_version(), Some("2025-06-18"));

    host.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let initialized = host.request();
    assert_eq!(initialized.header("Mcp-Session-Id"), Some("abc-123"));
    assert_eq!(
        initialized.header("MCP-Protocol-Version"),
        Some("2025-06-18")
    );
    host.accepted(initialized.id);
    assert!(host.messages().is_empty(), "202 carries no message");
    assert!(host.events().is_empty());

    host.send(call(2));
    let get = host.request();
    assert!(is_get(&get), "the GET stream opens after initialized");
    host.no_request();
    host.sse_head(get.id);
    let post = host.request();
    assert_eq!(post.header("mcp-session-id"), Some("abc-123"));
    assert_eq!(post.header("mcp-protocol-version"), Some("2025-06-18"));
    host.json(post.id, &[], &result(2, "hi").to_string());
    assert_eq!(host.messages(), vec![result(2, "hi")]);
}

#[test]
fn messages_wait_while_initialize_has_no_answer_yet() {
    let mut host = Host::new();
    host.send(initialize(1));
    let init = host.request();
    // A ping answer the session produced early must not go out without the session id.
    host.send(json!({"jsonrpc": "2.0", "id": "s1", "result": {}}));
    host.no_request();
    host.head(
        init.id,
        200,
        &[
            ("Content-Type", "application/json"),
            ("Mcp-Session-Id", "s"),
        ],
    );
    let held = host.request();
    assert_eq!(held.header("mcp-session-id"), Some("s"));
    assert_eq!(
        serde_json::from_slice::<Value>(held.body.as_deref().unwrap()).unwrap()["id"],
        "s1"
    );
}

#[test]
fn several_lines_in_one_send_become_one_post_each() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    let mut bytes = serde_json::to_vec(&call(2)).unwrap();
    bytes.extend_from_slice(b"\n\n");
    bytes.extend_from_slice(&serde_json::to_vec(&call(3)).unwrap());
    host.http.send(host.now, &bytes).unwrap();
    let first = host.request();
    let second = host.request();
    host.no_request();
    // Answers may come in any order: each POST owns its own answer.
    host.json(second.id, &[], &result(3, "three").to_string());
    host.json(first.id, &[], &result(2, "two").to_string());
    assert_eq!(host.messages(), vec![result(3, "three"), result(2, "two")]);
}

#[test]
fn pretty_printed_json_and_batches_become_one_line_per_message() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(2));
    let post = host.request();
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x\ny"}},
        result(2, "line one\nline two"),
    ]);
    let pretty = serde_json::to_string_pretty(&batch).unwrap();
    host.head(
        post.id,
        200,
        &[("content-type", "application/json; charset=utf-8")],
    );
    // Split mid-token: chunking must not matter.
    let (a, b) = pretty.split_at(pretty.len() / 2);
    host.chunk(post.id, a);
    host.chunk(post.id, b);
    host.end(post.id);
    let messages = host.messages();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1], result(2, "line one\nline two"));
}

#[test]
fn user_headers_are_sent_but_cannot_override_protocol_headers() {
    let mut config = HttpConfig::new(URL);
    config.headers = hdr(&[("Authorization", "Bearer t0k"), ("accept", "text/html")]);
    let mut host = Host::with(config);
    host.send(initialize(1));
    let init = host.request();
    assert_eq!(init.header("authorization"), Some("Bearer t0k"));
    let accepts: Vec<_> = init
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("accept"))
        .collect();
    assert_eq!(accepts.len(), 1);
    assert_eq!(accepts[0].1, "application/json, text/event-stream");
}

#[test]
fn a_json_answer_without_the_response_fails_the_request_at_once() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(7));
    let post = host.request();
    host.json(post.id, &[], "");
    let messages = host.messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["id"], 7);
    assert!(messages[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("did not answer"));
}

#[test]
fn invalid_json_is_handed_up_as_one_line_for_the_session_to_report() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(2));
    let post = host.request();
    host.json(post.id, &[], "{not json\n at all");
    let line = host.http.poll_message().unwrap();
    assert_eq!(line, b"{not json  at all\n".to_vec());
    // The request itself was not answered, and is failed rather than left to time out.
    let failed: Value = serde_json::from_slice(&host.http.poll_message().unwrap()).unwrap();
    assert_eq!(failed["id"], 2);
}

#[test]
fn closed_machine_refuses_to_send() {
    let mut host = Host::new();
    host.http.close(host.now);
    assert!(host.http.is_closed());
    assert!(host.http.send(host.now, b"{}\n").is_err());
}
