//! Hostile and broken servers: every request answered with a random status and a random body
//! (garbage, wrong types, truncated or plausible metadata), every redirect random, for every
//! kind of configuration. The flow must always end, in `Done` or in `Failed` with a message,
//! and never panic.

use super::harness::{config, random, REDIRECT};
use crate::mcp::oauth::encoding::base64url;
use crate::mcp::oauth::{EnterpriseGrant, OAuthClient, OAuthConfig, OAuthFlow, OAuthStep};
use crate::test_rng::Rng;
use serde_json::json;

const RUNS: usize = 10_000;
/// The URL metadata points to: a real-looking endpoint the script answers like any other.
const ELSEWHERE: &str = "https://auth.example/x";
/// No flow takes this many steps: discovery tries a handful of URLs, then a few grants.
const MAX_STEPS: usize = 40;

/// The configurations a host can give, one per kind of grant.
fn configs() -> Vec<OAuthConfig> {
    let client = OAuthClient {
        client_id: "c".into(),
        client_secret: Some("s".into()),
        auth_method: None,
    };
    let mut pre_registered = config();
    pre_registered.client = Some(client.clone());
    pre_registered.refresh_token = Some("rt".into());
    let mut machine = pre_registered.clone();
    machine.client_credentials = true;
    let mut jwt = config();
    jwt.client = Some(OAuthClient {
        auth_method: Some("private_key_jwt".into()),
        ..client.clone()
    });
    jwt.can_sign_assertions = true;
    let mut dpop = pre_registered.clone();
    dpop.dpop = true;
    let mut metadata_document = config();
    metadata_document.client_metadata_url = Some("https://app.example/client.json".into());
    let mut enterprise = config();
    enterprise.client = Some(client);
    enterprise.enterprise = Some(EnterpriseGrant {
        idp_issuer: Some("https://idp.example".into()),
        idp_token_endpoint: None,
        id_token: None,
        idp_client_id: "app".into(),
        idp_client_secret: None,
    });
    vec![
        config(),
        pre_registered,
        machine,
        jwt,
        metadata_document,
        enterprise,
        dpop,
    ]
}

/// Bodies a broken or hostile server might send.
fn bodies() -> Vec<Vec<u8>> {
    let url = || json!(ELSEWHERE);
    let jwt =
        |claims: serde_json::Value| format!("h.{}.s", base64url(claims.to_string().as_bytes()));
    vec![
        b"".to_vec(),
        b"not json at all".to_vec(),
        vec![0xff, 0xfe, 0x00, b'{'],
        b"{\"truncated\": ".to_vec(),
        b"[]".to_vec(),
        b"null".to_vec(),
        b"42".to_vec(),
        json!({}).to_string().into_bytes(),
        json!({"resource": 7, "authorization_servers": "nope"}).to_string().into_bytes(),
        json!({"resource": "https://mcp.example/mcp", "authorization_servers": [url()]})
            .to_string()
            .into_bytes(),
        json!({"issuer": url(), "authorization_endpoint": url(), "token_endpoint": url(),
            "registration_endpoint": url(), "scopes_supported": ["a", 1, null],
            "token_endpoint_auth_methods_supported": "private_key_jwt",
            "client_id_metadata_document_supported": "yes"})
        .to_string()
        .into_bytes(),
        json!({"issuer": "https://idp.example", "authorization_endpoint": url(),
            "token_endpoint": url()})
        .to_string()
        .into_bytes(),
        json!({"client_id": ["x"], "client_secret": 3}).to_string().into_bytes(),
        json!({"client_id": "dyn", "token_endpoint_auth_method": "weird"}).to_string().into_bytes(),
        json!({"access_token": "t", "token_type": "MAC"}).to_string().into_bytes(),
        json!({"issuer": url(), "authorization_endpoint": url(), "token_endpoint": url(),
            "dpop_signing_alg_values_supported": ["ES256"]})
        .to_string()
        .into_bytes(),
        json!({"error": "use_dpop_nonce"}).to_string().into_bytes(),
        json!({"access_token": "t", "token_type": "DPoP"}).to_string().into_bytes(),
        json!({"access_token": "t", "token_type": "Bearer", "expires_in": -5,
            "refresh_token": {}})
        .to_string()
        .into_bytes(),
        json!({"access_token": 5, "issued_token_type": []}).to_string().into_bytes(),
        json!({"access_token": "jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})
            .to_string()
            .into_bytes(),
        json!({"id_token": "a.%%%.b"}).to_string().into_bytes(),
        json!({"id_token": jwt(json!({"iss": "https://idp.example", "aud": "app",
            "nonce": base64url(&random().nonce)}))})
        .to_string()
        .into_bytes(),
        json!({"id_token": jwt(json!({"aud": {"nested": true}, "nonce": 1}))})
            .to_string()
            .into_bytes(),
        json!({"error": "invalid_grant", "error_description": "x".repeat(10_000)})
            .to_string()
            .into_bytes(),
        "é".repeat(300).into_bytes(),
    ]
}

/// Where a random "user agent" says the authorization server sent it.
fn redirect(rng: &mut Rng, state: Option<String>) -> String {
    let state = state.unwrap_or_default();
    let choices = [
        format!("{REDIRECT}?code=c&state={state}"),
        format!("{REDIRECT}?code=c&state=wrong"),
        format!("{REDIRECT}?state={state}"),
        format!("{REDIRECT}?error=access_denied&error_description=%ZZ"),
        "not a url".to_owned(),
        String::new(),
        format!("{REDIRECT}?code=%FF%FE&state={state}"),
    ];
    choices[rng.below(choices.len())].clone()
}

#[test]
fn random_answers_always_end_the_flow_with_done_or_a_named_failure() {
    let configs = configs();
    let bodies = bodies();
    let statuses = [200, 200, 200, 201, 204, 302, 400, 401, 403, 404, 500];
    let mut rng = Rng(0x5eed_c4a0_5eed_c4a0);
    let (mut done, mut failed) = (0, 0);
    for run in 0..RUNS {
        let config = rng.pick(&configs).clone();
        let challenge = match rng.below(3) {
            0 => None,
            1 => Some(r#"Bearer resource_metadata="https://mcp.example/prm", scope="a b""#),
            _ => Some("Bearer ,,,=\"unterminated"),
        };
        let mut flow = OAuthFlow::new(config, challenge, random());
        let mut step = flow.start();
        let mut steps = 0;
        loop {
            steps += 1;
            assert!(steps <= MAX_STEPS, "run {run}: the flow did not end");
            step = match step {
                OAuthStep::Request(_) | OAuthStep::ProofRequest { .. } => {
                    let status = *rng.pick(&statuses);
                    let body: &Vec<u8> = rng.pick(&bodies);
                    // Now and then a nonce, as a DPoP server would hand one.
                    let headers = match rng.below(4) {
                        0 => vec![("DPoP-Nonce".to_owned(), "n".to_owned())],
                        _ => Vec::new(),
                    };
                    flow.handle_response(status, &headers, body)
                }
                OAuthStep::Authorize { url } => {
                    let state = crate::mcp::oauth::SplitUrl::parse(&url)
                        .and_then(|u| u.query_param("state"));
                    flow.handle_redirect(&redirect(&mut rng, state))
                }
                OAuthStep::SignAssertion { .. } => {
                    flow.handle_assertion(if rng.below(2) == 0 { "a.b.c" } else { "" })
                }
                OAuthStep::Done(_) => {
                    done += 1;
                    break;
                }
                OAuthStep::Failed(message) => {
                    assert!(!message.is_empty(), "run {run}: a failure says why");
                    failed += 1;
                    break;
                }
            };
        }
    }
    // Both outcomes were reached, so the answers were not all rejected at the first step.
    assert!(done > 0 && failed > 0, "done {done}, failed {failed}");
}
