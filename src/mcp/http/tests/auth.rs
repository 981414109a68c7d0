//! OAuth mode: 401/403 are handed up, messages held and re-sent with the bearer token.

use super::*;
use crate::mcp::http::MAX_AUTHORIZATIONS;

pub(super) fn oauth_host() -> Host {
    let mut config = HttpConfig::new(URL);
    config.oauth = true;
    config.headers = vec![("Authorization".into(), "Bearer stale".into())];
    Host::with(config)
}

pub(super) const CHALLENGE: &str =
    r#"Bearer resource_metadata="http://127.0.0.1:9/prm", scope="a""#;

#[test]
fn a_dpop_bound_token_is_sent_with_the_dpop_scheme() {
    let mut host = oauth_host();
    host.http.set_token_dpop(true);
    host.http.set_access_token(host.now, "bound").unwrap();
    host.send(initialize(1));
    let init = host.request();
    assert_eq!(init.header("authorization"), Some("DPoP bound"));
    // A later token that is not bound goes back to Bearer.
    host.http.set_token_dpop(false);
    host.http.set_access_token(host.now, "plain").unwrap();
    host.json(init.id, &[], &init_result(1, "2025-11-25").to_string());
    assert_eq!(host.messages().len(), 1);
    host.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let initialized = host.request();
    assert_eq!(initialized.header("authorization"), Some("Bearer plain"));
}

#[test]
fn a_401_on_initialize_is_handed_up_and_everything_is_resent_with_the_token() {
    let mut host = oauth_host();
    host.send(initialize(1));
    let init = host.request();
    host.head(init.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    assert_eq!(host.aborts(), [init.id]);
    assert_eq!(
        host.events(),
        [HttpEvent::AuthorizationRequired {
            status: 401,
            www_authenticate: Some(CHALLENGE.into()),
        }]
    );
    // Messages sent while authorizing wait, and no second event is raised.
    host.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    host.no_request();
    assert!(host.events().is_empty());
    assert!(!host.http.is_closed());

    host.http.set_access_token(host.now, "fresh").unwrap();
    assert!(host.http.has_access_token());
    let init = host.request();
    assert_eq!(init.header("authorization"), Some("Bearer fresh"));
    let sent: Value = serde_json::from_slice(init.body.as_ref().unwrap()).unwrap();
    assert_eq!(sent["method"], "initialize");
    // The initialize gates again: the notification follows its answer, with the session id.
    host.no_request();
    host.json(
        init.id,
        &[("Mcp-Session-Id", "s")],
        &init_result(1, "2025-11-25").to_string(),
    );
    assert_eq!(host.messages().len(), 1);
    let initialized = host.request();
    assert_eq!(initialized.header("authorization"), Some("Bearer fresh"));
    assert_eq!(initialized.header("mcp-session-id"), Some("s"));
    assert_eq!(
        initialized
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
            .count(),
        1,
        "the token replaces the configured Authorization header"
    );
}

#[test]
fn a_403_step_up_resends_the_request_and_the_rounds_are_limited() {
    // Out of rounds, a 403 (more scope than any authorization gives) fails that request; a
    // 401 (no token accepted at all) closes, since every later message would be refused too.
    for status in [403, 401] {
        let mut host = oauth_host();
        host.handshake("s");
        let _get = host.listen();
        host.send(call(3));
        let challenge = [("WWW-Authenticate", "Bearer error=\"insufficient_scope\"")];
        for round in 0..MAX_AUTHORIZATIONS {
            let post = host.request();
            host.head(post.id, status, &challenge);
            let events = host.events();
            assert!(
                matches!(
                    events[..],
                    [HttpEvent::AuthorizationRequired { status: s, .. }] if s == status
                ),
                "round {round}: {events:?}"
            );
            host.http
                .set_access_token(host.now, format!("token-{round}"))
                .unwrap();
        }
        let post = host.request();
        let sent: Value = serde_json::from_slice(post.body.as_ref().unwrap()).unwrap();
        assert_eq!(sent["id"], 3, "the refused call itself is re-sent");
        host.head(post.id, status, &challenge);
        let reason = if status == 403 {
            assert!(host.events().is_empty(), "no fourth round");
            assert!(!host.http.is_closed());
            let answers = host.messages();
            assert_eq!(answers[0]["id"], 3);
            answers[0]["error"]["message"].as_str().unwrap().to_owned()
        } else {
            let events = host.events();
            let Some(HttpEvent::Closed { reason }) = events.last() else {
                panic!("expected Closed, got {events:?}");
            };
            reason.clone()
        };
        assert!(
            reason.contains("after 3 authorizations in a row"),
            "{reason}"
        );
        assert!(reason.contains("insufficient_scope"), "{reason}");
    }
}

#[test]
fn a_success_resets_the_rounds_and_a_failed_authorization_closes() {
    let mut host = oauth_host();
    host.handshake("s");
    let _get = host.listen();
    for id in 3..3 + u64::from(MAX_AUTHORIZATIONS) + 1 {
        host.send(call(id));
        let post = host.request();
        host.head(post.id, 401, &[]);
        assert!(matches!(
            host.events()[..],
            [HttpEvent::AuthorizationRequired {
                status: 401,
                www_authenticate: None
            }]
        ));
        host.http.set_access_token(host.now, "t").unwrap();
        let post = host.request();
        host.json(post.id, &[], &result(id, "ok").to_string());
        assert_eq!(host.messages()[0]["id"], id);
        assert_eq!(
            host.http.refusals_remembered(),
            0,
            "an answered request's refusals are forgotten (memory stays bounded)"
        );
    }
    host.send(call(99));
    let post = host.request();
    host.head(post.id, 401, &[]);
    host.events();
    host.http.authorization_failed("the user gave up");
    let reason = host.http.closed_reason().unwrap().to_owned();
    assert_eq!(reason, "authorization failed: the user gave up");
    assert!(host.http.set_access_token(host.now, "late").is_err());
}

#[test]
fn without_oauth_a_401_still_closes() {
    let mut host = Host::new();
    host.send(initialize(1));
    let init = host.request();
    host.head(init.id, 401, &[("WWW-Authenticate", CHALLENGE)]);
    host.end(init.id);
    let events = host.events();
    assert!(
        matches!(events[..], [HttpEvent::Closed { .. }]),
        "{events:?}"
    );
}

#[test]
fn a_step_up_that_never_satisfies_one_request_gives_up_on_it_while_others_succeed() {
    // Each round, another request succeeds with the new token (which resets the rounds in a
    // row); the refused call must still stop after its own MAX_AUTHORIZATIONS rounds, and a
    // 403 fails only that call: the server keeps serving the rest.
    let mut host = oauth_host();
    host.handshake("s");
    let _get = host.listen();
    host.send(call(3));
    let step_up = [(
        "WWW-Authenticate",
        "Bearer error=\"insufficient_scope\", scope=\"admin\"",
    )];
    let mut rounds = 0;
    let mut refused = host.request();
    for other in 10..20 {
        host.head(refused.id, 403, &step_up);
        let events = host.events();
        if !matches!(
            events[..],
            [HttpEvent::AuthorizationRequired { status: 403, .. }]
        ) {
            // No new round: the call was given up on.
            assert!(events.is_empty(), "{events:?}");
            break;
        }
        rounds += 1;
        assert!(
            rounds <= MAX_AUTHORIZATIONS,
            "round {rounds} for the same call"
        );
        host.send(call(other));
        host.http
            .set_access_token(host.now, format!("t{rounds}"))
            .unwrap();
        // The refused call is re-sent first, then the other one, which succeeds.
        refused = host.request();
        let sent: Value = serde_json::from_slice(refused.body.as_ref().unwrap()).unwrap();
        assert_eq!(sent["id"], 3);
        let succeeding = host.request();
        host.json(succeeding.id, &[], &result(other, "ok").to_string());
        assert_eq!(host.messages()[0]["id"], other);
    }
    assert_eq!(rounds, MAX_AUTHORIZATIONS);
    let answers = host.messages();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["id"], 3);
    let message = answers[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("HTTP 403"), "{message}");
    assert!(message.contains("insufficient_scope"), "{message}");
    assert!(message.contains(URL), "{message}");
    assert!(!host.http.is_closed(), "the other requests are unaffected");
    host.send(call(30));
    let post = host.request();
    host.json(post.id, &[], &result(30, "still served").to_string());
    assert_eq!(host.messages()[0]["id"], 30);
}
