//! Workload identity federation (SEP-1933): the platform's JWT as an RFC 7523 bearer grant.

use super::harness::*;
use crate::mcp::oauth::OAuthClient;
use serde_json::json;

const WORKLOAD_JWT: &str = "eyJ.the-workload.sig";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

#[test]
fn the_workload_token_is_traded_with_the_jwt_bearer_grant_and_no_user() {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["none"]}));
    let mut config = config();
    config.workload_token = Some(WORKLOAD_JWT.into());
    config.client = Some(OAuthClient {
        client_id: "workload-1".into(),
        client_secret: None,
        auth_method: None,
    });
    let token = script
        .run(config.clone(), Some(r#"Bearer scope="mcp:read""#))
        .unwrap();
    assert_eq!(token.access_token, "tok");
    assert!(script.visited.is_empty(), "no user step");
    assert!(!script.urls().contains(&format!("{AS}/register")));
    let form = script.token_form();
    assert_eq!(form["grant_type"], JWT_BEARER);
    assert_eq!(form["assertion"], WORKLOAD_JWT);
    assert_eq!(form["client_id"], "workload-1");
    assert_eq!(form["resource"], MCP);
    assert_eq!(form["scope"], "mcp:read");
    assert!(!format!("{config:?}").contains(WORKLOAD_JWT), "redacted");

    // Without a client, the assertion alone identifies the workload.
    let mut script = Script::new();
    script.standard(json!({}));
    config.client = None;
    script.run(config, None).unwrap();
    let form = script.token_form();
    assert_eq!(form["grant_type"], JWT_BEARER);
    assert!(!form.contains_key("client_id"), "{form:?}");
}

#[test]
fn a_refused_workload_token_ends_the_flow_without_another_grant() {
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer_grant(
        &format!("{AS}/token"),
        JWT_BEARER,
        400,
        json!({"error": "invalid_grant", "error_description": "JWT assertion is expired"}),
    );
    let mut config = config();
    config.workload_token = Some(WORKLOAD_JWT.into());
    let error = script.run(config, None).unwrap_err();
    assert!(
        error.contains("invalid_grant (JWT assertion is expired)"),
        "{error}"
    );
    assert!(error.contains(&format!("{AS}/token")), "{error}");
    assert!(!error.contains(WORKLOAD_JWT), "{error}");
    assert_eq!(
        script
            .urls()
            .iter()
            .filter(|u| u.ends_with("/token"))
            .count(),
        1,
        "no retry, no other grant"
    );
    assert!(script.visited.is_empty());
}
