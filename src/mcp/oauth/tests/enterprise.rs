//! Cross-app access: the identity provider's token exchange, then the JWT bearer grant.

use super::harness::*;
use crate::mcp::oauth::encoding::{base64_standard, base64url};
use crate::mcp::oauth::{EnterpriseGrant, OAuthClient, OAuthConfig};
use serde_json::json;

const IDP_TOKEN: &str = "https://idp.example/oauth2/token";
const ID_TOKEN: &str = "eyJ.the-users-id-token.sig";
const JAG: &str = "eyJ.an-id-jag.sig";

/// A configured client at the authorization server, and the identity provider's side.
fn enterprise_config(idp_client_secret: Option<&str>) -> OAuthConfig {
    let mut config = config();
    config.client = Some(OAuthClient {
        client_id: "notes-app".into(),
        client_secret: Some("as-secret".into()),
        auth_method: None,
    });
    config.enterprise = Some(EnterpriseGrant {
        idp_issuer: None,
        idp_token_endpoint: Some(IDP_TOKEN.into()),
        id_token: Some(ID_TOKEN.into()),
        idp_client_id: "notes-at-idp".into(),
        idp_client_secret: idp_client_secret.map(str::to_owned),
    });
    config
}

/// The standard servers, the authorization server taking Basic, and an identity provider that
/// issues an ID-JAG.
fn enterprise_script() -> Script {
    let mut script = Script::new();
    script.standard(json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}));
    script.answer(
        IDP_TOKEN,
        200,
        json!({
            "access_token": JAG,
            "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "token_type": "N_A",
        }),
    );
    script
}

#[test]
fn the_id_token_becomes_an_id_jag_then_an_access_token_without_a_browser() {
    let mut script = enterprise_script();
    let token = script
        .run(
            enterprise_config(None),
            Some(r#"Bearer scope="notes:read""#),
        )
        .unwrap();
    assert_eq!(token.access_token, "tok");
    assert_eq!(token.client.client_id, "notes-app");
    assert!(script.visited.is_empty(), "no browser step");
    let urls = script.urls();
    assert!(!urls.contains(&format!("{AS}/register")), "{urls:?}");
    let idp_at = urls.iter().position(|u| u == IDP_TOKEN).expect("exchange");
    let as_at = urls.iter().position(|u| *u == format!("{AS}/token"));
    assert_eq!(as_at, Some(idp_at + 1), "the grant follows the exchange");

    let exchange = script.form_at(IDP_TOKEN);
    assert_eq!(
        exchange["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(
        exchange["requested_token_type"],
        "urn:ietf:params:oauth:token-type:id-jag"
    );
    assert_eq!(exchange["subject_token"], ID_TOKEN);
    assert_eq!(
        exchange["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(exchange["audience"], AS, "the ID-JAG is for the AS");
    assert_eq!(exchange["resource"], MCP, "and names the MCP server");
    assert_eq!(exchange["scope"], "notes:read");
    assert_eq!(exchange["client_id"], "notes-at-idp", "a public IdP client");
    assert_eq!(script.request_to(IDP_TOKEN).header("authorization"), None);

    let grant = script.token_form();
    assert_eq!(
        grant["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(grant["assertion"], JAG);
    assert_eq!(grant["scope"], "notes:read");
    assert!(
        !grant.contains_key("subject_token"),
        "the ID token stays at the IdP"
    );
    let basic = format!("Basic {}", base64_standard(b"notes-app:as-secret"));
    assert_eq!(
        script
            .request_to(&format!("{AS}/token"))
            .header("authorization"),
        Some(basic.as_str())
    );
}

#[test]
fn a_confidential_idp_client_authenticates_with_basic() {
    let mut script = enterprise_script();
    script
        .run(enterprise_config(Some("idp:secret")), None)
        .unwrap();
    let exchange = script.form_at(IDP_TOKEN);
    assert!(!exchange.contains_key("client_id"), "{exchange:?}");
    assert!(!exchange.contains_key("client_secret"), "{exchange:?}");
    assert!(
        !exchange.contains_key("scope"),
        "no scope anywhere: none asked"
    );
    // The `:` in the secret is form-encoded before base64 (RFC 6749 §2.3.1).
    let basic = format!("Basic {}", base64_standard(b"notes-at-idp:idp%3Asecret"));
    assert_eq!(
        script.request_to(IDP_TOKEN).header("authorization"),
        Some(basic.as_str())
    );
}

#[test]
fn failures_name_the_identity_provider_or_the_authorization_server() {
    let mut refused = enterprise_script();
    refused.answer(
        IDP_TOKEN,
        400,
        json!({"error": "invalid_grant", "error_description": "ID token expired"}),
    );
    let error = refused.run(enterprise_config(None), None).unwrap_err();
    assert!(
        error.contains(IDP_TOKEN) && error.contains("invalid_grant (ID token expired)"),
        "{error}"
    );
    assert!(
        !error.contains(ID_TOKEN),
        "the ID token is never echoed: {error}"
    );
    assert!(!refused.urls().contains(&format!("{AS}/token")));

    let mut wrong_type = enterprise_script();
    wrong_type.answer(
        IDP_TOKEN,
        200,
        json!({"access_token": "at", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}),
    );
    let error = wrong_type.run(enterprise_config(None), None).unwrap_err();
    assert!(
        error.contains(IDP_TOKEN) && error.contains("not an identity assertion grant"),
        "{error}"
    );

    let mut as_refuses = enterprise_script();
    as_refuses.answer(
        &format!("{AS}/token"),
        400,
        json!({"error": "invalid_grant", "error_description": "audience mismatch"}),
    );
    let error = as_refuses.run(enterprise_config(None), None).unwrap_err();
    assert!(
        error.contains(&format!("{AS}/token")) && error.contains("audience mismatch"),
        "{error}"
    );

    let mut no_client = enterprise_script();
    let mut config = enterprise_config(None);
    config.client = None;
    let error = no_client.run(config, None).unwrap_err();
    assert!(
        error.contains("cross-app access needs a client id registered at the authorization server https://auth.example"),
        "{error}"
    );
    assert!(!no_client.urls().contains(&IDP_TOKEN.to_owned()));
}

#[test]
fn a_missing_issued_token_type_is_accepted() {
    let mut script = enterprise_script();
    script.answer(IDP_TOKEN, 200, json!({"access_token": JAG}));
    script.run(enterprise_config(None), None).unwrap();
    assert_eq!(script.token_form()["assertion"], JAG);
}

#[test]
fn the_id_token_and_secrets_stay_out_of_debug_output() {
    let shown = format!("{:?}", enterprise_config(Some("idp-secret-value")));
    assert!(!shown.contains("the-users-id-token"), "{shown}");
    assert!(!shown.contains("idp-secret-value"), "{shown}");
    assert!(shown.contains(IDP_TOKEN), "{shown}");
}

// ----- signing in at the identity provider -----

const IDP: &str = "https://idp.example";
const IDP_DISCOVERY: &str = "https://idp.example/.well-known/openid-configuration";
const IDP_AUTHORIZE: &str = "https://idp.example/oauth2/authorize";
const CODE_GRANT: &str = "authorization_code";
const EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// A JWT-shaped token with these claims (the flow never checks a signature).
fn jwt(claims: serde_json::Value) -> String {
    let header = base64url(br#"{"alg":"RS256","typ":"JWT"}"#);
    format!("{header}.{}.c2ln", base64url(claims.to_string().as_bytes()))
}

/// The sign-in's nonce: the harness's nonce bytes, base64url.
fn nonce() -> String {
    base64url(&random().nonce)
}

/// An ID token as the identity provider issues it for this sign-in.
fn good_id_token() -> String {
    jwt(json!({"iss": IDP, "aud": ["agentwire", "other"], "sub": "ada", "nonce": nonce()}))
}

/// Cross-app access configured with the issuer alone: discovery, then signing in.
fn sign_in_config() -> OAuthConfig {
    let mut config = enterprise_config(None);
    config.enterprise = Some(EnterpriseGrant {
        idp_issuer: Some(format!("{IDP}/")),
        idp_token_endpoint: None,
        id_token: None,
        idp_client_id: "agentwire".into(),
        idp_client_secret: None,
    });
    config
}

/// The standard servers, and an identity provider with discovery, sign-in and exchange.
fn sign_in_script(id_token: String) -> Script {
    let mut script = enterprise_script();
    script.answer(
        IDP_DISCOVERY,
        200,
        json!({"issuer": IDP, "authorization_endpoint": IDP_AUTHORIZE,
            "token_endpoint": IDP_TOKEN}),
    );
    script.answer_grant(
        IDP_TOKEN,
        CODE_GRANT,
        200,
        json!({"id_token": id_token, "access_token": "idp-at", "token_type": "Bearer"}),
    );
    script.answer_grant(
        IDP_TOKEN,
        EXCHANGE_GRANT,
        200,
        json!({"access_token": JAG,
            "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"}),
    );
    script
}

#[test]
fn without_an_id_token_the_user_signs_in_at_the_identity_provider_first() {
    let mut script = sign_in_script(good_id_token());
    let token = script
        .run(sign_in_config(), Some(r#"Bearer scope="notes:read""#))
        .unwrap();
    assert_eq!(token.access_token, "tok");
    assert_eq!(script.visited.len(), 1, "one browser step: the sign-in");
    assert!(
        script.visited[0].starts_with(IDP_AUTHORIZE),
        "{:?}",
        script.visited
    );
    assert_eq!(script.authorize_param("scope").as_deref(), Some("openid"));
    assert_eq!(script.authorize_param("nonce"), Some(nonce()));
    assert_eq!(
        script.authorize_param("client_id").as_deref(),
        Some("agentwire")
    );
    assert_eq!(
        script.authorize_param("redirect_uri").as_deref(),
        Some(REDIRECT)
    );
    assert_eq!(
        script.authorize_param("code_challenge_method").as_deref(),
        Some("S256")
    );
    assert_eq!(
        script.urls(),
        [
            PATH_PRM.to_owned(),
            format!("{AS}/.well-known/oauth-authorization-server"),
            IDP_DISCOVERY.to_owned(),
            IDP_TOKEN.to_owned(),
            IDP_TOKEN.to_owned(),
            format!("{AS}/token"),
        ]
    );
    let code = form_of(&script.requests[3]);
    assert_eq!(code["grant_type"], CODE_GRANT);
    assert_eq!(code["code"], "the-code");
    assert_eq!(code["client_id"], "agentwire");
    assert!(code.contains_key("code_verifier"));
    let exchange = form_of(&script.requests[4]);
    assert_eq!(exchange["grant_type"], EXCHANGE_GRANT);
    assert_eq!(exchange["subject_token"], good_id_token());
    assert_eq!(exchange["audience"], AS);
    assert_eq!(script.token_form()["assertion"], JAG);
}

#[test]
fn a_configured_id_token_with_the_issuer_skips_the_sign_in() {
    let mut script = sign_in_script(good_id_token());
    let mut config = sign_in_config();
    if let Some(grant) = config.enterprise.as_mut() {
        grant.id_token = Some(ID_TOKEN.into());
    }
    script.run(config, None).unwrap();
    assert!(script.visited.is_empty(), "no browser step");
    assert_eq!(script.form_at(IDP_TOKEN)["subject_token"], ID_TOKEN);
}

#[test]
fn an_id_token_for_someone_else_is_refused_before_any_exchange() {
    for (claims, problem) in [
        (
            json!({"iss": "https://evil.example", "aud": "agentwire", "nonce": nonce()}),
            "was issued by \"https://evil.example\"",
        ),
        (
            json!({"iss": IDP, "aud": "another-app", "nonce": nonce()}),
            "is not for client \"agentwire\"",
        ),
        (
            json!({"iss": IDP, "aud": "agentwire", "nonce": "replayed"}),
            "carries another sign-in's nonce",
        ),
    ] {
        let mut script = sign_in_script(jwt(claims));
        let error = script.run(sign_in_config(), None).unwrap_err();
        assert!(
            error.contains(&format!(
                "the ID token from {IDP_TOKEN} {problem}: refusing it"
            )),
            "{error}"
        );
        assert_eq!(script.urls().iter().filter(|u| *u == IDP_TOKEN).count(), 1);
    }
    let mut garbage = sign_in_script("not-a-jwt".into());
    let error = garbage.run(sign_in_config(), None).unwrap_err();
    assert!(error.contains("is not a JWT"), "{error}");
}

#[test]
fn identity_provider_failures_name_it() {
    let mut missing = sign_in_script(good_id_token());
    missing.answers.remove(IDP_DISCOVERY);
    let error = missing.run(sign_in_config(), None).unwrap_err();
    assert!(
        error.contains(&format!(
            "discovery document {IDP_DISCOVERY} could not be read (HTTP 404)"
        )),
        "{error}"
    );

    let mut impostor = sign_in_script(good_id_token());
    impostor.answer(
        IDP_DISCOVERY,
        200,
        json!({"issuer": "https://evil.example", "authorization_endpoint": IDP_AUTHORIZE,
            "token_endpoint": IDP_TOKEN}),
    );
    let error = impostor.run(sign_in_config(), None).unwrap_err();
    assert!(
        error.contains("is for issuer \"https://evil.example\", not \"https://idp.example/\""),
        "{error}"
    );
    assert!(impostor.visited.is_empty(), "no sign-in at an impostor");

    let mut declined = sign_in_script(good_id_token());
    declined.redirect = |_| format!("{REDIRECT}?error=access_denied&state=x");
    let error = declined.run(sign_in_config(), None).unwrap_err();
    assert!(
        error.contains(IDP_AUTHORIZE) && error.contains("access_denied"),
        "{error}"
    );

    let mut no_token = sign_in_script(good_id_token());
    no_token.answer_grant(
        IDP_TOKEN,
        CODE_GRANT,
        400,
        json!({"error": "invalid_grant", "error_description": "code expired"}),
    );
    let error = no_token.run(sign_in_config(), None).unwrap_err();
    assert!(
        error.contains(&format!(
            "{IDP_TOKEN} gave no ID token: HTTP 400: invalid_grant (code expired)"
        )),
        "{error}"
    );
}

#[test]
fn a_sign_in_response_from_another_issuer_is_refused_before_its_code_is_used() {
    // RFC 9207 at the identity provider too: a wrong `iss`, or none where promised.
    let evil = |url: &str| format!("{}&iss=https%3A%2F%2Fevil.example", approve(url));
    for (promised, redirect) in [(false, evil as fn(&str) -> String), (true, approve)] {
        let mut script = sign_in_script(good_id_token());
        script.answer(
            IDP_DISCOVERY,
            200,
            json!({"issuer": IDP, "authorization_endpoint": IDP_AUTHORIZE,
                "token_endpoint": IDP_TOKEN,
                "authorization_response_iss_parameter_supported": promised}),
        );
        script.redirect = redirect;
        let error = script
            .run(sign_in_config(), Some(r#"Bearer scope="notes:read""#))
            .unwrap_err();
        assert!(error.contains(IDP_AUTHORIZE), "{error}");
        assert!(error.contains("RFC 9207"), "{error}");
        assert!(!script.urls().contains(&IDP_TOKEN.to_owned()), "{error}");
    }
    // The right issuer is accepted.
    let mut script = sign_in_script(good_id_token());
    script.redirect = |url| format!("{}&iss=https%3A%2F%2Fidp.example", approve(url));
    script
        .run(sign_in_config(), Some(r#"Bearer scope="notes:read""#))
        .unwrap();
}
