//! The legacy HTTP+SSE machine driven by a scripted server: the stream, the endpoint, posts
//! and their refusals, and what closes it.

use super::*;

const STREAM: &str = "https://h.example:8443/mcp/sse";
const SSE: [(&str, &str); 1] = [("Content-Type", "text/event-stream")];

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A machine whose stream is open; returns it and the stream's request id.
fn opened() -> (LegacySse, HttpRequestId) {
    let mut config = HttpConfig::new(STREAM);
    config.headers = headers(&[("Authorization", "Bearer t0k")]);
    let mut machine = LegacySse::new(&config);
    let get = machine.poll_request().expect("the GET");
    assert_eq!(get.method, HttpMethod::Get);
    assert_eq!(get.url, STREAM);
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("authorization"), Some("Bearer t0k"));
    assert!(machine.poll_request().is_none());
    machine.handle_response_head(get.id, 200, &headers(&SSE));
    (machine, get.id)
}

fn lines(machine: &mut LegacySse) -> Vec<Value> {
    std::iter::from_fn(|| machine.poll_line())
        .map(|l| {
            assert!(l.ends_with(b"\n"));
            serde_json::from_slice(&l).unwrap()
        })
        .collect()
}

#[test]
fn messages_wait_for_the_endpoint_then_go_there_and_answers_come_on_the_stream() {
    let (mut machine, stream) = opened();
    let initialize = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}
"#;
    machine.send(initialize).unwrap();
    assert!(machine.poll_request().is_none(), "held until the endpoint");
    // The endpoint arrives split across chunks, relative to the stream's origin.
    machine.handle_body_chunk(stream, b"event: endpoint\ndata: /mcp/messages?session");
    assert!(machine.poll_request().is_none());
    machine.handle_body_chunk(stream, b"Id=abc\n\n");
    assert_eq!(
        machine.endpoint(),
        Some("https://h.example:8443/mcp/messages?sessionId=abc")
    );
    let post = machine.poll_request().expect("the held message");
    assert_eq!(post.method, HttpMethod::Post);
    assert_eq!(
        post.url,
        "https://h.example:8443/mcp/messages?sessionId=abc"
    );
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert_eq!(post.header("authorization"), Some("Bearer t0k"));
    assert_eq!(
        post.body.as_deref(),
        Some(&initialize[..initialize.len() - 1])
    );
    machine.handle_response_head(post.id, 202, &[]);
    machine.handle_body_end(post.id);
    machine.handle_body_chunk(
        stream,
        b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\ndata: \"result\":{}}\n\n: ping\n\n",
    );
    let answers = lines(&mut machine);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["id"], 1);
    // Sent after the endpoint: posted at once.
    machine
        .send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .unwrap();
    assert!(machine.poll_request().is_some());
    assert!(!machine.is_closed());
}

#[test]
fn a_refused_post_fails_its_request_at_once() {
    let (mut machine, stream) = opened();
    machine.handle_body_chunk(stream, b"event: endpoint\ndata: messages\n\n");
    assert_eq!(
        machine.endpoint(),
        Some("https://h.example:8443/mcp/messages")
    );
    machine
        .send(b"{\"jsonrpc\":\"2.0\",\"id\":\"r7\",\"method\":\"tools/call\"}\n")
        .unwrap();
    let post = machine.poll_request().unwrap();
    machine.handle_response_head(post.id, 500, &[]);
    let failed = lines(&mut machine);
    assert_eq!(failed[0]["id"], "r7");
    assert_eq!(failed[0]["error"]["data"]["httpStatus"], 500);
    // A refused notification is a warning; a network failure fails a request too.
    machine
        .send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n")
        .unwrap();
    let note = machine.poll_request().unwrap();
    machine.handle_response_head(note.id, 400, &[]);
    assert!(machine.poll_line().is_none());
    assert!(machine.poll_warning().unwrap().contains("HTTP 400"));
    machine
        .send(b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n")
        .unwrap();
    let ping = machine.poll_request().unwrap();
    machine.handle_request_error(ping.id, "connection reset");
    let failed = lines(&mut machine);
    assert_eq!(failed[0]["id"], 8);
    assert!(failed[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("connection reset"));
    assert!(!machine.is_closed());
}

#[test]
fn an_endpoint_on_another_origin_is_refused_and_nothing_is_posted_there() {
    for endpoint in [
        "https://evil.example/messages",
        "http://h.example:8443/messages",
        "https://h.example:9999/messages",
        "//evil.example/messages",
        "https://h.example:8443@evil.example/messages",
        "https:///messages",
        "javascript:alert(1)",
        "file:///etc/passwd",
    ] {
        let (mut machine, stream) = opened();
        machine
            .send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n")
            .unwrap();
        machine.handle_body_chunk(
            stream,
            format!("event: endpoint\ndata: {endpoint}\n\n").as_bytes(),
        );
        assert!(machine.is_closed(), "{endpoint}");
        assert!(
            machine.closed_reason().unwrap().contains("refused"),
            "{endpoint}"
        );
        assert!(
            machine.poll_request().is_none(),
            "{endpoint}: nothing posted"
        );
        assert!(machine.send(b"{}\n").is_err());
    }
    // The same origin written out in full is fine, in any letter case.
    let (mut machine, stream) = opened();
    machine.handle_body_chunk(
        stream,
        b"event: endpoint\ndata: HTTPS://H.example:8443/m\n\n",
    );
    assert!(!machine.is_closed(), "{:?}", machine.closed_reason());
}

#[test]
fn the_stream_closes_the_machine_when_refused_wrong_or_ended() {
    let mut machine = LegacySse::new(&HttpConfig::new(STREAM));
    let get = machine.poll_request().unwrap();
    machine.handle_response_head(get.id, 404, &[]);
    assert!(machine.closed_reason().unwrap().contains("HTTP 404"));

    let mut machine = LegacySse::new(&HttpConfig::new(STREAM));
    let get = machine.poll_request().unwrap();
    machine.handle_response_head(
        get.id,
        200,
        &headers(&[("Content-Type", "application/json")]),
    );
    assert!(machine
        .closed_reason()
        .unwrap()
        .contains("instead of text/event-stream"));

    let (mut machine, stream) = opened();
    machine.handle_body_end(stream);
    assert!(machine
        .closed_reason()
        .unwrap()
        .contains("closed the SSE stream"));
    let (mut machine, stream) = opened();
    machine.handle_request_error(stream, "reset");
    assert!(machine.closed_reason().unwrap().contains("failed: reset"));
    let (mut machine, _) = opened();
    machine.close();
    assert!(machine.send(b"{}\n").is_err(), "misuse is an error");
}

#[test]
fn an_oversized_event_is_skipped_with_a_warning_and_reading_goes_on() {
    let mut config = HttpConfig::new(STREAM);
    config.max_message_bytes = 64;
    let mut machine = LegacySse::new(&config);
    let get = machine.poll_request().unwrap();
    machine.handle_response_head(get.id, 200, &headers(&SSE));
    machine.handle_body_chunk(get.id, b"event: endpoint\ndata: /m\n\n");
    let big = format!("event: message\ndata: {}\n\n", "x".repeat(200));
    machine.handle_body_chunk(get.id, big.as_bytes());
    assert!(machine.poll_line().is_none());
    assert!(machine
        .poll_warning()
        .unwrap()
        .contains("larger than 64 bytes"));
    machine.handle_body_chunk(get.id, b"event: message\ndata: {\"id\":2}\n\n");
    assert_eq!(lines(&mut machine)[0]["id"], 2);
}

#[test]
fn endpoints_resolve_against_the_stream_url() {
    let cases = [
        ("/messages?s=1", "https://h.example:8443/messages?s=1"),
        ("messages", "https://h.example:8443/mcp/messages"),
        ("?s=1", "https://h.example:8443/mcp/sse?s=1"),
        ("https://h.example:8443/x", "https://h.example:8443/x"),
    ];
    for (data, want) in cases {
        assert_eq!(resolve(STREAM, data).as_deref(), Ok(want), "{data}");
    }
    assert_eq!(
        resolve("http://127.0.0.1:5/sse", "/m").as_deref(),
        Ok("http://127.0.0.1:5/m")
    );
    // A stream URL with user info (sent as Basic authorization) keeps it for the endpoint, and
    // the same origin written with other user info is still that origin.
    let base = "https://ada:pw@h.example/sse";
    assert_eq!(
        resolve(base, "/m").as_deref(),
        Ok("https://ada:pw@h.example/m")
    );
    assert!(resolve(base, "https://h.example/m").is_ok());
    assert!(resolve(base, "https://ada:pw@evil.example/m").is_err());
    assert!(resolve("https://@/sse", "/m").is_err(), "no host");
    assert_eq!(
        resolve(STREAM, "m?at=1:2").as_deref(),
        Ok("https://h.example:8443/mcp/m?at=1:2")
    );
    for data in ["", "a b", "x\u{1b}[2J", "mailto:x@y", "javascript:x"] {
        assert!(resolve(STREAM, data).is_err(), "{data:?}");
    }
}
