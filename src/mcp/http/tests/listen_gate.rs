//! What follows `notifications/initialized` waits for the standalone `GET` stream's answer: a
//! legacy server sends its own requests (elicitation, sampling, roots) on that stream alone
//! and drops them while it is not open, so a call must not overtake it.

use super::*;
use crate::mcp::http::LISTEN_WAIT;

fn after_handshake() -> (Host, HttpRequest) {
    let mut host = Host::new();
    host.handshake("s");
    let get = host.request();
    assert!(is_get(&get));
    host.send(call(2));
    host.no_request();
    (host, get)
}

fn the_call_goes(host: &mut Host) {
    let post = host.request();
    assert_eq!(post.method, HttpMethod::Post);
    let body: Value = serde_json::from_slice(post.body.as_deref().unwrap()).unwrap();
    assert_eq!(body, call(2));
    host.no_request();
}

#[test]
fn a_call_waits_for_the_stream_to_open_then_goes() {
    let (mut host, get) = after_handshake();
    host.sse_head(get.id);
    the_call_goes(&mut host);
}

#[test]
fn a_stream_the_server_refuses_releases_the_call_as_well() {
    let (mut host, get) = after_handshake();
    host.head(get.id, 405, &[]);
    the_call_goes(&mut host);
    host.end(get.id);
    host.no_request();
}

#[test]
fn a_stream_that_fails_before_its_head_releases_the_call() {
    let (mut host, get) = after_handshake();
    host.http
        .handle_request_error(host.now, get.id, "connection reset");
    the_call_goes(&mut host);
}

#[test]
fn a_stream_that_never_answers_holds_the_call_no_longer_than_the_wait() {
    let (mut host, _get) = after_handshake();
    let due = host.http.poll_timeout().expect("the wait is on the clock");
    assert_eq!(
        due.as_millis(),
        host.now.as_millis() + LISTEN_WAIT.as_millis() as u64
    );
    host.advance(LISTEN_WAIT.as_millis() as u64 - 1);
    host.no_request();
    host.advance(1);
    the_call_goes(&mut host);
    assert_eq!(
        host.http.poll_timeout(),
        None,
        "nothing else is on the clock"
    );
}

#[test]
fn messages_keep_their_order_behind_the_stream() {
    let (mut host, get) = after_handshake();
    host.send(call(3));
    host.sse_head(get.id);
    let ids: Vec<Value> = [host.request(), host.request()]
        .iter()
        .map(|r| serde_json::from_slice::<Value>(r.body.as_deref().unwrap()).unwrap()["id"].clone())
        .collect();
    assert_eq!(ids, [json!(2), json!(3)]);
}

#[test]
fn without_the_stream_nothing_waits() {
    let mut config = HttpConfig::new(URL);
    config.listen = false;
    let mut host = Host::with(config);
    host.handshake("s");
    host.send(call(2));
    the_call_goes(&mut host);
    assert_eq!(host.http.poll_timeout(), None);
}
