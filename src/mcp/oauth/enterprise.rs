//! Enterprise-managed authorization, or cross-app access (SEP-990; IETF draft "Identity
//! Assertion JWT Authorization Grant"): no consent screen at the MCP server's authorization
//! server, because the enterprise's identity provider decides which apps may reach which
//! servers.
//!
//! Two token requests replace the authorization step:
//! 1. at the identity provider, an RFC 8693 token exchange: the user's ID token in, an
//!    identity assertion grant (ID-JAG, a JWT addressed to the MCP server's authorization
//!    server and naming the MCP server as its resource) out;
//! 2. at the MCP server's authorization server, an RFC 7523 JWT bearer grant with that ID-JAG
//!    as the `assertion`, authenticated as the configured client, for the access token.
//!
//! Without a configured ID token, the user signs in at the identity provider first (OpenID
//! Connect: discovery from the issuer, then an authorization code with PKCE, `scope=openid`
//! and a `nonce`). The ID token comes straight from the provider's token endpoint over TLS, so
//! its claims are checked (issuer, audience, nonce) but not its signature (OpenID Connect
//! Core §3.1.3.7); the provider verifies it again when it is exchanged.

use super::encoding::{base64url, base64url_decode, form_encode, pkce_challenge};
use super::flow::{OAuthFlow, Phase};
use super::token::{basic_authorization, describe_answer, form_headers};
use super::types::{EnterpriseGrant, OAuthStep};
use super::url::with_query;
use crate::json::quoted;
use crate::mcp::http::HttpMethod;
use serde_json::Value;
use std::fmt;

/// RFC 8693's grant type.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of an OpenID Connect ID token (RFC 8693 §3).
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of an identity assertion JWT authorization grant.
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// RFC 7523's grant type: a JWT as the authorization grant.
pub(super) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The identity provider's side of the flow, as it is learned.
#[derive(Default)]
pub(super) struct IdpSession {
    /// Where the user signs in (from the discovery document).
    authorization_endpoint: Option<String>,
    /// Where codes and ID tokens are exchanged (configured, or from the discovery document).
    token_endpoint: Option<String>,
    /// The user's ID token: configured, or from signing in.
    id_token: Option<String>,
    /// The `nonce` of the sign-in, which the ID token must carry back.
    nonce: String,
    /// The `issuer` its discovery document declares: the sign-in's response must come from it.
    issuer: String,
    /// Whether that document promises `iss` in authorization responses (RFC 9207 §3).
    iss_supported: bool,
}

impl IdpSession {
    /// What the configuration says, and the sign-in's `nonce`.
    pub(super) fn new(grant: Option<&EnterpriseGrant>, nonce: &[u8]) -> Self {
        IdpSession {
            authorization_endpoint: None,
            token_endpoint: grant.and_then(|g| g.idp_token_endpoint.clone()),
            id_token: grant.and_then(|g| g.id_token.clone()),
            nonce: base64url(nonce),
            issuer: String::new(),
            iss_supported: false,
        }
    }
}

impl fmt::Debug for IdpSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the ID token.
        f.debug_struct("IdpSession")
            .field("authorization_endpoint", &self.authorization_endpoint)
            .field("token_endpoint", &self.token_endpoint)
            .field("id_token", &self.id_token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl OAuthFlow {
    /// Where cross-app access starts once the authorization server is known: the exchange
    /// when the ID token and the provider's token endpoint are at hand, else the provider's
    /// discovery document.
    pub(super) fn start_enterprise(&mut self, grant: &EnterpriseGrant) -> OAuthStep {
        if self.client.is_none() {
            // The ID-JAG names the client it is for, and the authorization server checks the
            // client that presents it: there is no registering on the fly.
            return self.fail(format!(
                "cross-app access needs a client id registered at the authorization server {}: \
                 configure one",
                self.server_issuer()
            ));
        }
        if self.idp.id_token.is_some() && self.idp.token_endpoint.is_some() {
            return self.token_exchange_request(grant);
        }
        let Some(issuer) = &grant.idp_issuer else {
            return self.fail(
                "cross-app access needs the identity provider's issuer (to sign in there), or an \
                 ID token and the provider's token endpoint"
                    .into(),
            );
        };
        // OpenID Connect Discovery §4: the issuer plus the well-known path.
        let url = format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        );
        self.phase = Phase::IdpMetadata;
        self.current = url.clone();
        let accept = vec![("Accept".to_owned(), "application/json".to_owned())];
        self.request(HttpMethod::Get, url, accept, None)
    }

    /// The provider's discovery document: its endpoints, then the sign-in or the exchange.
    pub(super) fn on_idp_metadata(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
        let Some(grant) = self.config.enterprise.clone() else {
            return self.fail("the OAuth flow expected no identity provider now".into());
        };
        let url = self.current.clone();
        let json = match json {
            Some(json) if status == 200 && json.is_object() => json,
            _ => {
                return self.fail(format!(
                    "the identity provider's discovery document {url} could not be read \
                     (HTTP {status})"
                ))
            }
        };
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        let expected = grant.idp_issuer.clone().unwrap_or_default();
        let declared = text("issuer").unwrap_or_default();
        // Discovery §4.3: a document for another issuer is not to be used.
        if declared.trim_end_matches('/') != expected.trim_end_matches('/') {
            return self.fail(format!(
                "the identity provider's discovery document {url} is for issuer {}, not {}: \
                 refusing it",
                quoted(&declared),
                quoted(&expected)
            ));
        }
        self.idp.issuer = declared;
        self.idp.iss_supported = json
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if self.idp.token_endpoint.is_none() {
            self.idp.token_endpoint = text("token_endpoint");
        }
        self.idp.authorization_endpoint = text("authorization_endpoint");
        match (&self.idp.id_token, &self.idp.token_endpoint) {
            (Some(_), Some(_)) => self.token_exchange_request(&grant),
            (None, Some(_)) if self.idp.authorization_endpoint.is_some() => {
                self.idp_sign_in(&grant)
            }
            _ => self.fail(format!(
                "the identity provider's discovery document {url} names no token endpoint \
                 or no authorization endpoint"
            )),
        }
    }

    /// Sends the user to the identity provider to sign in (the one browser step).
    fn idp_sign_in(&mut self, grant: &EnterpriseGrant) -> OAuthStep {
        let endpoint = self.idp.authorization_endpoint.clone().unwrap_or_default();
        let challenge = pkce_challenge(&self.verifier);
        let params = [
            ("response_type", "code"),
            ("client_id", grant.idp_client_id.as_str()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("scope", "openid"),
            ("state", self.state.as_str()),
            ("nonce", self.idp.nonce.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ];
        self.phase = Phase::IdpAuthorizing;
        OAuthStep::Authorize {
            url: with_query(&endpoint, &form_encode(&params)),
        }
    }

    /// The issuer the sign-in's authorization response must come from, and whether the
    /// provider promised to name it there (RFC 9207).
    pub(super) fn idp_response_issuer(&self) -> (String, bool) {
        (self.idp.issuer.clone(), self.idp.iss_supported)
    }

    /// The provider's authorization endpoint, for messages about its redirect.
    pub(super) fn idp_authorization_endpoint(&self) -> String {
        self.idp.authorization_endpoint.clone().unwrap_or_default()
    }

    /// Trades the sign-in's code for the ID token at the provider's token endpoint.
    pub(super) fn idp_code_request(&mut self, code: &str) -> OAuthStep {
        let Some(grant) = self.config.enterprise.clone() else {
            return self.fail("the OAuth flow expected no identity provider now".into());
        };
        let params = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.to_owned()),
            ("redirect_uri", self.config.redirect_uri.clone()),
            ("code_verifier", self.verifier.clone()),
        ];
        self.post_to_idp(&grant, params, Phase::IdpToken)
    }

    /// The provider's answer to the code: the ID token, checked, then the exchange.
    pub(super) fn on_idp_token(
        &mut self,
        status: u16,
        json: Option<Value>,
        body: &[u8],
    ) -> OAuthStep {
        let Some(grant) = self.config.enterprise.clone() else {
            return self.fail("the OAuth flow expected no identity provider now".into());
        };
        let endpoint = self.current.clone();
        let id_token = json
            .as_ref()
            .and_then(|j| j.get("id_token"))
            .and_then(Value::as_str)
            .filter(|_| status == 200);
        let Some(id_token) = id_token.map(str::to_owned) else {
            return self.fail(format!(
                "the identity provider's token endpoint {endpoint} gave no ID token: {}",
                describe_answer(status, body)
            ));
        };
        if let Err(problem) = self.check_id_token(&grant, &id_token) {
            return self.fail(format!(
                "the ID token from {endpoint} {problem}: refusing it"
            ));
        }
        self.idp.id_token = Some(id_token);
        self.token_exchange_request(&grant)
    }

    /// The claims a client checks in an ID token from the token endpoint (OpenID Connect
    /// Core §3.1.3.7): issued by the configured provider, to this client, for this sign-in.
    fn check_id_token(&self, grant: &EnterpriseGrant, id_token: &str) -> Result<(), String> {
        let claims = id_token
            .split('.')
            .nth(1)
            .and_then(base64url_decode)
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .filter(Value::is_object)
            .ok_or_else(|| "is not a JWT".to_owned())?;
        let text = |name: &str| claims.get(name).and_then(Value::as_str).unwrap_or_default();
        let issuer = grant.idp_issuer.as_deref().unwrap_or_default();
        if text("iss").trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(format!("was issued by {}", quoted(text("iss"))));
        }
        let client = grant.idp_client_id.as_str();
        let for_us = match claims.get("aud") {
            Some(Value::String(audience)) => audience == client,
            Some(Value::Array(audiences)) => audiences.iter().any(|a| a.as_str() == Some(client)),
            _ => false,
        };
        if !for_us {
            return Err(format!("is not for client {}", quoted(client)));
        }
        if text("nonce") != self.idp.nonce {
            return Err("carries another sign-in's nonce".into());
        }
        Ok(())
    }

    /// Asks the identity provider for an ID-JAG addressed to the authorization server just
    /// discovered, for the MCP server's resource and the chosen scope.
    fn token_exchange_request(&mut self, grant: &EnterpriseGrant) -> OAuthStep {
        let mut params = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            (
                "subject_token",
                self.idp.id_token.clone().unwrap_or_default(),
            ),
            ("subject_token_type", ID_TOKEN.to_owned()),
            ("audience", self.server_issuer()),
            ("resource", self.resource.clone()),
        ];
        if let Some(scope) = &self.scope {
            params.push(("scope", scope.clone()));
        }
        self.post_to_idp(grant, params, Phase::TokenExchange)
    }

    /// `POST`s `params` to the identity provider's token endpoint as its client (HTTP Basic
    /// with a secret, else a public `client_id`), and reads the answer in phase `then`.
    fn post_to_idp(
        &mut self,
        grant: &EnterpriseGrant,
        mut params: Vec<(&str, String)>,
        then: Phase,
    ) -> OAuthStep {
        let mut headers = form_headers();
        match &grant.idp_client_secret {
            Some(secret) => headers.push(basic_authorization(&grant.idp_client_id, secret)),
            None => params.push(("client_id", grant.idp_client_id.clone())),
        }
        let pairs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let body = form_encode(&pairs).into_bytes();
        self.phase = then;
        self.current = self.idp.token_endpoint.clone().unwrap_or_default();
        let url = self.current.clone();
        self.request(HttpMethod::Post, url, headers, Some(body))
    }

    /// The provider's answer to the exchange; an ID-JAG goes to the authorization server's
    /// token endpoint as a JWT bearer grant.
    pub(super) fn on_token_exchange(
        &mut self,
        status: u16,
        json: Option<Value>,
        body: &[u8],
    ) -> OAuthStep {
        let json = json.unwrap_or_default();
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        // RFC 8693 requires `issued_token_type`; a provider that leaves it out is given the
        // benefit of the doubt, since the authorization server verifies the grant anyway.
        let issued = text("issued_token_type");
        match text("access_token") {
            Some(assertion) if status == 200 && issued.as_deref().is_none_or(|t| t == ID_JAG) => {
                let mut grant = vec![
                    ("grant_type".to_owned(), JWT_BEARER_GRANT.to_owned()),
                    ("assertion".to_owned(), assertion),
                ];
                if let Some(scope) = &self.scope {
                    grant.push(("scope".to_owned(), scope.clone()));
                }
                self.post_token(grant, Phase::Token)
            }
            Some(_) if status == 200 => self.fail(format!(
                "the identity provider's token endpoint {} issued a {} token, not an identity \
                 assertion grant ({ID_JAG})",
                self.current,
                quoted(issued.as_deref().unwrap_or_default())
            )),
            _ => self.fail(format!(
                "the identity provider's token endpoint {} refused the token exchange: {}",
                self.current,
                describe_answer(status, body)
            )),
        }
    }
}
