//! SSE answers, the GET stream, resumption with Last-Event-ID and the retry field.

use super::*;

fn event(id: &str, data: &Value) -> String {
    format!("id: {id}\nevent: message\ndata: {data}\n\n")
}

#[test]
fn an_sse_answer_delivers_notifications_then_the_response_in_any_chunking() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(2));
    let post = host.request();
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": 2, "progress": 1}});
    let stream = format!(
        ": keep-alive\n\n{}{}",
        event("e1", &progress),
        event("e2", &result(2, "done"))
    );
    host.sse_head(post.id);
    for byte in stream.as_bytes().chunks(3) {
        host.http.handle_body_chunk(host.now, post.id, byte);
    }
    host.end(post.id);
    assert_eq!(host.messages(), vec![progress, result(2, "done")]);
    assert!(host.events().is_empty());
    assert_eq!(host.http.poll_timeout(), None, "nothing to resume");
    host.no_request();
}

#[test]
fn a_retry_field_sent_without_data_sets_the_resume_delay() {
    let mut host = Host::new();
    host.handshake("sess");
    let _get = host.listen();
    host.send(call(6));
    let post = host.request();
    host.sse_head(post.id);
    // Some servers send the id and `retry` in blocks of their own, with no data at all.
    host.chunk(post.id, "id: ev-9\n\nretry: 250\n\n");
    host.end(post.id);
    let due = host
        .http
        .poll_timeout()
        .expect("a reconnection is scheduled");
    assert_eq!(due.as_millis(), host.now.as_millis() + 250);
    host.advance(250);
    let resume = host.request();
    assert!(is_get(&resume));
    assert_eq!(resume.header("last-event-id"), Some("ev-9"));
}

#[test]
fn a_dropped_stream_is_resumed_with_last_event_id_after_the_retry_delay() {
    let mut host = Host::new();
    host.handshake("sess");
    let _get = host.listen();
    host.send(call(5));
    let post = host.request();
    host.sse_head(post.id);
    // The polling pattern: a priming event (id, retry, empty data), then a clean close.
    host.chunk(post.id, "id: ev-1\nretry: 500\ndata: \n\n");
    host.end(post.id);
    assert!(host.messages().is_empty(), "a priming event is no message");
    let due = host
        .http
        .poll_timeout()
        .expect("a reconnection is scheduled");
    assert_eq!(due.as_millis(), host.now.as_millis() + 500);

    host.advance(499);
    host.no_request();
    host.advance(1);
    let resume = host.request();
    assert!(is_get(&resume));
    assert_eq!(resume.header("last-event-id"), Some("ev-1"));
    assert_eq!(resume.header("accept"), Some("text/event-stream"));
    assert_eq!(resume.header("mcp-session-id"), Some("sess"));
    assert_eq!(resume.header("mcp-protocol-version"), Some("2025-11-25"));

    host.sse_head(resume.id);
    host.chunk(resume.id, &event("ev-2", &result(5, "after reconnect")));
    assert_eq!(host.messages(), vec![result(5, "after reconnect")]);
    // Its job done, the resumed stream is dropped even though the server keeps it open.
    assert_eq!(host.aborts(), vec![resume.id]);
    host.chunk(resume.id, &event("ev-3", &result(5, "duplicate")));
    assert!(
        host.messages().is_empty(),
        "input about an aborted request is ignored"
    );
}

#[test]
fn a_network_error_mid_stream_resumes_from_the_latest_id_with_backoff() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(3));
    let post = host.request();
    host.sse_head(post.id);
    host.chunk(post.id, "id: 1\ndata: \n\nid: 2\nretry: 100\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n");
    host.http
        .handle_request_error(host.now, post.id, "connection reset");
    assert_eq!(host.messages().len(), 1);

    // First reconnection right after progress: the server's delay.
    host.advance(100);
    let first = host.request();
    assert_eq!(first.header("last-event-id"), Some("2"));
    host.http
        .handle_request_error(host.now, first.id, "connection refused");
    // No event on that attempt: the delay doubles.
    host.advance(199);
    host.no_request();
    host.advance(1);
    let second = host.request();
    assert_eq!(second.header("last-event-id"), Some("2"));
}

#[test]
fn a_stream_without_event_ids_cannot_resume_and_fails_its_request() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(4));
    let post = host.request();
    host.sse_head(post.id);
    host.chunk(
        post.id,
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
    );
    host.end(post.id);
    let messages = host.messages();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1]["id"], 4);
    assert!(messages[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no event id"));
    assert_eq!(host.http.poll_timeout(), None);
}

#[test]
fn resumption_gives_up_after_attempts_that_bring_nothing() {
    let mut config = HttpConfig::new(URL);
    config.max_reconnects = 2;
    config.listen = false;
    let mut host = Host::with(config);
    host.handshake("s");
    host.send(call(9));
    let post = host.request();
    host.sse_head(post.id);
    host.chunk(post.id, "id: a\nretry: 10\ndata: \n\n");
    host.end(post.id);
    for attempt in 1..=2 {
        host.advance(10);
        let again = host.request();
        assert_eq!(again.header("last-event-id"), Some("a"));
        host.sse_head(again.id);
        host.end(again.id);
        if attempt == 1 {
            assert!(host.messages().is_empty(), "one more try is allowed");
        }
    }
    let messages = host.messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["id"], 9);
    assert!(messages[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("gave up"));
    host.advance(10_000);
    host.no_request();
}

#[test]
fn the_get_stream_delivers_server_messages_and_reconnects_after_a_clean_close() {
    let mut host = Host::new();
    host.handshake("s");
    let get = host.request();
    assert!(is_get(&get));
    assert_eq!(get.header("last-event-id"), None);
    host.sse_head(get.id);
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
    host.chunk(get.id, &event("g1", &changed));
    assert_eq!(host.messages(), vec![changed]);
    host.end(get.id);
    // No retry field: the configured default (1 s).
    host.advance(999);
    host.no_request();
    host.advance(1);
    let again = host.request();
    assert!(is_get(&again));
    assert_eq!(again.header("last-event-id"), Some("g1"));
}

#[test]
fn a_server_without_a_get_stream_is_left_alone() {
    let mut host = Host::new();
    host.handshake("s");
    let get = host.request();
    host.head(get.id, 405, &[]);
    host.end(get.id);
    assert!(host.events().is_empty(), "405 is a normal answer");
    host.advance(60_000);
    host.no_request();

    // Any other refusal is worth a warning, but is not fatal either.
    let mut host = Host::new();
    host.handshake("s");
    let get = host.request();
    host.head(get.id, 400, &[("Content-Type", "text/plain")]);
    host.chunk(get.id, "Invalid or missing session ID");
    host.end(get.id);
    match host.events().as_slice() {
        [HttpEvent::Warning { message }] => {
            assert!(message.contains("HTTP 400"), "{message}");
            assert!(
                message.contains("Invalid or missing session ID"),
                "{message}"
            );
        }
        other => panic!("unexpected events {other:?}"),
    }
    assert!(!host.http.is_closed());
}

#[test]
fn a_server_request_on_a_stream_is_handed_up_and_its_answer_posted() {
    let mut host = Host::new();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(2));
    let post = host.request();
    host.sse_head(post.id);
    let elicit = json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create",
        "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}});
    host.chunk(post.id, &event("1", &elicit));
    assert_eq!(host.messages(), vec![elicit]);
    // The session answers; the answer is its own POST, acknowledged with 202.
    host.send(json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "decline"}}));
    let answer = host.request();
    assert_eq!(answer.method, HttpMethod::Post);
    assert_eq!(answer.header("mcp-session-id"), Some("s"));
    host.accepted(answer.id);
    host.chunk(post.id, &event("2", &result(2, "declined")));
    host.end(post.id);
    assert_eq!(host.messages(), vec![result(2, "declined")]);
    assert_eq!(host.http.poll_timeout(), None);
}
