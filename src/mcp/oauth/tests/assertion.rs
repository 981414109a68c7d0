//! `private_key_jwt` (RFC 7523 §2.2): the flow asks the host to sign, then sends the assertion.

use super::harness::*;
use crate::mcp::oauth::{OAuthClient, OAuthConfig, OAuthFlow, OAuthStep};
use serde_json::json;

const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

fn jwt_client(secret: Option<&str>, auth_method: Option<&str>) -> OAuthClient {
    OAuthClient {
        client_id: "m2m".into(),
        client_secret: secret.map(str::to_owned),
        auth_method: auth_method.map(str::to_owned),
    }
}

fn m2m_config(client: OAuthClient) -> OAuthConfig {
    let mut config = config();
    config.client_credentials = true;
    config.client = Some(client);
    config
}

#[test]
fn a_configured_private_key_jwt_client_signs_and_sends_no_secret() {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["private_key_jwt"]}));
    // A secret configured alongside is still never sent: the assertion replaces it.
    let config = m2m_config(jwt_client(Some("s3cret"), Some("private_key_jwt")));
    let token = script
        .run(config, Some(r#"Bearer scope="mcp:basic""#))
        .unwrap();
    assert_eq!(token.access_token, "tok");
    assert_eq!(script.signed, vec![("m2m".to_owned(), AS.to_owned())]);
    assert!(script.visited.is_empty(), "no user step");
    let form = script.token_form();
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(form["client_assertion_type"], JWT_BEARER);
    assert_eq!(form["client_assertion"], fake_sign("m2m", AS));
    assert_eq!(form["scope"], "mcp:basic");
    assert_eq!(form["resource"], MCP);
    assert!(!form.contains_key("client_secret"), "{form:?}");
    let request = script.request_to(&format!("{AS}/token"));
    assert_eq!(request.header("authorization"), None);
    assert!(!String::from_utf8_lossy(request.body.as_deref().unwrap()).contains("s3cret"));
}

#[test]
fn the_audience_is_the_issuer_the_metadata_declares() {
    let mut script = Script::new();
    script.standard(json!({"issuer": "https://auth.example/"}));
    // Named with its trailing `/` by the resource too: the metadata is that issuer's own.
    script.answer(
        PATH_PRM,
        200,
        json!({"resource": MCP, "authorization_servers": ["https://auth.example/"]}),
    );
    let config = m2m_config(jwt_client(None, Some("private_key_jwt")));
    script.run(config, None).unwrap();
    assert_eq!(
        script.signed,
        vec![("m2m".to_owned(), "https://auth.example/".to_owned())]
    );
}

#[test]
fn a_host_with_a_key_uses_it_when_the_server_accepts_nothing_else() {
    let only_jwt = json!({"token_endpoint_auth_methods_supported": ["private_key_jwt"]});
    let mut config = m2m_config(jwt_client(None, None));
    config.can_sign_assertions = true;
    let mut script = Script::new();
    script.standard(only_jwt.clone());
    script.run(config.clone(), None).unwrap();
    assert_eq!(script.signed.len(), 1);
    assert_eq!(script.token_form()["client_assertion_type"], JWT_BEARER);

    // The server also takes a secret, and the client has one: no signing.
    let mut script = Script::new();
    script.standard(json!({
        "token_endpoint_auth_methods_supported": ["private_key_jwt", "client_secret_post"]
    }));
    let mut with_secret = m2m_config(jwt_client(Some("s"), None));
    with_secret.can_sign_assertions = true;
    script.run(with_secret, None).unwrap();
    assert!(script.signed.is_empty());
    assert_eq!(script.token_form()["client_secret"], "s");

    // Without a key the host cannot sign, and without a secret there is nothing to send.
    config.can_sign_assertions = false;
    let mut script = Script::new();
    script.standard(only_jwt);
    let error = script.run(config, None).unwrap_err();
    assert!(
        error.contains("needs a configured client id and secret"),
        "{error}"
    );
    assert!(script.signed.is_empty());
}

#[test]
fn a_refresh_is_signed_too_and_read_as_a_refresh() {
    let mut config = config();
    config.client = Some(jwt_client(None, Some("private_key_jwt")));
    config.refresh_token = Some("old-refresh".into());
    let mut script = Script::new();
    script.standard(json!({}));
    script.answer(
        &format!("{AS}/token"),
        200,
        json!({"access_token": "renewed"}),
    );
    let token = script.run(config, None).unwrap();
    assert_eq!(token.access_token, "renewed");
    assert!(script.visited.is_empty(), "no user step");
    let form = script.token_form();
    assert_eq!(form["grant_type"], "refresh_token");
    assert_eq!(form["client_assertion"], fake_sign("m2m", AS));
}

/// Drives a `private_key_jwt` client-credentials flow up to its `SignAssertion` step.
fn flow_at_signing() -> OAuthFlow {
    let mut script = Script::new();
    script.standard(json!({}));
    let config = m2m_config(jwt_client(None, Some("private_key_jwt")));
    let mut flow = OAuthFlow::new(config, None, random());
    let mut step = flow.start();
    while let OAuthStep::Request(request) = &step {
        let (status, body) = script
            .answers
            .get(&request.url)
            .cloned()
            .unwrap_or((404, Vec::new()));
        step = flow.handle_response(status, &[], &body);
    }
    assert_eq!(
        step,
        OAuthStep::SignAssertion {
            client_id: "m2m".into(),
            audience: AS.into()
        }
    );
    flow
}

#[test]
fn a_missing_or_empty_assertion_fails_clearly() {
    // An HTTP answer instead of the assertion.
    let mut flow = flow_at_signing();
    let OAuthStep::Failed(error) = flow.handle_response(200, &[], b"{}") else {
        panic!("an HTTP answer is no assertion");
    };
    assert!(
        error.contains("waiting for a signed client assertion"),
        "{error}"
    );

    for empty in ["", "  \n"] {
        let mut flow = flow_at_signing();
        let OAuthStep::Failed(error) = flow.handle_assertion(empty) else {
            panic!("an empty assertion is refused");
        };
        assert!(error.contains("client assertion"), "{error}");
        assert!(error.contains("is empty"), "{error}");
        assert!(error.contains(&format!("{AS}/token")), "{error}");
        // The flow is over: a second try is refused too.
        assert!(matches!(
            flow.handle_assertion("a.b.c"),
            OAuthStep::Failed(_)
        ));
    }

    let mut flow = flow_at_signing();
    let OAuthStep::Failed(error) = flow.handle_assertion("not a jwt") else {
        panic!("a non-JWT is refused");
    };
    assert!(error.contains("not a compact JWT"), "{error}");

    // An assertion nobody asked for.
    let mut flow = OAuthFlow::new(config(), None, random());
    let OAuthStep::Failed(error) = flow.handle_assertion("a.b.c") else {
        panic!("no assertion was asked for");
    };
    assert!(error.contains("expected no client assertion"), "{error}");
}
