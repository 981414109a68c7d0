//! Issuer checks of 2026-07-28: metadata for the issuer it was looked up for (RFC 8414 §3.3),
//! `iss` in the authorization response (RFC 9207), and credentials bound to their issuer
//! (SEP-2352).

use super::harness::*;
use crate::mcp::oauth::OAuthClient;
use serde_json::json;

const METADATA: &str = "https://auth.example/.well-known/oauth-authorization-server";

/// Approves, naming the right issuer.
fn approve_with_iss(url: &str) -> String {
    format!("{}&iss=https%3A%2F%2Fauth.example", approve(url))
}

/// Approves, naming another issuer (a mix-up).
fn approve_with_evil_iss(url: &str) -> String {
    format!("{}&iss=https%3A%2F%2Fevil.example", approve(url))
}

/// Approves, naming the issuer with a trailing `/` (equal only after normalisation).
fn approve_with_slashed_iss(url: &str) -> String {
    format!("{}&iss=https%3A%2F%2Fauth.example%2F", approve(url))
}

/// Refuses, naming another issuer.
fn refuse_with_evil_iss(url: &str) -> String {
    format!(
        "{}&error=access_denied&iss=https%3A%2F%2Fevil.example",
        approve(url)
    )
}

fn token_requested(script: &Script) -> bool {
    script.urls().contains(&format!("{AS}/token"))
}

#[test]
fn metadata_for_another_issuer_is_refused_and_none_of_its_endpoints_is_used() {
    let mut script = Script::new();
    script.standard(json!({"issuer": "https://attacker.example"}));
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains(METADATA), "{error}");
    assert!(error.contains("\"https://attacker.example\""), "{error}");
    assert!(error.contains("\"https://auth.example\""), "{error}");
    assert_eq!(script.urls(), [PATH_PRM.to_owned(), METADATA.to_owned()]);
    assert!(script.visited.is_empty(), "no authorization request");
}

#[test]
fn the_metadata_issuer_is_compared_without_normalisation() {
    for declared in [
        "https://auth.example/",
        "HTTPS://auth.example",
        "https://AUTH.example",
        "https://auth.example:443",
    ] {
        let mut script = Script::new();
        script.standard(json!({ "issuer": declared }));
        let error = script.run(config(), None).unwrap_err();
        assert!(error.contains("refusing it"), "{declared}: {error}");
        assert!(script.visited.is_empty(), "{declared}");
    }
    // Metadata that names no issuer claims no other one.
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        METADATA,
        200,
        json!({"authorization_endpoint": format!("{AS}/authorize"),
            "token_endpoint": format!("{AS}/token"),
            "registration_endpoint": format!("{AS}/register")}),
    );
    assert!(script.run(config(), None).is_ok());
}

#[test]
fn a_matching_iss_is_accepted_whether_advertised_or_not() {
    for advertised in [
        json!({"authorization_response_iss_parameter_supported": true}),
        json!({}),
    ] {
        let mut script = Script::new();
        script.standard(advertised.clone());
        script.redirect = approve_with_iss;
        let token = script.run(config(), None).unwrap();
        assert_eq!(token.issuer, AS, "{advertised}");
        assert!(token_requested(&script));
    }
}

#[test]
fn a_wrong_iss_is_refused_before_the_code_is_redeemed() {
    for advertised in [
        json!({"authorization_response_iss_parameter_supported": true}),
        json!({}),
    ] {
        let mut script = Script::new();
        script.standard(advertised.clone());
        script.redirect = approve_with_evil_iss;
        let error = script.run(config(), None).unwrap_err();
        assert!(error.contains("\"https://evil.example\""), "{error}");
        assert!(error.contains("mix-up"), "{error}");
        assert!(
            !token_requested(&script),
            "{advertised}: the code stays unused"
        );
    }
}

#[test]
fn an_iss_equal_only_after_normalisation_is_refused() {
    let mut script = Script::new();
    script.standard(json!({"authorization_response_iss_parameter_supported": true}));
    script.redirect = approve_with_slashed_iss;
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains("\"https://auth.example/\""), "{error}");
    assert!(!token_requested(&script));
}

#[test]
fn a_missing_iss_is_refused_only_when_the_server_promised_it() {
    let mut script = Script::new();
    script.standard(json!({"authorization_response_iss_parameter_supported": true}));
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains("carries no `iss`"), "{error}");
    assert!(error.contains(&format!("{AS}/authorize")), "{error}");
    assert!(!token_requested(&script));
    let mut script = Script::new();
    script.standard(json!({"authorization_response_iss_parameter_supported": false}));
    assert!(script.run(config(), None).is_ok());
}

#[test]
fn an_error_response_from_another_issuer_is_reported_as_a_mix_up() {
    let mut script = Script::new();
    script.standard(json!({}));
    script.redirect = refuse_with_evil_iss;
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains("mix-up"), "{error}");
    assert!(!error.contains("access_denied"), "{error}");
}

/// A client registered at `https://old-auth.example` and its refresh token.
fn bound_elsewhere(registered: bool) -> crate::mcp::oauth::OAuthConfig {
    let mut config = config();
    config.client = Some(OAuthClient {
        client_id: "old-client".into(),
        client_secret: Some("old-secret".into()),
        auth_method: None,
    });
    config.client_registered = registered;
    config.refresh_token = Some("old-refresh".into());
    config.credentials_issuer = Some("https://old-auth.example".into());
    config
}

#[test]
fn a_client_registered_at_another_issuer_is_never_presented_and_the_flow_registers_anew() {
    let mut script = Script::new();
    script.standard(json!({}));
    let token = script.run(bound_elsewhere(true), None).unwrap();
    assert_eq!(token.client.client_id, "dyn-client");
    assert!(token.client_registered);
    assert_eq!(token.issuer, AS);
    assert!(script.urls().contains(&format!("{AS}/register")));
    assert_eq!(
        script.authorize_param("client_id").as_deref(),
        Some("dyn-client")
    );
    for request in &script.requests {
        let body = String::from_utf8_lossy(request.body.as_deref().unwrap_or_default());
        let headers = format!("{:?}", request.headers);
        for secret in ["old-client", "old-secret", "old-refresh"] {
            assert!(!body.contains(secret), "{secret} sent to {}", request.url);
            assert!(
                !headers.contains(secret),
                "{secret} sent to {}",
                request.url
            );
        }
    }
    assert!(!script.visited[0].contains("old-client"));
}

#[test]
fn a_pre_registered_client_stays_but_a_foreign_refresh_token_is_never_sent() {
    let mut script = Script::new();
    script.standard(json!({}));
    let token = script.run(bound_elsewhere(false), None).unwrap();
    assert_eq!(
        token.client.client_id, "old-client",
        "the user's own client"
    );
    assert!(!token.client_registered);
    assert!(!script.urls().contains(&format!("{AS}/register")));
    assert_eq!(script.token_form()["grant_type"], "authorization_code");
    assert!(script.requests.iter().all(|r| !String::from_utf8_lossy(
        r.body.as_deref().unwrap_or_default()
    )
    .contains("old-refresh")));
}

#[test]
fn credentials_of_the_same_issuer_are_used() {
    let mut script = Script::new();
    script.standard(json!({}));
    let mut config = bound_elsewhere(true);
    config.credentials_issuer = Some(AS.into());
    let token = script.run(config, None).unwrap();
    assert_eq!(script.token_form()["grant_type"], "refresh_token");
    assert_eq!(script.token_form()["refresh_token"], "old-refresh");
    assert_eq!(token.client.client_id, "old-client");
    assert!(token.client_registered, "still the registered client");
    assert!(!script.urls().contains(&format!("{AS}/register")));
}
