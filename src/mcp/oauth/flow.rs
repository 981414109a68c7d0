//! The authorization-code flow with PKCE, as a sequential sans-IO machine.

use super::challenge::BearerChallenge;
use super::encoding::{base64_standard, base64url, form_encode, percent_encode, pkce_challenge};
use super::types::{OAuthClient, OAuthConfig, OAuthRandom, OAuthStep, OAuthToken};
use super::url::{with_query, SplitUrl};
use crate::mcp::http::{HttpMethod, HttpRequest, HttpRequestId};
use serde_json::{json, Value};
use std::collections::VecDeque;

/// Where the flow is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    ResourceMetadata,
    ServerMetadata,
    Registration,
    Refreshing,
    Authorizing,
    Token,
    Finished,
}

/// The authorization server's endpoints and capabilities (RFC 8414), as far as we use them.
#[derive(Clone, Debug, Default)]
struct ServerMetadata {
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    scopes_supported: Option<Vec<String>>,
    auth_methods: Option<Vec<String>>,
    cimd_supported: bool,
}

/// One OAuth 2.1 authorization-code flow with PKCE (S256) for an MCP server, from the server's
/// `401`/`403` challenge to an access token (MCP authorization, spec 2025-11-25).
///
/// Discovery: Protected Resource Metadata (RFC 9728) at the challenge's `resource_metadata`, then
/// the path-based and root well-known URLs; without any, the 2025-03-26 fallback treats the MCP
/// server's origin as the authorization server (and, without its metadata either, uses
/// `/authorize`, `/token`, `/register` there). Authorization server metadata (RFC 8414 and
/// OpenID Connect Discovery, path-aware). Client: the configured one, else a Client ID Metadata
/// Document URL when the server supports it, else dynamic registration (RFC 7591). Scope: the
/// configured one, else the challenge's `scope`, else the resource's `scopes_supported`, else
/// none; `offline_access` is added only when the authorization server lists it. With
/// [`OAuthConfig::client_credentials`], the `client_credentials` grant replaces the
/// authorization step (no user involved).
///
/// The flow is strictly sequential, so its contract is simpler than the transport's: call
/// [`start`](Self::start), then feed each step's outcome back ([`handle_response`](Self::handle_response)
/// for a [`OAuthStep::Request`], [`handle_redirect`](Self::handle_redirect) for an
/// [`OAuthStep::Authorize`]) until [`OAuthStep::Done`] or [`OAuthStep::Failed`]. It performs no
/// I/O and has no randomness of its own ([`OAuthRandom`] comes from the host).
#[derive(Debug)]
pub struct OAuthFlow {
    config: OAuthConfig,
    challenge: BearerChallenge,
    verifier: String,
    state: String,
    phase: Phase,
    /// Metadata URLs still to try in the current discovery phase.
    candidates: VecDeque<String>,
    /// What the URLs tried so far in this phase answered, for the error message.
    tried: Vec<String>,
    /// The metadata URL of the request in flight.
    current: String,
    /// No Protected Resource Metadata: 2025-03-26 behaviour.
    legacy: bool,
    resource: String,
    resource_scopes: Option<Vec<String>>,
    issuer: String,
    server: ServerMetadata,
    client: Option<OAuthClient>,
    scope: Option<String>,
    next_id: u64,
}

impl OAuthFlow {
    /// A flow for the challenge `www_authenticate` (the header's value, if any) of the server at
    /// `config.resource_url`.
    pub fn new(config: OAuthConfig, www_authenticate: Option<&str>, random: OAuthRandom) -> Self {
        let challenge = www_authenticate
            .map(BearerChallenge::parse)
            .unwrap_or_default();
        OAuthFlow {
            resource: config.resource_url.clone(),
            client: config.client.clone(),
            config,
            challenge,
            verifier: base64url(&random.verifier),
            state: base64url(&random.state),
            phase: Phase::ResourceMetadata,
            candidates: VecDeque::new(),
            tried: Vec::new(),
            current: String::new(),
            legacy: false,
            resource_scopes: None,
            issuer: String::new(),
            server: ServerMetadata::default(),
            scope: None,
            next_id: 1,
        }
    }

    /// The first step: fetching the Protected Resource Metadata.
    pub fn start(&mut self) -> OAuthStep {
        let Some(mcp) = SplitUrl::parse(&self.config.resource_url) else {
            return self.fail(format!(
                "cannot authorize: {:?} is not an http(s) URL",
                self.config.resource_url
            ));
        };
        self.phase = Phase::ResourceMetadata;
        self.candidates.clear();
        self.candidates
            .extend(self.challenge.resource_metadata.clone());
        if !mcp.trimmed_path().is_empty() {
            self.candidates
                .push_back(mcp.well_known("oauth-protected-resource"));
        }
        self.candidates.push_back(format!(
            "{}/.well-known/oauth-protected-resource",
            mcp.origin
        ));
        self.next_metadata()
    }

    /// The response to the last [`OAuthStep::Request`]: status, headers and the whole body.
    pub fn handle_response(
        &mut self,
        status: u16,
        _headers: &[(String, String)],
        body: &[u8],
    ) -> OAuthStep {
        let json = serde_json::from_slice::<Value>(body).ok();
        match self.phase {
            Phase::ResourceMetadata => self.on_resource_metadata(status, json),
            Phase::ServerMetadata => self.on_server_metadata(status, json),
            Phase::Registration => self.on_registration(status, json, body),
            Phase::Refreshing => self.on_refresh(status, json),
            Phase::Token => self.on_token(status, json, body),
            Phase::Authorizing | Phase::Finished => {
                OAuthStep::Failed("the OAuth flow expected no HTTP response now".into())
            }
        }
    }

    /// Where the authorization server redirected the user agent after an
    /// [`OAuthStep::Authorize`] (the full redirect URL with `code` and `state`).
    pub fn handle_redirect(&mut self, url: &str) -> OAuthStep {
        if self.phase != Phase::Authorizing {
            return OAuthStep::Failed("the OAuth flow expected no redirect now".into());
        }
        let Some(redirect) = SplitUrl::parse(url) else {
            return self.fail(format!("the authorization redirect {url:?} is not a URL"));
        };
        let endpoint = self.server.authorization_endpoint.clone();
        if let Some(error) = redirect.query_param("error") {
            let detail = redirect
                .query_param("error_description")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            return self.fail(format!(
                "the authorization server at {endpoint} refused: {error}{detail}"
            ));
        }
        if redirect.query_param("state").as_deref() != Some(self.state.as_str()) {
            return self.fail(format!(
                "the redirect from {endpoint} carries a wrong or no `state`: refusing it"
            ));
        }
        let Some(code) = redirect.query_param("code") else {
            return self.fail(format!("the redirect from {endpoint} carries no `code`"));
        };
        self.token_request(&code)
    }

    // ----- discovery -----

    fn next_metadata(&mut self) -> OAuthStep {
        let Some(url) = self.candidates.pop_front() else {
            return self.discovery_exhausted();
        };
        self.current = url.clone();
        let headers = vec![("Accept".to_owned(), "application/json".to_owned())];
        self.request(HttpMethod::Get, url, headers, None)
    }

    fn discovery_exhausted(&mut self) -> OAuthStep {
        let tried = std::mem::take(&mut self.tried).join("; ");
        match self.phase {
            Phase::ResourceMetadata => {
                // 2025-03-26 servers have no resource metadata: their origin is the server.
                self.legacy = true;
                let origin = SplitUrl::parse(&self.config.resource_url)
                    .map(|u| u.origin)
                    .unwrap_or_default();
                self.begin_server_metadata(origin)
            }
            _ if self.legacy => {
                let origin = self.issuer.clone();
                self.server = ServerMetadata {
                    authorization_endpoint: format!("{origin}/authorize"),
                    token_endpoint: format!("{origin}/token"),
                    registration_endpoint: Some(format!("{origin}/register")),
                    ..ServerMetadata::default()
                };
                self.choose_client()
            }
            _ => self.fail(format!(
                "no authorization server metadata for {}: {tried}",
                self.issuer
            )),
        }
    }

    fn on_resource_metadata(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
        let servers = json
            .as_ref()
            .and_then(|j| j.get("authorization_servers"))
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find_map(Value::as_str).map(str::to_owned));
        let Some(issuer) = servers.filter(|_| status == 200) else {
            let what = if status == 200 {
                "no authorization_servers".to_owned()
            } else {
                format!("HTTP {status}")
            };
            self.tried.push(format!("{} answered {what}", self.current));
            return self.next_metadata();
        };
        let json = json.unwrap_or_default();
        if let Some(resource) = json.get("resource").and_then(Value::as_str) {
            let ours = SplitUrl::parse(&self.config.resource_url).map(|u| u.origin);
            if SplitUrl::parse(resource).map(|u| u.origin) != ours {
                return self.fail(format!(
                    "the protected resource metadata at {} names resource {resource:?}, not {}",
                    self.current, self.config.resource_url
                ));
            }
            self.resource = resource.to_owned();
        }
        self.resource_scopes = string_list(json.get("scopes_supported"));
        self.tried.clear();
        self.begin_server_metadata(issuer.trim_end_matches('/').to_owned())
    }

    fn begin_server_metadata(&mut self, issuer: String) -> OAuthStep {
        let Some(url) = SplitUrl::parse(&issuer) else {
            return self.fail(format!("the authorization server {issuer:?} is not a URL"));
        };
        self.issuer = issuer;
        self.phase = Phase::ServerMetadata;
        self.candidates.clear();
        self.candidates
            .push_back(url.well_known("oauth-authorization-server"));
        self.candidates
            .push_back(url.well_known("openid-configuration"));
        if !url.trimmed_path().is_empty() {
            self.candidates.push_back(format!(
                "{}{}/.well-known/openid-configuration",
                url.origin,
                url.trimmed_path()
            ));
        }
        self.next_metadata()
    }

    fn on_server_metadata(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
        let json = json.filter(|_| status == 200).unwrap_or_default();
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        let (Some(authorization), Some(token)) =
            (text("authorization_endpoint"), text("token_endpoint"))
        else {
            let what = if status == 200 {
                "no authorization_endpoint or token_endpoint".to_owned()
            } else {
                format!("HTTP {status}")
            };
            self.tried.push(format!("{} answered {what}", self.current));
            return self.next_metadata();
        };
        self.server = ServerMetadata {
            authorization_endpoint: authorization,
            token_endpoint: token,
            registration_endpoint: text("registration_endpoint"),
            scopes_supported: string_list(json.get("scopes_supported")),
            auth_methods: string_list(json.get("token_endpoint_auth_methods_supported")),
            cimd_supported: json
                .get("client_id_metadata_document_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        self.choose_client()
    }

    // ----- client -----

    fn choose_client(&mut self) -> OAuthStep {
        self.scope = self.select_scope();
        if self.client.is_some() {
            if let Some(refresh_token) = self.config.refresh_token.take() {
                let grant = vec![
                    ("grant_type".to_owned(), "refresh_token".to_owned()),
                    ("refresh_token".to_owned(), refresh_token),
                    ("resource".to_owned(), self.resource.clone()),
                ];
                let step = self.post_token(grant);
                self.phase = Phase::Refreshing;
                return step;
            }
        }
        if self.config.client_credentials {
            return match self.client.as_ref().and_then(|c| c.client_secret.as_ref()) {
                Some(_) => self.client_credentials_request(),
                None => self.fail(
                    "the client_credentials grant needs a configured client id and secret".into(),
                ),
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

    fn on_registration(&mut self, status: u16, json: Option<Value>, body: &[u8]) -> OAuthStep {
        let json = json.unwrap_or_default();
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        match text("client_id") {
            Some(client_id) if (200..300).contains(&status) => {
                self.client = Some(OAuthClient {
                    client_id,
                    client_secret: text("client_secret"),
                    auth_method: text("token_endpoint_auth_method"),
                });
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
    fn preferred_method(&self, for_registration: bool) -> Option<String> {
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

    fn select_scope(&self) -> Option<String> {
        let mut scope = self
            .config
            .scope
            .clone()
            .or_else(|| self.challenge.scope.clone())
            .or_else(|| self.resource_scopes.as_ref().map(|s| s.join(" ")))
            .filter(|s| !s.trim().is_empty())?;
        let offered = self.server.scopes_supported.iter().flatten();
        if offered.clone().any(|s| s == "offline_access")
            && !scope.split(' ').any(|s| s == "offline_access")
        {
            scope.push_str(" offline_access");
        }
        Some(scope)
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

    // ----- token -----

    fn token_request(&mut self, code: &str) -> OAuthStep {
        let grant = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code.to_owned()),
            ("redirect_uri".to_owned(), self.config.redirect_uri.clone()),
            ("code_verifier".to_owned(), self.verifier.clone()),
            ("resource".to_owned(), self.resource.clone()),
        ];
        self.post_token(grant)
    }

    fn client_credentials_request(&mut self) -> OAuthStep {
        let mut grant = vec![
            ("grant_type".to_owned(), "client_credentials".to_owned()),
            ("resource".to_owned(), self.resource.clone()),
        ];
        if let Some(scope) = &self.scope {
            grant.push(("scope".to_owned(), scope.clone()));
        }
        self.post_token(grant)
    }

    /// `POST`s `grant` to the token endpoint with the client's authentication.
    fn post_token(&mut self, mut params: Vec<(String, String)>) -> OAuthStep {
        let client = self.client.clone().unwrap_or(OAuthClient {
            client_id: String::new(),
            client_secret: None,
            auth_method: None,
        });
        let method = match (&client.auth_method, &client.client_secret) {
            (Some(method), _) => method.clone(),
            (None, None) => "none".into(),
            (None, Some(_)) => self
                .preferred_method(false)
                .filter(|m| m != "none")
                .unwrap_or_else(|| "client_secret_basic".into()),
        };
        let secret = client.client_secret.clone().unwrap_or_default();
        let mut headers = vec![
            (
                "Content-Type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            ),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        match method.as_str() {
            "client_secret_basic" => {
                // RFC 6749 §2.3.1: both parts are form-encoded before base64.
                let pair = format!(
                    "{}:{}",
                    percent_encode(&client.client_id),
                    percent_encode(&secret)
                );
                let value = format!("Basic {}", base64_standard(pair.as_bytes()));
                headers.push(("Authorization".to_owned(), value));
            }
            "client_secret_post" => {
                params.push(("client_id".to_owned(), client.client_id.clone()));
                params.push(("client_secret".to_owned(), secret));
            }
            _ => params.push(("client_id".to_owned(), client.client_id.clone())),
        }
        let pairs: Vec<(&str, &str)> = params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let body = form_encode(&pairs).into_bytes();
        self.phase = Phase::Token;
        self.current = self.server.token_endpoint.clone();
        let url = self.current.clone();
        self.request(HttpMethod::Post, url, headers, Some(body))
    }

    /// A refused refresh is no failure: the user authorizes anew.
    fn on_refresh(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
        let fresh = json
            .as_ref()
            .and_then(|j| j.get("access_token"))
            .is_some_and(Value::is_string);
        if status == 200 && fresh {
            return self.on_token(status, json, &[]);
        }
        self.choose_client()
    }

    fn on_token(&mut self, status: u16, json: Option<Value>, body: &[u8]) -> OAuthStep {
        let json = json.unwrap_or_default();
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        let token_type = text("token_type").unwrap_or_else(|| "Bearer".into());
        match text("access_token") {
            Some(access_token) if status == 200 && token_type.eq_ignore_ascii_case("bearer") => {
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
                })
            }
            Some(_) if status == 200 => self.fail(format!(
                "the token endpoint {} issued a {token_type:?} token; only Bearer is supported",
                self.current
            )),
            _ => self.fail(format!(
                "the token endpoint {} refused: {}",
                self.current,
                describe_answer(status, body)
            )),
        }
    }

    // ----- helpers -----

    fn request(
        &mut self,
        method: HttpMethod,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
    ) -> OAuthStep {
        let id = HttpRequestId(self.next_id);
        self.next_id += 1;
        OAuthStep::Request(HttpRequest {
            id,
            method,
            url,
            headers,
            body,
        })
    }

    fn fail(&mut self, message: String) -> OAuthStep {
        self.phase = Phase::Finished;
        OAuthStep::Failed(message)
    }
}

fn string_list(value: Option<&Value>) -> Option<Vec<String>> {
    let list = value?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// `HTTP 400: invalid_client (bad secret)` from an OAuth error answer; never echoes tokens
/// because only the `error` fields (or a short non-JSON excerpt) are quoted.
fn describe_answer(status: u16, body: &[u8]) -> String {
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
