//! A new session after a `404`, and the old session's streams: what cannot be resumed fails at
//! once, what still streams keeps delivering, what got its own `404` late is re-sent.

use super::auth::oauth_host;
use super::*;

const LOST: &str = "the server forgot session old (HTTP 404) while this answer was streaming; it cannot be resumed in the new session";

fn event(id: &str, data: &Value) -> String {
    format!("id: {id}\nevent: message\ndata: {data}\n\n")
}

fn body(request: &HttpRequest) -> Value {
    serde_json::from_slice(request.body.as_deref().unwrap()).unwrap()
}

/// The handshake in session `old`, the standalone `GET` stream refused with `405` (so the
/// only requests are the test's own).
fn setup(host: &mut Host) {
    host.handshake("old");
    let get = host.request();
    host.head(get.id, 405, &[]);
    host.end(get.id);
}

/// [`break_stream`], checking that a resumption is scheduled.
fn broken_call(host: &mut Host, id: u64) {
    break_stream(host, id);
    assert!(
        host.http.poll_timeout().is_some(),
        "a resumption is scheduled"
    );
}

/// Sends `call(id)` and answers its `POST` with `404`; returns the replayed `initialize`.
fn forget_with(host: &mut Host, id: u64) -> HttpRequest {
    host.send(call(id));
    let post = host.request();
    host.head(post.id, 404, &[]);
    host.end(post.id);
    assert_eq!(
        host.events(),
        [HttpEvent::SessionExpired {
            session_id: "old".into()
        }]
    );
    let init = host.request();
    assert_eq!(body(&init)["method"], "initialize");
    assert_eq!(init.header("mcp-session-id"), None);
    init
}

/// Answers the replayed `initialize` with session `new`, accepts `notifications/initialized`,
/// refuses the new `GET` stream; returns the other requests that follow (re-sent messages).
fn renew(host: &mut Host, init: HttpRequest) -> Vec<HttpRequest> {
    let mut reply = init_result(0, "2025-11-25");
    reply["id"] = body(&init)["id"].clone();
    host.json(init.id, &[("Mcp-Session-Id", "new")], &reply.to_string());
    let initialized = host.request();
    assert_eq!(body(&initialized)["method"], "notifications/initialized");
    host.accepted(initialized.id);
    let mut rest = Vec::new();
    while let Some(request) = host.http.poll_request() {
        assert_eq!(
            request.header("last-event-id"),
            None,
            "nothing of the old session is resumed"
        );
        assert_eq!(request.header("mcp-session-id"), Some("new"));
        if is_get(&request) {
            host.head(request.id, 405, &[]);
            host.end(request.id);
        } else {
            rest.push(request);
        }
    }
    rest
}

/// Asserts that `message` fails request `id` because session `old` was forgotten.
fn assert_lost(message: &Value, id: u64) {
    assert_eq!(message["id"], id, "{message}");
    assert_eq!(message["error"]["data"]["httpStatus"], 404, "{message}");
    let text = message["error"]["message"].as_str().unwrap();
    assert!(text.starts_with(LOST), "{text}");
}

/// Answers the re-sent `call(id)` in the new session and checks the answer goes up alone.
fn answer_resent(host: &mut Host, resent: &[HttpRequest], id: u64) {
    let again = resent
        .iter()
        .find(|r| body(r) == call(id))
        .expect("the call is re-sent in the new session");
    host.json(again.id, &[], &result(id, "again").to_string());
    assert_eq!(host.messages(), [result(id, "again")]);
}

#[test]
fn a_request_awaiting_a_scheduled_resumption_fails_at_once_in_a_new_session() {
    let mut host = Host::new();
    setup(&mut host);
    broken_call(&mut host, 2);
    let init = forget_with(&mut host, 3);
    let messages = host.messages();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_lost(&messages[0], 2);
    assert_eq!(
        host.http.poll_timeout(),
        None,
        "the resumption is called off"
    );
    host.advance(60_000);
    host.no_request();

    let resent = renew(&mut host, init);
    answer_resent(&mut host, &resent, 3);
    host.advance(60_000);
    host.no_request();
    assert!(host.messages().is_empty(), "request 2 fails only once");
}

#[test]
fn a_request_awaiting_a_resumption_in_flight_fails_at_once_and_its_get_is_aborted() {
    let mut host = Host::new();
    setup(&mut host);
    broken_call(&mut host, 2);
    host.advance(500);
    let resume = host.request();
    assert_eq!(resume.header("last-event-id"), Some("ev-1"));
    host.sse_head(resume.id);
    let init = forget_with(&mut host, 3);
    assert_eq!(host.aborts(), [resume.id]);
    let messages = host.messages();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_lost(&messages[0], 2);

    // The host may still report what the aborted GET brought: it is ignored.
    host.chunk(resume.id, &event("ev-2", &result(2, "late")));
    host.end(resume.id);
    assert!(host.messages().is_empty(), "no second answer for request 2");
    let resent = renew(&mut host, init);
    answer_resent(&mut host, &resent, 3);
    host.advance(60_000);
    host.no_request();
}

#[test]
fn a_request_awaiting_a_resumption_held_for_authorization_fails_at_once() {
    let mut host = oauth_host();
    setup(&mut host);
    broken_call(&mut host, 2);
    host.advance(500);
    let resume = host.request();
    host.send(call(3));
    let post = host.request();
    host.head(resume.id, 401, &[]);
    assert!(matches!(
        host.events()[..],
        [HttpEvent::AuthorizationRequired { status: 401, .. }]
    ));
    assert!(
        host.messages().is_empty(),
        "held, request 2 is still pending"
    );
    host.head(post.id, 404, &[]);
    host.end(post.id);
    assert!(matches!(
        &host.events()[..],
        [HttpEvent::SessionExpired { session_id }] if session_id == "old"
    ));
    let messages = host.messages();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_lost(&messages[0], 2);

    host.no_request();
    host.http.set_access_token(host.now, "fresh").unwrap();
    let init = host.request();
    assert_eq!(body(&init)["method"], "initialize");
    let resent = renew(&mut host, init);
    answer_resent(&mut host, &resent, 3);
    host.advance(60_000);
    host.no_request();
}

#[test]
fn a_request_answered_before_the_404_is_not_failed() {
    let mut host = Host::new();
    host.handshake("old");
    let get = host.request();
    host.sse_head(get.id);
    broken_call(&mut host, 2);
    // The answer comes on the standalone stream while the resumption waits for its time.
    host.chunk(get.id, &event("g1", &result(2, "elsewhere")));
    assert_eq!(host.messages(), [result(2, "elsewhere")]);
    let init = forget_with(&mut host, 3);
    assert_eq!(
        host.aborts(),
        [get.id],
        "the old standalone stream is dropped"
    );
    assert!(host.messages().is_empty(), "request 2 was answered already");
    let resent = renew(&mut host, init);
    answer_resent(&mut host, &resent, 3);
}

#[test]
fn an_open_post_stream_of_the_old_session_keeps_delivering_but_is_not_resumed() {
    let mut host = Host::new();
    setup(&mut host);
    let mut posts = Vec::new();
    for id in [2, 4] {
        host.send(call(id));
        let post = host.request();
        host.sse_head(post.id);
        host.chunk(post.id, "id: ev-1\nretry: 500\ndata: \n\n");
        posts.push(post);
    }
    let init = forget_with(&mut host, 3);
    assert!(host.aborts().is_empty(), "open answers are left to stream");
    assert!(host.messages().is_empty());
    let resent = renew(&mut host, init);
    answer_resent(&mut host, &resent, 3);

    host.chunk(posts[0].id, &event("ev-2", &result(2, "still valid")));
    host.end(posts[0].id);
    assert_eq!(host.messages(), [result(2, "still valid")]);
    host.http
        .handle_request_error(host.now, posts[1].id, "connection reset");
    let messages = host.messages();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_lost(&messages[0], 4);
    let text = messages[0]["error"]["message"].as_str().unwrap();
    assert!(text.ends_with("(connection reset)"), "{text}");
    assert_eq!(
        host.http.poll_timeout(),
        None,
        "no resumption in session new"
    );
    host.advance(60_000);
    host.no_request();
}

#[test]
fn a_late_404_for_a_message_sent_in_the_old_session_only_resends_it() {
    let mut host = Host::new();
    setup(&mut host);
    host.send(call(2));
    let during = host.request();
    host.send(call(4));
    let after = host.request();
    let init = forget_with(&mut host, 3);
    // While the new session is being started: it waits behind the replayed initialize.
    host.head(during.id, 404, &[]);
    host.end(during.id);
    assert!(host.events().is_empty(), "the same forgotten session");
    host.no_request();
    let resent = renew(&mut host, init);
    answer_resent(&mut host, &resent, 3);
    answer_resent(&mut host, &resent, 2);

    // After the new session started: the new session is not taken for forgotten.
    host.head(after.id, 404, &[]);
    host.end(after.id);
    assert!(host.events().is_empty(), "no second expiry");
    let again = host.request();
    assert_eq!(body(&again), call(4));
    assert_eq!(again.header("mcp-session-id"), Some("new"));
    host.no_request();
    answer_resent(&mut host, &[again], 4);
    assert_eq!(host.http.session_id(), Some("new"));
}
