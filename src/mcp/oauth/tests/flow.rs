//! Discovery: where metadata is looked for, in which order, and what happens without it.

use super::harness::*;
use crate::mcp::oauth::encoding::{base64_standard, base64url, pkce_challenge};
use serde_json::json;

#[test]
fn default_flow_discovers_registers_authorizes_and_exchanges() {
    let mut script = Script::new();
    script.standard(json!({}));
    let token = script.run(config(), Some("Bearer")).unwrap();
    assert_eq!(token.access_token, "tok");
    assert_eq!(token.expires_in, Some(60));
    assert_eq!(token.client.client_id, "dyn-client");
    assert_eq!(
        script.urls(),
        [
            PATH_PRM.to_owned(),
            format!("{AS}/.well-known/oauth-authorization-server"),
            format!("{AS}/register"),
            format!("{AS}/token"),
        ]
    );
    let registration: serde_json::Value =
        serde_json::from_slice(script.requests[2].body.as_ref().unwrap()).unwrap();
    assert_eq!(registration["redirect_uris"], json!([REDIRECT]));
    assert_eq!(registration["grant_types"][1], "refresh_token");
    // PKCE S256 over the host's verifier bytes, state, resource.
    let verifier = base64url(&[7; 32]);
    assert_eq!(
        script.authorize_param("code_challenge"),
        Some(pkce_challenge(&verifier))
    );
    assert_eq!(
        script.authorize_param("code_challenge_method").unwrap(),
        "S256"
    );
    assert_eq!(script.authorize_param("state"), Some(base64url(&[9; 16])));
    assert_eq!(script.authorize_param("resource").unwrap(), MCP);
    assert_eq!(script.authorize_param("scope"), None);
    let form = script.token_form();
    assert_eq!(form["grant_type"], "authorization_code");
    assert_eq!(form["code"], "the-code");
    assert_eq!(form["code_verifier"], verifier);
    assert_eq!(form["redirect_uri"], REDIRECT);
    assert_eq!(form["resource"], MCP);
    // A secret and no listed methods: client_secret_basic, the RFC 8414 default.
    let basic = base64_standard(b"dyn-client:dyn-secret");
    assert_eq!(
        script
            .request_to(&format!("{AS}/token"))
            .header("authorization"),
        Some(format!("Basic {basic}").as_str())
    );
    assert!(!form.contains_key("client_secret"));
}

#[test]
fn resource_metadata_from_the_challenge_comes_first() {
    let mut script = Script::new();
    script.standard(json!({}));
    let elsewhere = "https://mcp.example/custom/prm";
    let prm = script.answers[PATH_PRM].clone();
    script.answers.insert(elsewhere.into(), prm);
    let challenge = format!(r#"Bearer resource_metadata="{elsewhere}""#);
    script.run(config(), Some(&challenge)).unwrap();
    assert_eq!(script.urls()[0], elsewhere);
}

#[test]
fn root_resource_metadata_is_the_last_resort() {
    let mut script = Script::new();
    script.standard(json!({}));
    let prm = script.answers.remove(PATH_PRM).unwrap();
    script.answers.insert(ROOT_PRM.into(), prm);
    script.run(config(), None).unwrap();
    assert_eq!(
        script.urls()[..2],
        [PATH_PRM.to_owned(), ROOT_PRM.to_owned()]
    );
}

#[test]
fn path_based_authorization_servers_are_tried_in_order() {
    for (found_at, position) in [
        (
            "https://auth.example/.well-known/oauth-authorization-server/tenant",
            1,
        ),
        (
            "https://auth.example/.well-known/openid-configuration/tenant",
            2,
        ),
        (
            "https://auth.example/tenant/.well-known/openid-configuration",
            3,
        ),
    ] {
        let mut script = Script::new();
        script.standard(json!({"issuer": "https://auth.example/tenant"}));
        let metadata = script
            .answers
            .remove(&format!("{AS}/.well-known/oauth-authorization-server"))
            .unwrap();
        script.answers.insert(found_at.into(), metadata);
        script.answer(
            PATH_PRM,
            200,
            json!({"resource": MCP, "authorization_servers": ["https://auth.example/tenant"]}),
        );
        script.run(config(), None).unwrap();
        assert_eq!(script.urls()[position], found_at);
        assert!(!script
            .urls()
            .contains(&format!("{AS}/.well-known/oauth-authorization-server")));
    }
}

#[test]
fn without_resource_metadata_the_mcp_origin_is_the_server_2025_03_26() {
    let mut script = Script::new();
    script.answer(
        "https://mcp.example/.well-known/oauth-authorization-server",
        200,
        json!({
            // Below the origin it was looked up at: fine without resource metadata.
            "issuer": "https://mcp.example/oauth",
            "authorization_endpoint": "https://mcp.example/oauth/authorize",
            "token_endpoint": "https://mcp.example/oauth/token",
            "registration_endpoint": "https://mcp.example/oauth/register",
        }),
    );
    script.answer(
        "https://mcp.example/oauth/register",
        201,
        json!({"client_id": "c"}),
    );
    script.answer(
        "https://mcp.example/oauth/token",
        200,
        json!({"access_token": "t"}),
    );
    let token = script.run(config(), None).unwrap();
    assert_eq!(token.access_token, "t");
    assert_eq!(token.issuer, "https://mcp.example/oauth");
    assert!(script.visited[0].starts_with("https://mcp.example/oauth/authorize?"));
}

#[test]
fn without_any_metadata_the_default_endpoints_are_used() {
    let mut script = Script::new();
    script.answer(
        "https://mcp.example/register",
        201,
        json!({"client_id": "c"}),
    );
    script.answer(
        "https://mcp.example/token",
        200,
        json!({"access_token": "t"}),
    );
    script.run(config(), None).unwrap();
    assert!(script.visited[0].starts_with("https://mcp.example/authorize?"));
    // No secret: the client id goes in the form.
    assert_eq!(
        script.form_at("https://mcp.example/token")["client_id"],
        "c"
    );
}
