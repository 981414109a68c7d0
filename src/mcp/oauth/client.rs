//! The client (configured, metadata document, or dynamically registered), the scope, and the
//! authorization request.

use super::encoding::{form_encode, pkce_challenge};
use super::flow::{OAuthFlow, Phase};
use super::token::{describe_answer, PRIVATE_KEY_JWT};
use super::types::{OAuthClient, OAuthStep};
use super::url::with_query;
use crate::mcp::http::HttpMethod;
use serde_json::{json, Value};

impl OAuthFlow {
    pub(super) fn choose_client(&mut self) -> OAuthStep {
        self.drop_foreign_credentials();
        self.scope = self.select_scope();
        if self.client.is_some() {
            if let Some(refresh_token) = self.config.refresh_token.take() {
                let grant = vec![
                    ("grant_type".to_owned(), "refresh_token".to_owned()),
                    ("refresh_token".to_owned(), refresh_token),
                    ("resource".to_owned(), self.resource.clone()),
                ];
                return self.post_token(grant, Phase::Refreshing);
            }
        }
        if let Some(grant) = self.config.enterprise.clone() {
            return self.start_enterprise(&grant);
        }
        if let Some(assertion) = self.config.workload_token.clone() {
            return self.workload_request(assertion);
        }
        if self.config.client_credentials {
            let ready = self.client.as_ref().is_some_and(|c| {
                c.client_secret.is_some() || self.token_auth_method(c) == PRIVATE_KEY_JWT
            });
            return if ready {
                self.client_credentials_request()
            } else {
                self.fail(
                    "the client_credentials grant needs a configured client id and secret \
                     (or a private key, for private_key_jwt)"
                        .into(),
                )
            };
        }
        if self.client.is_some() {
            return self.authorize();
        }
        if let Some(url) = self.config.client_metadata_url.clone() {
            if self.server.cimd_supported {
                self.client = Some(OAuthClient {
                    client_id: url,
                    client_secret: None,
                    auth_method: Some("none".into()),
                });
                self.client_registered = true;
                return self.authorize();
            }
        }
        let Some(endpoint) = self.server.registration_endpoint.clone() else {
            return self.fail(format!(
                "the authorization server {} offers no dynamic client registration{}: configure a client id",
                self.issuer,
                if self.config.client_metadata_url.is_some() { " nor client metadata documents" } else { "" }
            ));
        };
        let mut metadata = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            // SEP-837: a client whose redirect lands on this machine is a native application.
            "application_type": application_type(&self.config.redirect_uri),
        });
        if let Some(method) = self.preferred_method(true) {
            metadata["token_endpoint_auth_method"] = json!(method);
        }
        if let Some(scope) = &self.scope {
            metadata["scope"] = json!(scope);
        }
        self.phase = Phase::Registration;
        self.current = endpoint.clone();
        let headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        let body = serde_json::to_vec(&metadata).unwrap_or_default();
        self.request(HttpMethod::Post, endpoint, headers, Some(body))
    }

    pub(super) fn on_registration(
        &mut self,
        status: u16,
        json: Option<Value>,
        body: &[u8],
    ) -> OAuthStep {
        let json = json.unwrap_or_default();
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        match text("client_id") {
            Some(client_id) if (200..300).contains(&status) => {
                self.client = Some(OAuthClient {
                    client_id,
                    client_secret: text("client_secret"),
                    auth_method: text("token_endpoint_auth_method"),
                });
                self.client_registered = true;
                self.authorize()
            }
            _ => self.fail(format!(
                "client registration at {} failed: {}",
                self.current,
                describe_answer(status, body)
            )),
        }
    }

    /// The token endpoint authentication method: ours by preference among the server's.
    pub(super) fn preferred_method(&self, for_registration: bool) -> Option<String> {
        let preference = ["client_secret_basic", "client_secret_post", "none"];
        match &self.server.auth_methods {
            Some(methods) => preference
                .iter()
                .find(|p| methods.iter().any(|m| m == *p))
                .map(|p| (*p).to_owned()),
            // RFC 8414: the default is client_secret_basic.
            None if for_registration => None,
            None => Some("client_secret_basic".into()),
        }
    }

    // ----- authorization -----

    /// The configured scope, else the challenge's, else the resource's; a step-up
    /// (`insufficient_scope`) asks for the previous scope and the challenged one together
    /// (SEP-2350). `offline_access` (a refresh token) is asked for exactly when the
    /// authorization server lists it (SEP-2207), whoever else names it.
    fn select_scope(&self) -> Option<String> {
        let wanted = if self.challenge.insufficient_scope() {
            let before = self
                .config
                .previous_scope
                .as_ref()
                .or(self.config.scope.as_ref());
            scope_union(before.map(String::as_str), self.challenge.scope.as_deref())
        } else {
            self.config
                .scope
                .clone()
                .or_else(|| self.challenge.scope.clone())
                .or_else(|| self.resource_scopes.as_ref().map(|s| s.join(" ")))
        };
        let offered = self
            .server
            .scopes_supported
            .iter()
            .flatten()
            .any(|s| s == OFFLINE_ACCESS);
        let mut scopes: Vec<&str> = wanted
            .as_deref()
            .unwrap_or_default()
            .split_ascii_whitespace()
            .filter(|s| *s != OFFLINE_ACCESS)
            .collect();
        if scopes.is_empty() {
            return None;
        }
        if offered {
            scopes.push(OFFLINE_ACCESS);
        }
        Some(scopes.join(" "))
    }

    fn authorize(&mut self) -> OAuthStep {
        let client_id = self.client.as_ref().map(|c| c.client_id.clone());
        let challenge = pkce_challenge(&self.verifier);
        let mut params = vec![
            ("response_type", "code"),
            ("client_id", client_id.as_deref().unwrap_or_default()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("state", self.state.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("resource", self.resource.as_str()),
        ];
        if let Some(scope) = &self.scope {
            params.push(("scope", scope));
        }
        let url = with_query(&self.server.authorization_endpoint, &form_encode(&params));
        self.phase = Phase::Authorizing;
        OAuthStep::Authorize { url }
    }
}

/// The scope that asks for a refresh token (SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// `before` and then every scope of `added` not in it, space-separated; `None` when both are
/// empty.
fn scope_union(before: Option<&str>, added: Option<&str>) -> Option<String> {
    let mut scopes: Vec<&str> = Vec::new();
    for scope in [before, added]
        .into_iter()
        .flatten()
        .flat_map(str::split_ascii_whitespace)
    {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

/// The `application_type` to register (SEP-837, OpenID Connect Dynamic Registration §2):
/// `native` when the redirect comes back to this machine (a loopback address or a private
/// scheme), `web` for a redirect to a web server.
fn application_type(redirect_uri: &str) -> &'static str {
    let Some(url) = super::url::SplitUrl::parse(redirect_uri) else {
        // Not http(s): a private-use scheme such as `com.example.app:/callback`.
        return "native";
    };
    let authority = url.origin.split_once("://").map_or("", |(_, a)| a);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host == "::1"
        || host.split('.').next() == Some("127") && host.split('.').count() == 4;
    if loopback {
        "native"
    } else {
        "web"
    }
}
