//! OAuth mode and event streams: a refused resumption or standalone `GET` stream is held and
//! re-opened with the new token, as a refused `POST` is re-sent.

use super::auth::{oauth_host, CHALLENGE};
use super::*;
use crate::mcp::http::MAX_AUTHORIZATIONS;

/// Sends `call(id)`, answers it with a stream that breaks after a priming event `ev-1` (retry
/// 500 ms), and returns the resumption `GET` once it is due. The standalone `GET` stream is
/// refused with `405` first, so the only requests are the test's own.
fn broken_call(host: &mut Host, id: u64) -> HttpRequest {
    host.handshake("s");
    let get = host.request();
    host.head(get.id, 405, &[]);
    host.end(get.id);
    break_stream(host, id);
    host.advance(500);
    let resume = host.request();
    assert!(is_get(&resume));
    assert_eq!(resume.header("last-event-id"), Some("ev-1"));
    resume
}

fn event(id: &str, data: &Value) -> String {
    format!("id: {id}\nevent: message\ndata: {data}\n\n")
}

fn authorization_required(events: &[HttpEvent], status: u16) -> bool {
    matches!(events, [HttpEvent::AuthorizationRequired { status: s, .. }] if *s == status)
}

#[test]
fn a_resume_refused_with_401_is_reissued_with_the_new_token_and_its_last_event_id() {
    let mut host = oauth_host();
    let resume = broken_call(&mut host, 5);
    assert_eq!(resume.header("authorization"), Some("Bearer stale"));
    host.head(resume.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    assert_eq!(host.aborts(), [resume.id]);
    assert_eq!(
        host.events(),
        [HttpEvent::AuthorizationRequired {
            status: 401,
            www_authenticate: Some(CHALLENGE.into()),
        }]
    );
    assert!(host.messages().is_empty(), "the call stays pending");
    assert!(!host.http.is_closed());
    host.advance(60_000);
    host.no_request();

    host.http.set_access_token(host.now, "fresh").unwrap();
    let again = host.request();
    assert!(is_get(&again));
    assert_eq!(again.header("authorization"), Some("Bearer fresh"));
    assert_eq!(again.header("last-event-id"), Some("ev-1"));
    assert_eq!(again.header("mcp-session-id"), Some("s"));
    host.no_request();
    host.sse_head(again.id);
    host.chunk(again.id, &event("ev-2", &result(5, "done")));
    assert_eq!(host.messages(), vec![result(5, "done")]);
    assert_eq!(
        host.aborts(),
        [again.id],
        "its job done, the stream is dropped"
    );
    assert!(host.events().is_empty());
}

#[test]
fn a_refused_resume_and_a_refused_post_share_one_round_and_both_are_replayed() {
    let mut host = oauth_host();
    let resume = broken_call(&mut host, 5);
    host.send(call(6));
    let post = host.request();
    host.head(
        resume.id,
        403,
        &[("WWW-Authenticate", "Bearer scope=\"b\"")],
    );
    host.head(post.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    let events = host.events();
    assert!(authorization_required(&events, 403), "{events:?}");
    host.no_request();

    host.http.set_access_token(host.now, "fresh").unwrap();
    let (mut post_again, mut get_again) = (None, None);
    for _ in 0..2 {
        let request = host.request();
        assert_eq!(request.header("authorization"), Some("Bearer fresh"));
        if is_get(&request) {
            get_again = Some(request);
        } else {
            post_again = Some(request);
        }
    }
    host.no_request();
    let (post_again, get_again) = (post_again.unwrap(), get_again.unwrap());
    let sent: Value = serde_json::from_slice(post_again.body.as_ref().unwrap()).unwrap();
    assert_eq!(sent["id"], 6);
    assert_eq!(get_again.header("last-event-id"), Some("ev-1"));
    host.json(post_again.id, &[], &result(6, "six").to_string());
    host.sse_head(get_again.id);
    host.chunk(get_again.id, &event("ev-2", &result(5, "five")));
    assert_eq!(host.messages(), vec![result(6, "six"), result(5, "five")]);
    assert!(host.events().is_empty());
}

#[test]
fn repeated_401s_to_a_resume_fail_its_request_after_the_round_limit() {
    let mut host = oauth_host();
    let mut resume = broken_call(&mut host, 7);
    for round in 0..MAX_AUTHORIZATIONS {
        host.head(resume.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
        assert_eq!(host.aborts(), [resume.id]);
        let events = host.events();
        assert!(
            authorization_required(&events, 401),
            "round {round}: {events:?}"
        );
        host.http
            .set_access_token(host.now, format!("token-{round}"))
            .unwrap();
        resume = host.request();
        assert_eq!(resume.header("last-event-id"), Some("ev-1"));
        let token = format!("Bearer token-{round}");
        assert_eq!(resume.header("authorization"), Some(token.as_str()));
    }
    host.head(resume.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    assert_eq!(host.aborts(), [resume.id]);
    assert!(host.events().is_empty(), "no further round, and no close");
    let messages = host.messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["id"], 7);
    assert_eq!(messages[0]["error"]["data"]["httpStatus"], 401);
    let text = messages[0]["error"]["message"].as_str().unwrap();
    assert!(
        text.contains("HTTP 401 Unauthorized from GET http://127.0.0.1:9/mcp"),
        "{text}"
    );
    assert!(text.contains("after 3 authorizations in a row"), "{text}");
    assert!(text.contains("resource_metadata"), "{text}");
    assert!(!host.http.is_closed());
    host.advance(60_000);
    host.no_request();
}

#[test]
fn a_failed_authorization_with_a_held_resume_closes() {
    let mut host = oauth_host();
    let resume = broken_call(&mut host, 8);
    host.head(resume.id, 401, &[]);
    host.events();
    host.http.authorization_failed("the user gave up");
    let events = host.events();
    assert_eq!(
        events,
        [HttpEvent::Closed {
            reason: "authorization failed: the user gave up".into()
        }]
    );
    host.no_request();
    assert!(host.http.set_access_token(host.now, "late").is_err());
}

#[test]
fn without_oauth_a_refused_resume_still_closes() {
    let mut host = Host::new();
    let resume = broken_call(&mut host, 5);
    host.head(resume.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    host.end(resume.id);
    let events = host.events();
    let [HttpEvent::Closed { reason }] = events.as_slice() else {
        panic!("expected Closed, got {events:?}");
    };
    assert!(
        reason.contains("HTTP 401 Unauthorized from GET http://127.0.0.1:9/mcp"),
        "{reason}"
    );
    assert!(reason.contains("refused our credentials"), "{reason}");
    assert!(host.http.is_closed());
}

#[test]
fn a_resume_due_during_a_round_waits_for_the_token() {
    let mut host = oauth_host();
    let resume = broken_call(&mut host, 5);
    // The resumption breaks again; the next one falls due while a POST is being authorized.
    host.sse_head(resume.id);
    host.chunk(resume.id, "id: ev-2\nretry: 500\ndata: \n\n");
    host.end(resume.id);
    host.send(call(6));
    let post = host.request();
    host.head(post.id, 401, &[]);
    assert!(authorization_required(&host.events(), 401));
    host.advance(500);
    host.no_request();
    host.http.set_access_token(host.now, "fresh").unwrap();
    let requests = [host.request(), host.request()];
    host.no_request();
    let get = requests.iter().find(|r| is_get(r)).unwrap();
    assert_eq!(get.header("last-event-id"), Some("ev-2"));
    assert!(requests
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer fresh")));
}

#[test]
fn a_held_resume_whose_answer_arrives_elsewhere_is_not_reopened() {
    let mut host = oauth_host();
    host.handshake("s");
    let get = host.request();
    host.sse_head(get.id);
    break_stream(&mut host, 5);
    host.advance(500);
    let resume = host.request();
    host.head(resume.id, 401, &[]);
    assert!(authorization_required(&host.events(), 401));
    // The server answers on the standalone stream instead.
    host.chunk(get.id, &event("g1", &result(5, "elsewhere")));
    assert_eq!(host.messages(), vec![result(5, "elsewhere")]);
    host.http.set_access_token(host.now, "fresh").unwrap();
    host.no_request();
}

#[test]
fn the_get_stream_refused_with_401_is_reopened_after_authorization() {
    let mut host = oauth_host();
    host.handshake("s");
    let get = host.request();
    assert!(is_get(&get));
    host.head(get.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    assert_eq!(host.aborts(), [get.id]);
    let events = host.events();
    assert!(authorization_required(&events, 401), "{events:?}");
    host.http.set_access_token(host.now, "fresh").unwrap();
    let again = host.request();
    assert!(is_get(&again));
    assert_eq!(again.header("authorization"), Some("Bearer fresh"));
    assert_eq!(again.header("last-event-id"), None);
    host.no_request();
    host.sse_head(again.id);
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
    host.chunk(again.id, &event("g1", &changed));
    assert_eq!(host.messages(), vec![changed]);
    assert!(host.events().is_empty());
}

#[test]
fn the_get_stream_gives_up_quietly_on_405_and_with_a_warning_without_oauth() {
    let mut host = oauth_host();
    host.handshake("s");
    let get = host.request();
    host.head(get.id, 405, &[]);
    host.end(get.id);
    assert!(host.events().is_empty(), "405 is a normal answer");
    host.advance(60_000);
    host.no_request();

    let mut host = Host::new();
    host.handshake("s");
    let get = host.request();
    host.head(get.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    host.end(get.id);
    match host.events().as_slice() {
        [HttpEvent::Warning { message }] => {
            assert!(message.contains("HTTP 401 Unauthorized"), "{message}");
        }
        other => panic!("unexpected events {other:?}"),
    }
    assert!(!host.http.is_closed());
    host.advance(60_000);
    host.no_request();
}
