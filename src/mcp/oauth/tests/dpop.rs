//! DPoP (RFC 9449): token requests with proofs where the authorization server takes ES256
//! proofs and the host can sign them, the `use_dpop_nonce` retry, and bound tokens.

use super::harness::*;
use crate::mcp::oauth::{OAuthClient, OAuthConfig};
use serde_json::json;

const TAKES_ES256: &str = "dpop_signing_alg_values_supported";

fn dpop_config() -> OAuthConfig {
    let mut config = config();
    config.dpop = true;
    config
}

fn answer_token(script: &mut Script, token_type: &str) {
    script.answer(
        &format!("{AS}/token"),
        200,
        json!({"access_token": "tok", "token_type": token_type, "expires_in": 60}),
    );
}

fn nonce_answer(nonce: Option<&str>) -> ScriptedAnswer {
    let headers = nonce
        .map(|n| vec![("DPoP-Nonce".to_owned(), n.to_owned())])
        .unwrap_or_default();
    (400, headers, json!({"error": "use_dpop_nonce"}))
}

#[test]
fn a_server_taking_es256_proofs_gets_one_with_the_token_request_and_binds_the_token() {
    let mut script = Script::new();
    script.standard(json!({TAKES_ES256: ["RS256", "ES256"]}));
    answer_token(&mut script, "DPoP");
    let token = script.run(dpop_config(), None).unwrap();
    assert!(token.dpop, "{token:?}");
    assert_eq!(
        script.proofs,
        vec![None],
        "one proof, for the token request alone"
    );
    // Discovery and registration go without proofs; the token request is the last one.
    assert_eq!(script.urls().last().unwrap(), &format!("{AS}/token"));
    assert_eq!(script.token_form()["grant_type"], "authorization_code");
}

#[test]
fn without_es256_at_the_server_or_a_key_at_the_host_no_proof_is_asked_for() {
    for (metadata, dpop) in [
        (json!({TAKES_ES256: ["RS256"]}), true),
        (json!({TAKES_ES256: "ES256"}), true),
        (json!({}), true),
        (json!({TAKES_ES256: ["ES256"]}), false),
    ] {
        let mut script = Script::new();
        script.standard(metadata.clone());
        let mut config = config();
        config.dpop = dpop;
        let token = script.run(config.clone(), None).unwrap();
        assert!(script.proofs.is_empty(), "{metadata} {dpop}");
        assert!(!token.dpop);
        // A token that claims to be bound, to a request that proved nothing, is refused.
        let mut script = Script::new();
        script.standard(metadata.clone());
        answer_token(&mut script, "DPoP");
        let error = script.run(config, None).unwrap_err();
        assert!(error.contains("issued a \"DPoP\" token"), "{error}");
    }
}

#[test]
fn a_bearer_answer_to_a_proof_is_a_bearer_token() {
    let mut script = Script::new();
    script.standard(json!({TAKES_ES256: ["ES256"]}));
    let token = script.run(dpop_config(), None).unwrap();
    assert_eq!(script.proofs.len(), 1);
    assert!(!token.dpop, "the server bound nothing: {token:?}");
}

#[test]
fn use_dpop_nonce_is_retried_once_with_the_servers_nonce() {
    let mut script = Script::new();
    script.standard(json!({TAKES_ES256: ["ES256"]}));
    answer_token(&mut script, "DPoP");
    script.proof_answers.push_back(nonce_answer(Some("n-1")));
    let token = script.run(dpop_config(), None).unwrap();
    assert!(token.dpop);
    assert_eq!(script.proofs, vec![None, Some("n-1".to_owned())]);
    // The retry is the same request under a new id.
    let tokens: Vec<_> = script
        .requests
        .iter()
        .filter(|r| r.url == format!("{AS}/token"))
        .collect();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[0].body, tokens[1].body);
    assert_eq!(tokens[0].headers, tokens[1].headers);
    assert_ne!(tokens[0].id, tokens[1].id);
}

#[test]
fn a_second_use_dpop_nonce_or_one_without_a_nonce_is_a_refusal() {
    let mut script = Script::new();
    script.standard(json!({TAKES_ES256: ["ES256"]}));
    script.proof_answers.push_back(nonce_answer(Some("n-1")));
    script.proof_answers.push_back(nonce_answer(Some("n-2")));
    let error = script.run(dpop_config(), None).unwrap_err();
    assert!(
        error.contains("refused: HTTP 400: use_dpop_nonce"),
        "{error}"
    );
    assert_eq!(script.proofs, vec![None, Some("n-1".to_owned())]);

    let mut script = Script::new();
    script.standard(json!({TAKES_ES256: ["ES256"]}));
    script.proof_answers.push_back(nonce_answer(None));
    let error = script.run(dpop_config(), None).unwrap_err();
    assert!(error.contains("use_dpop_nonce"), "{error}");
    assert_eq!(script.proofs, vec![None]);

    // Another error at 400, or use_dpop_nonce at another status, is no nonce challenge.
    for (status, body) in [
        (400, json!({"error": "invalid_grant"})),
        (401, json!({"error": "use_dpop_nonce"})),
    ] {
        let mut script = Script::new();
        script.standard(json!({TAKES_ES256: ["ES256"]}));
        let nonce = vec![("DPoP-Nonce".to_owned(), "n".to_owned())];
        script.proof_answers.push_back((status, nonce, body));
        assert!(script.run(dpop_config(), None).is_err());
        assert_eq!(script.proofs, vec![None], "status {status}");
    }
}

#[test]
fn the_nonce_travels_on_in_later_proofs_and_a_refresh_carries_a_proof_too() {
    let mut script = Script::new();
    script.standard(json!({TAKES_ES256: ["ES256"]}));
    answer_token(&mut script, "DPoP");
    let mut config = dpop_config();
    config.client = Some(OAuthClient {
        client_id: "c".into(),
        client_secret: None,
        auth_method: None,
    });
    config.refresh_token = Some("rt".into());
    config.credentials_issuer = Some(AS.into());
    // The refresh is refused after its nonce retry: the flow authorizes anew, and that token
    // request's proof carries the nonce the server handed.
    script.proof_answers.push_back(nonce_answer(Some("n-1")));
    script
        .proof_answers
        .push_back((400, Vec::new(), json!({"error": "invalid_grant"})));
    let token = script.run(config, None).unwrap();
    assert!(token.dpop);
    assert_eq!(
        script.proofs,
        vec![None, Some("n-1".to_owned()), Some("n-1".to_owned())]
    );
    assert_eq!(script.token_form()["grant_type"], "authorization_code");
    // Every request, the retry and those after it included, has an id of its own.
    let mut ids: Vec<_> = script.requests.iter().map(|r| r.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), script.requests.len());
}
