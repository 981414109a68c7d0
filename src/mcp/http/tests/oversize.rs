//! SSE events over `max_message_bytes`: the request an oversized answer was for fails at once,
//! read from the edges of the dropped event, while the stream reads on.

use super::*;

const LIMIT: usize = 200;

fn host() -> Host {
    let mut config = HttpConfig::new(URL);
    config.max_message_bytes = LIMIT;
    config.listen = false;
    let mut host = Host::with(config);
    host.handshake("s");
    host
}

fn event(id: &str, data: &Value) -> String {
    format!("id: {id}\ndata: {data}\n\n")
}

/// A response to `id` far over the limit, its id before the payload (`{"jsonrpc","id","result"}`).
fn big_result(id: u64) -> Value {
    result(id, &"x".repeat(2_000))
}

/// The same with the id after the payload, as the TypeScript SDK writes it.
fn big_result_id_last(id: u64) -> Value {
    json!({"result": {"content": [{"type": "text", "text": "x".repeat(2_000)}]},
        "jsonrpc": "2.0", "id": id})
}

/// Asserts `messages` is exactly one synthesized failure of request `id` naming the drop.
fn assert_dropped(messages: &[Value], id: u64) {
    let [message] = messages else {
        panic!("expected one failure of request {id}, got {messages:?}");
    };
    assert_eq!(message["id"], id, "{message}");
    let error = message["error"]["message"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("the server's answer was dropped: ")
            && error.contains(&format!("larger than {LIMIT} bytes"))
            && error.contains(URL),
        "{error}"
    );
}

#[test]
fn an_oversized_answer_on_a_kept_open_stream_fails_its_request_at_once() {
    let mut host = host();
    host.send(call(2));
    let first = host.request();
    host.send(call(3));
    let second = host.request();
    host.sse_head(first.id);
    host.sse_head(second.id);

    host.chunk(first.id, &event("e1", &big_result(2)));
    assert_dropped(&host.messages(), 2);
    assert!(
        matches!(host.events().as_slice(), [HttpEvent::Warning { message }] if message.contains("larger than 200 bytes")),
        "the drop is also reported as it happens"
    );
    assert!(host.aborts().is_empty(), "the stream stays open");

    // The stream reads on, and the other request is untouched.
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": 2, "progress": 1}});
    host.chunk(first.id, &event("e2", &progress));
    host.chunk(second.id, &event("f1", &result(3, "fine")));
    assert_eq!(host.messages(), vec![progress, result(3, "fine")]);
    host.end(second.id);
    host.end(first.id);
    assert!(host.messages().is_empty(), "request 2 fails only once");
    assert_eq!(host.http.poll_timeout(), None, "nothing is left to resume");
    host.no_request();
    assert!(host.events().is_empty());
}

#[test]
fn the_id_is_read_before_or_after_the_payload_in_any_chunking() {
    for (order, answer) in [
        ("id first", big_result(2)),
        ("id last", big_result_id_last(2)),
    ] {
        let stream = format!("retry: 10\n{}", event("e1", &answer));
        for size in [1, 2, 7, 128, 129, stream.len()] {
            let context = format!("{order}, chunks of {size}");
            let mut host = host();
            host.send(call(2));
            let post = host.request();
            host.sse_head(post.id);
            let (body, blank) = stream.as_bytes().split_at(stream.len() - 1);
            for piece in body.chunks(size) {
                host.http.handle_body_chunk(host.now, post.id, piece);
            }
            assert!(
                host.messages().is_empty(),
                "{context}: the event has not ended yet"
            );
            host.http.handle_body_chunk(host.now, post.id, blank);
            let messages = host.messages();
            assert_dropped(&messages, 2);
            host.end(post.id);
            assert!(host.messages().is_empty(), "{context}");
            assert_eq!(host.http.poll_timeout(), None, "{context}");
        }
    }
}

#[test]
fn an_oversized_notification_or_server_request_fails_nothing() {
    let mut host = host();
    host.send(call(2));
    let post = host.request();
    host.sse_head(post.id);
    let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "x".repeat(2_000)}});
    // A request of the server's own, with an id that happens to equal ours.
    let sampling = json!({"jsonrpc": "2.0", "id": 2, "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text",
            "text": "x".repeat(2_000)}}], "maxTokens": 10}});
    host.chunk(post.id, &event("e1", &log));
    host.chunk(post.id, &event("e2", &sampling));
    assert!(host.messages().is_empty());
    assert_eq!(host.events().len(), 2, "one warning per dropped event");
    host.chunk(post.id, &event("e3", &result(2, "the real answer")));
    host.end(post.id);
    assert_eq!(host.messages(), vec![result(2, "the real answer")]);
    assert_eq!(host.http.poll_timeout(), None);
}

#[test]
fn an_oversized_answer_on_the_get_stream_fails_the_request_posted_elsewhere() {
    let mut config = HttpConfig::new(URL);
    config.max_message_bytes = LIMIT;
    let mut host = Host::with(config);
    host.handshake("s");
    let get = host.request();
    assert!(is_get(&get));
    host.sse_head(get.id);
    host.send(call(2));
    let post = host.request();
    host.sse_head(post.id);
    // The server answers on the GET stream instead; first a late answer to nothing pending.
    host.chunk(get.id, &event("g1", &big_result_id_last(99)));
    assert!(host.messages().is_empty(), "99 is awaited nowhere");
    host.chunk(get.id, &event("g2", &big_result_id_last(2)));
    assert_dropped(&host.messages(), 2);
    // The POST stream owes nothing now: its end resumes nothing and fails nothing.
    host.chunk(post.id, "id: p1\ndata: \n\n");
    host.end(post.id);
    assert!(host.messages().is_empty());
    assert_eq!(host.http.poll_timeout(), None);
    host.chunk(get.id, &event("g3", &result(7, "late")));
    assert_eq!(
        host.messages(),
        vec![result(7, "late")],
        "the GET stream reads on"
    );
}

#[test]
fn an_oversized_answer_on_a_resumed_stream_fails_at_once_and_ends_the_resumption() {
    let mut host = host();
    host.send(call(2));
    let post = host.request();
    host.sse_head(post.id);
    host.chunk(post.id, "id: e1\nretry: 100\ndata: \n\n");
    host.end(post.id);
    host.advance(100);
    let resume = host.request();
    assert_eq!(resume.header("last-event-id"), Some("e1"));
    host.sse_head(resume.id);
    host.chunk(resume.id, &event("e2", &big_result(2)));
    assert_dropped(&host.messages(), 2);
    assert_eq!(host.aborts(), vec![resume.id], "it owes nothing more");
}
