//! Scope of 2026-07-28: step-up keeps earlier scope (SEP-2350), `offline_access` only when
//! the authorization server lists it (SEP-2207), and registration as a native or web
//! application (SEP-837).

use super::harness::*;
use serde_json::{json, Value};

const STEP_UP: &str = r#"Bearer error="insufficient_scope", scope="mcp:write""#;

#[test]
fn a_step_up_asks_for_the_previous_scope_and_the_challenged_one() {
    let mut script = Script::new();
    script.standard(json!({}));
    let mut config = config();
    config.previous_scope = Some("mcp:basic mcp:write".into());
    let challenge = r#"Bearer error="insufficient_scope", scope="mcp:write mcp:admin""#;
    script.run(config, Some(challenge)).unwrap();
    assert_eq!(
        script.authorize_param("scope").as_deref(),
        Some("mcp:basic mcp:write mcp:admin"),
        "each scope once, the earlier ones first"
    );
    // Without an earlier authorization, the configured scope is what came before.
    let mut script = Script::new();
    script.standard(json!({}));
    let mut config = super::harness::config();
    config.scope = Some("mine".into());
    script.run(config, Some(STEP_UP)).unwrap();
    assert_eq!(
        script.authorize_param("scope").as_deref(),
        Some("mine mcp:write")
    );
}

#[test]
fn a_first_authorization_does_not_carry_an_earlier_scope() {
    // A 401 (no or expired token) re-authorizes from the challenge: the user may narrow.
    let mut script = Script::new();
    script.standard(json!({}));
    let mut config = config();
    config.previous_scope = Some("mcp:basic".into());
    script
        .run(config, Some(r#"Bearer scope="mcp:read""#))
        .unwrap();
    assert_eq!(script.authorize_param("scope").as_deref(), Some("mcp:read"));
}

#[test]
fn offline_access_follows_the_authorization_server_not_the_resource() {
    // The resource (or a challenge) naming offline_access does not make the authorization
    // server support it.
    let mut script = Script::new();
    script.standard(json!({"scopes_supported": ["mcp:basic"]}));
    script.answer(
        PATH_PRM,
        200,
        json!({"resource": MCP, "authorization_servers": [AS],
            "scopes_supported": ["mcp:basic", "offline_access"]}),
    );
    script.run(config(), None).unwrap();
    assert_eq!(
        script.authorize_param("scope").as_deref(),
        Some("mcp:basic")
    );
    let mut script = Script::new();
    script.standard(json!({"scopes_supported": ["mcp:basic", "offline_access"]}));
    script
        .run(config(), Some(r#"Bearer scope="offline_access mcp:basic""#))
        .unwrap();
    assert_eq!(
        script.authorize_param("scope").as_deref(),
        Some("mcp:basic offline_access"),
        "asked for once"
    );
    // offline_access alone is no scope for the resource: none is sent.
    let mut script = Script::new();
    script.standard(json!({}));
    script
        .run(config(), Some(r#"Bearer scope="offline_access""#))
        .unwrap();
    assert_eq!(script.authorize_param("scope"), None);
}

/// The `application_type` the flow registers with for `redirect_uri`.
fn registered_type(redirect_uri: &str) -> Value {
    let mut script = Script::new();
    script.standard(json!({}));
    let mut config = config();
    config.redirect_uri = redirect_uri.into();
    script.redirect = |url| {
        let state = crate::mcp::oauth::SplitUrl::parse(url)
            .and_then(|u| u.query_param("state"))
            .unwrap_or_default();
        format!("https://anywhere.example/cb?code=c&state={state}")
    };
    script.run(config, None).unwrap();
    let body = script.request_to(&format!("{AS}/register")).body.clone();
    let registration: Value = serde_json::from_slice(&body.unwrap()).unwrap();
    registration["application_type"].clone()
}

#[test]
fn registration_declares_a_native_or_web_application() {
    for native in [
        "http://127.0.0.1:8123/callback",
        "http://127.9.0.1/callback",
        "http://localhost:3000/callback",
        "http://LOCALHOST/callback",
        "http://[::1]:8123/callback",
        "com.example.agent:/callback",
    ] {
        assert_eq!(registered_type(native), "native", "{native}");
    }
    for web in [
        "https://app.example/callback",
        "https://127.0.0.1.example/callback",
        "http://localhost.example:3000/callback",
        "https://10.0.0.1/callback",
    ] {
        assert_eq!(registered_type(web), "web", "{web}");
    }
}
