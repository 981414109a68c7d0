//! Clients, grants, scopes, redirects and failures.

use super::harness::*;
use crate::mcp::oauth::encoding::base64_standard;
use crate::mcp::oauth::OAuthClient;
use serde_json::json;

#[test]
fn pre_registered_clients_skip_registration() {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]}));
    let mut config = config();
    config.client = Some(OAuthClient {
        client_id: "pre id".into(),
        client_secret: Some("s&cret".into()),
        auth_method: None,
    });
    script.run(config, None).unwrap();
    assert!(!script.urls().contains(&format!("{AS}/register")));
    assert_eq!(script.authorize_param("client_id").unwrap(), "pre id");
    let form = script.token_form();
    assert_eq!(form["client_id"], "pre id");
    assert_eq!(form["client_secret"], "s&cret");
    assert_eq!(
        script
            .request_to(&format!("{AS}/token"))
            .header("authorization"),
        None
    );
}

#[test]
fn basic_credentials_are_form_encoded_first() {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}));
    let mut config = config();
    config.client = Some(OAuthClient {
        client_id: "a:b".into(),
        client_secret: Some("p w".into()),
        auth_method: None,
    });
    script.run(config, None).unwrap();
    let expected = format!("Basic {}", base64_standard(b"a%3Ab:p%20w"));
    assert_eq!(
        script
            .request_to(&format!("{AS}/token"))
            .header("authorization"),
        Some(expected.as_str())
    );
}

#[test]
fn the_registration_answer_decides_the_auth_method() {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["none"]}));
    script.answer(
        &format!("{AS}/register"),
        201,
        json!({"client_id": "pub", "token_endpoint_auth_method": "none"}),
    );
    script.run(config(), None).unwrap();
    let registration: serde_json::Value =
        serde_json::from_slice(script.requests[2].body.as_ref().unwrap()).unwrap();
    assert_eq!(registration["token_endpoint_auth_method"], "none");
    assert_eq!(script.token_form()["client_id"], "pub");
    assert_eq!(
        script
            .request_to(&format!("{AS}/token"))
            .header("authorization"),
        None
    );
}

#[test]
fn client_metadata_documents_are_used_only_where_supported() {
    let cimd = "https://client.example/metadata.json";
    let mut script = Script::new();
    script.standard(json!({"client_id_metadata_document_supported": true}));
    let mut with_cimd = config();
    with_cimd.client_metadata_url = Some(cimd.into());
    script.run(with_cimd.clone(), None).unwrap();
    assert_eq!(script.authorize_param("client_id").unwrap(), cimd);
    assert!(!script.urls().contains(&format!("{AS}/register")));

    let mut script = Script::new();
    script.standard(json!({}));
    script.run(with_cimd, None).unwrap();
    assert_eq!(script.authorize_param("client_id").unwrap(), "dyn-client");
}

#[test]
fn scope_comes_from_the_challenge_then_scopes_supported_then_nowhere() {
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        PATH_PRM,
        200,
        json!({"resource": MCP, "authorization_servers": [AS], "scopes_supported": ["r", "w"]}),
    );
    script
        .run(config(), Some(r#"Bearer scope="mcp:basic""#))
        .unwrap();
    assert_eq!(script.authorize_param("scope").unwrap(), "mcp:basic");
    script.run(config(), Some("Bearer")).unwrap();
    assert_eq!(script.authorize_param("scope").unwrap(), "r w");
    let mut overridden = config();
    overridden.scope = Some("mine".into());
    script
        .run(overridden, Some(r#"Bearer scope="mcp:basic""#))
        .unwrap();
    assert_eq!(script.authorize_param("scope").unwrap(), "mine");
}

#[test]
fn offline_access_is_requested_only_when_the_server_lists_it() {
    let mut script = Script::new();
    script.standard(json!({"scopes_supported": ["mcp:basic", "offline_access"]}));
    script
        .run(config(), Some(r#"Bearer scope="mcp:basic""#))
        .unwrap();
    assert_eq!(
        script.authorize_param("scope").unwrap(),
        "mcp:basic offline_access"
    );
    let mut script = Script::new();
    script.standard(json!({"scopes_supported": ["mcp:basic"]}));
    script
        .run(config(), Some(r#"Bearer scope="mcp:basic""#))
        .unwrap();
    assert_eq!(script.authorize_param("scope").unwrap(), "mcp:basic");
}

/// The error of a standard flow in which `url` answers `status` with `body`.
fn failure_when(url: &str, status: u16, body: serde_json::Value) -> String {
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(url, status, body);
    script.run(config(), None).unwrap_err()
}

#[test]
fn failures_name_the_culprit() {
    // Resource metadata found, but no authorization server metadata anywhere.
    let mut script = Script::new();
    script.answer(
        PATH_PRM,
        200,
        json!({"resource": MCP, "authorization_servers": [AS]}),
    );
    let error = script.run(config(), None).unwrap_err();
    assert!(
        error.contains("no authorization server metadata for https://auth.example"),
        "{error}"
    );
    assert!(
        error.contains("/.well-known/openid-configuration answered HTTP 404"),
        "{error}"
    );

    // Metadata for another resource.
    let error = failure_when(
        PATH_PRM,
        200,
        json!({"resource": "https://evil.example/mcp", "authorization_servers": [AS]}),
    );
    assert!(
        error.contains("names resource \"https://evil.example/mcp\""),
        "{error}"
    );

    // Registration refused.
    let error = failure_when(
        &format!("{AS}/register"),
        400,
        json!({"error": "invalid_client_metadata", "error_description": "no"}),
    );
    assert!(error.contains("client registration at https://auth.example/register failed: HTTP 400: invalid_client_metadata (no)"), "{error}");

    // No registration endpoint and no client.
    let error = failure_when(
        &format!("{AS}/.well-known/oauth-authorization-server"),
        200,
        json!({
        "authorization_endpoint": format!("{AS}/authorize"), "token_endpoint": format!("{AS}/token")}),
    );
    assert!(
        error.contains("offers no dynamic client registration"),
        "{error}"
    );

    // Token refused; a non-Bearer token.
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        &format!("{AS}/token"),
        400,
        json!({"error": "invalid_grant"}),
    );
    let error = script.run(config(), None).unwrap_err();
    assert!(
        error
            .contains("token endpoint https://auth.example/token refused: HTTP 400: invalid_grant"),
        "{error}"
    );
    script.answer(
        &format!("{AS}/token"),
        200,
        json!({"access_token": "x", "token_type": "mac"}),
    );
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains("only Bearer"), "{error}");
    assert!(
        !error.contains("\"x\""),
        "the token must not be echoed: {error}"
    );
}

#[test]
fn redirects_are_checked() {
    let mut script = Script::new();
    script.standard(json!({}));
    script.redirect = |_| format!("{REDIRECT}?code=c&state=forged");
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains("wrong or no `state`"), "{error}");
    script.redirect = |_| format!("{REDIRECT}?error=access_denied&error_description=user+said+no");
    let error = script.run(config(), None).unwrap_err();
    assert!(
        error.contains("refused: access_denied (user said no)"),
        "{error}"
    );
    script.redirect = |url| approve(url).replace("code=the-code&", "");
    let error = script.run(config(), None).unwrap_err();
    assert!(error.contains("carries no `code`"), "{error}");
}

#[test]
fn secrets_and_tokens_stay_out_of_debug_output() {
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        &format!("{AS}/token"),
        200,
        json!({"access_token": "sekrit-token", "refresh_token": "sekrit-refresh"}),
    );
    let token = script.run(config(), None).unwrap();
    let shown = format!("{token:?}");
    assert!(
        !shown.contains("sekrit") && !shown.contains("dyn-secret"),
        "{shown}"
    );
    assert_eq!(token.refresh_token.as_deref(), Some("sekrit-refresh"));
}

#[test]
fn client_credentials_skip_the_user_and_authenticate_the_client() {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}));
    let mut config = config();
    config.client_credentials = true;
    config.client = Some(OAuthClient {
        client_id: "m2m".into(),
        client_secret: Some("s".into()),
        auth_method: None,
    });
    let token = script
        .run(config.clone(), Some(r#"Bearer scope="mcp:basic""#))
        .unwrap();
    assert_eq!(token.access_token, "tok");
    assert!(script.visited.is_empty(), "no authorization step");
    assert!(!script.urls().contains(&format!("{AS}/register")));
    let form = script.token_form();
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(form["scope"], "mcp:basic");
    assert_eq!(form["resource"], MCP);
    assert!(!form.contains_key("code_verifier"));
    let basic = format!("Basic {}", base64_standard(b"m2m:s"));
    assert_eq!(
        script
            .request_to(&format!("{AS}/token"))
            .header("authorization"),
        Some(basic.as_str())
    );

    config.client = None;
    let error = script.run(config, None).unwrap_err();
    assert!(
        error.contains("needs a configured client id and secret"),
        "{error}"
    );
}

#[test]
fn a_refresh_token_is_tried_first_and_a_refusal_falls_back_to_authorizing() {
    let known = OAuthClient {
        client_id: "pub".into(),
        client_secret: None,
        auth_method: Some("none".into()),
    };
    let mut config = config();
    config.client = Some(known);
    config.refresh_token = Some("old-refresh".into());
    assert!(!format!("{config:?}").contains("old-refresh"));

    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        &format!("{AS}/token"),
        200,
        json!({"access_token": "renewed"}),
    );
    let token = script.run(config.clone(), None).unwrap();
    assert_eq!(token.access_token, "renewed");
    assert!(script.visited.is_empty(), "no user step");
    let form = script.token_form();
    assert_eq!(form["grant_type"], "refresh_token");
    assert_eq!(form["refresh_token"], "old-refresh");
    assert_eq!(form["client_id"], "pub");
    assert_eq!(form["resource"], MCP);

    // The token endpoint refuses every grant here: refresh, then the authorization code.
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        &format!("{AS}/token"),
        400,
        json!({"error": "invalid_grant"}),
    );
    let error = script.run(config, None).unwrap_err();
    assert_eq!(
        script.visited.len(),
        1,
        "the user is asked after the refused refresh"
    );
    assert_eq!(script.token_form()["grant_type"], "authorization_code");
    assert!(error.contains("invalid_grant"), "{error}");
}
