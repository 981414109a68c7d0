//! The token endpoint: authorization code, client credentials and refresh grants, with the
//! client's authentication (`none`, `client_secret_post`, `client_secret_basic`, and
//! `private_key_jwt` with an assertion the host signs).

use super::dpop::DPOP_SCHEME;
use super::encoding::{base64_standard, form_encode, percent_encode};
use super::enterprise::JWT_BEARER_GRANT;
use super::flow::{OAuthFlow, Phase};
use super::types::{OAuthClient, OAuthStep, OAuthToken};
use crate::json::quoted;
use crate::mcp::http::HttpMethod;
use serde_json::Value;

impl OAuthFlow {
    pub(super) fn token_request(&mut self, code: &str) -> OAuthStep {
        let grant = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code.to_owned()),
            ("redirect_uri".to_owned(), self.config.redirect_uri.clone()),
            ("code_verifier".to_owned(), self.verifier.clone()),
            ("resource".to_owned(), self.resource.clone()),
        ];
        self.post_token(grant, Phase::Token)
    }

    pub(super) fn client_credentials_request(&mut self) -> OAuthStep {
        let mut grant = vec![
            ("grant_type".to_owned(), "client_credentials".to_owned()),
            ("resource".to_owned(), self.resource.clone()),
        ];
        if let Some(scope) = &self.scope {
            grant.push(("scope".to_owned(), scope.clone()));
        }
        self.post_token(grant, Phase::Token)
    }

    /// The workload's identity token as an RFC 7523 JWT bearer grant (SEP-1933). A configured
    /// client authenticates as usual; without one, the assertion alone identifies the
    /// workload (RFC 7523 §3.1 makes client authentication optional).
    pub(super) fn workload_request(&mut self, assertion: String) -> OAuthStep {
        let mut grant = vec![
            ("grant_type".to_owned(), JWT_BEARER_GRANT.to_owned()),
            ("assertion".to_owned(), assertion),
            ("resource".to_owned(), self.resource.clone()),
        ];
        if let Some(scope) = &self.scope {
            grant.push(("scope".to_owned(), scope.clone()));
        }
        if self.client.is_none() {
            return self.send_token_request(grant, form_headers(), Phase::Token);
        }
        self.post_token(grant, Phase::Token)
    }

    /// How `client` authenticates at the token endpoint: as configured, else `private_key_jwt`
    /// when the host can sign and the server accepts nothing else, else by preference among
    /// the server's methods.
    pub(super) fn token_auth_method(&self, client: &OAuthClient) -> String {
        if let Some(method) = &client.auth_method {
            return method.clone();
        }
        let only_jwt = self
            .server
            .auth_methods
            .as_ref()
            .is_some_and(|m| !m.is_empty() && m.iter().all(|m| m == PRIVATE_KEY_JWT));
        if self.config.can_sign_assertions && only_jwt {
            return PRIVATE_KEY_JWT.into();
        }
        match &client.client_secret {
            None => "none".into(),
            Some(_) => self
                .preferred_method(false)
                .filter(|m| m != "none")
                .unwrap_or_else(|| "client_secret_basic".into()),
        }
    }

    /// `POST`s `grant` to the token endpoint with the client's authentication, and reads the
    /// answer in phase `then`. With `private_key_jwt` the host signs an assertion first.
    pub(super) fn post_token(
        &mut self,
        mut params: Vec<(String, String)>,
        then: Phase,
    ) -> OAuthStep {
        let client = self.client.clone().unwrap_or(OAuthClient {
            client_id: String::new(),
            client_secret: None,
            auth_method: None,
        });
        let method = self.token_auth_method(&client);
        let secret = client.client_secret.clone().unwrap_or_default();
        let mut headers = form_headers();
        match method.as_str() {
            "client_secret_basic" => headers.push(basic_authorization(&client.client_id, &secret)),
            "client_secret_post" => {
                params.push(("client_id".to_owned(), client.client_id.clone()));
                params.push(("client_secret".to_owned(), secret));
            }
            PRIVATE_KEY_JWT => {
                if client.client_id.is_empty() {
                    return self.fail(format!(
                        "private_key_jwt at the token endpoint {} needs a configured client id",
                        self.server.token_endpoint
                    ));
                }
                // The secret is never sent: the signed assertion replaces it (RFC 7523 §2.2).
                self.unsigned = Some((params, then));
                self.phase = Phase::Signing;
                return OAuthStep::SignAssertion {
                    client_id: client.client_id,
                    audience: self.server_issuer(),
                };
            }
            _ => params.push(("client_id".to_owned(), client.client_id.clone())),
        }
        self.send_token_request(params, headers, then)
    }

    /// Completes the token request held back by `private_key_jwt` with the host's `assertion`.
    pub(super) fn on_assertion(&mut self, assertion: &str) -> OAuthStep {
        let endpoint = self.server.token_endpoint.clone();
        let Some((mut params, then)) = self.unsigned.take() else {
            return self.fail("the OAuth flow expected no client assertion now".into());
        };
        let assertion = assertion.trim();
        if assertion.is_empty() {
            return self.fail(format!(
                "the client assertion for the token endpoint {endpoint} is empty: \
                 the host signed nothing"
            ));
        }
        // A JWS in compact serialization: header, claims and signature, dot-separated.
        if assertion.split('.').count() != 3 || assertion.contains(char::is_whitespace) {
            return self.fail(format!(
                "the client assertion for the token endpoint {endpoint} is not a compact JWT \
                 (three base64url parts separated by dots)"
            ));
        }
        params.push(("client_assertion_type".to_owned(), JWT_BEARER.to_owned()));
        params.push(("client_assertion".to_owned(), assertion.to_owned()));
        self.send_token_request(params, form_headers(), then)
    }

    /// The authorization server's issuer: as its metadata declares it, else the URL it was
    /// discovered at. Client assertions and identity assertion grants are addressed to it.
    pub(super) fn server_issuer(&self) -> String {
        self.server
            .issuer
            .clone()
            .unwrap_or_else(|| self.issuer.clone())
    }

    fn send_token_request(
        &mut self,
        params: Vec<(String, String)>,
        headers: Vec<(String, String)>,
        then: Phase,
    ) -> OAuthStep {
        let pairs: Vec<(&str, &str)> = params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let body = form_encode(&pairs).into_bytes();
        self.phase = then;
        self.current = self.server.token_endpoint.clone();
        let url = self.current.clone();
        let step = self.request(HttpMethod::Post, url, headers, Some(body));
        self.with_proof(step)
    }

    /// A refused refresh is no failure: the user authorizes anew.
    pub(super) fn on_refresh(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
        let fresh = json
            .as_ref()
            .and_then(|j| j.get("access_token"))
            .is_some_and(Value::is_string);
        if status == 200 && fresh {
            return self.on_token(status, json, &[]);
        }
        self.choose_client()
    }

    pub(super) fn on_token(&mut self, status: u16, json: Option<Value>, body: &[u8]) -> OAuthStep {
        let json = json.unwrap_or_default();
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        let token_type = text("token_type").unwrap_or_else(|| "Bearer".into());
        // A DPoP-bound token only answers a request that carried a proof.
        let dpop = self.proof_request.is_some() && token_type.eq_ignore_ascii_case(DPOP_SCHEME);
        match text("access_token") {
            Some(access_token)
                if status == 200 && (dpop || token_type.eq_ignore_ascii_case("bearer")) =>
            {
                self.phase = Phase::Finished;
                OAuthStep::Done(OAuthToken {
                    access_token,
                    refresh_token: text("refresh_token"),
                    expires_in: json.get("expires_in").and_then(Value::as_u64),
                    scope: text("scope").or_else(|| self.scope.clone()),
                    client: self.client.clone().unwrap_or(OAuthClient {
                        client_id: String::new(),
                        client_secret: None,
                        auth_method: None,
                    }),
                    client_registered: self.client_registered,
                    issuer: self.server_issuer(),
                    dpop,
                })
            }
            Some(_) if status == 200 => self.fail(format!(
                "the token endpoint {} issued a {token_type} token; only Bearer (and DPoP, after a proof) is supported",
                self.current,
                token_type = quoted(&token_type)
            )),
            _ => self.fail(format!(
                "the token endpoint {} refused: {}",
                self.current,
                describe_answer(status, body)
            )),
        }
    }
}

/// The token endpoint authentication method with a signed JWT (RFC 7523 §2.2).
pub(super) const PRIVATE_KEY_JWT: &str = "private_key_jwt";

/// The `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// HTTP Basic client authentication (RFC 6749 §2.3.1): both parts are form-encoded before
/// base64, so a `:` in the id or the secret survives.
pub(super) fn basic_authorization(client_id: &str, secret: &str) -> (String, String) {
    let pair = format!("{}:{}", percent_encode(client_id), percent_encode(secret));
    let value = format!("Basic {}", base64_standard(pair.as_bytes()));
    ("Authorization".to_owned(), value)
}

/// The headers of a form `POST` expecting JSON.
pub(super) fn form_headers() -> Vec<(String, String)> {
    vec![
        (
            "Content-Type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        ),
        ("Accept".to_owned(), "application/json".to_owned()),
    ]
}

/// `HTTP 400: invalid_client (bad secret)` from an OAuth error answer; never echoes tokens
/// because only the `error` fields (or a short non-JSON excerpt) are quoted.
pub(super) fn describe_answer(status: u16, body: &[u8]) -> String {
    let json = serde_json::from_slice::<Value>(body).unwrap_or_default();
    match json.get("error").and_then(Value::as_str) {
        Some(error) => {
            let detail = json
                .get("error_description")
                .and_then(Value::as_str)
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            format!("HTTP {status}: {error}{detail}")
        }
        None if json.is_object() => format!("HTTP {status} without a usable answer"),
        None => {
            let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
            format!("HTTP {status}: {}", text.trim())
        }
    }
}
