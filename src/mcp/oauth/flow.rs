//! The authorization-code flow with PKCE, as a sequential sans-IO machine.

use super::challenge::BearerChallenge;
use super::encoding::base64url;
use super::enterprise::IdpSession;
use super::issuer::check_response_issuer;
use super::types::{OAuthClient, OAuthConfig, OAuthRandom, OAuthStep};
use super::url::SplitUrl;
use crate::json::quoted;
use crate::mcp::http::{HttpMethod, HttpRequest, HttpRequestId};
use serde_json::Value;
use std::collections::VecDeque;

/// Where the flow is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    ResourceMetadata,
    ServerMetadata,
    Registration,
    Refreshing,
    Authorizing,
    /// Waiting for the host's signed client assertion (`private_key_jwt`).
    Signing,
    /// Reading the enterprise identity provider's discovery document (cross-app access).
    IdpMetadata,
    /// The user signing in at the identity provider.
    IdpAuthorizing,
    /// Trading the sign-in's code for the user's ID token.
    IdpToken,
    /// Exchanging the user's ID token for an identity assertion grant at the identity
    /// provider.
    TokenExchange,
    Token,
    Finished,
}

/// The authorization server's endpoints and capabilities (RFC 8414), as far as we use them.
#[derive(Clone, Debug, Default)]
pub(super) struct ServerMetadata {
    /// The `issuer` the metadata declares (the audience of client assertions).
    pub(super) issuer: Option<String>,
    pub(super) authorization_endpoint: String,
    pub(super) token_endpoint: String,
    pub(super) registration_endpoint: Option<String>,
    pub(super) scopes_supported: Option<Vec<String>>,
    pub(super) auth_methods: Option<Vec<String>>,
    pub(super) cimd_supported: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3): the authorization
    /// response must then carry `iss`.
    pub(super) iss_supported: bool,
    /// `dpop_signing_alg_values_supported` lists ES256 (RFC 9449 §5.1): token requests then
    /// carry proofs when the host can sign them.
    pub(super) dpop: bool,
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
/// authorization step (no user involved); with [`OAuthConfig::enterprise`], so does the
/// enterprise identity provider's identity assertion grant (cross-app access).
///
/// The flow is strictly sequential, so its contract is simpler than the transport's: call
/// [`start`](Self::start), then feed each step's outcome back ([`handle_response`](Self::handle_response)
/// for a [`OAuthStep::Request`], [`handle_redirect`](Self::handle_redirect) for an
/// [`OAuthStep::Authorize`], [`handle_assertion`](Self::handle_assertion) for an
/// [`OAuthStep::SignAssertion`]) until [`OAuthStep::Done`] or [`OAuthStep::Failed`]. It performs no
/// I/O and has no randomness of its own ([`OAuthRandom`] comes from the host).
#[derive(Debug)]
pub struct OAuthFlow {
    pub(super) config: OAuthConfig,
    pub(super) challenge: BearerChallenge,
    pub(super) verifier: String,
    pub(super) state: String,
    pub(super) phase: Phase,
    /// Metadata URLs still to try in the current discovery phase.
    pub(super) candidates: VecDeque<String>,
    /// What the URLs tried so far in this phase answered, for the error message.
    pub(super) tried: Vec<String>,
    /// The metadata URL of the request in flight.
    pub(super) current: String,
    /// No Protected Resource Metadata: 2025-03-26 behaviour.
    pub(super) legacy: bool,
    pub(super) resource: String,
    pub(super) resource_scopes: Option<Vec<String>>,
    /// The authorization server's issuer identifier exactly as the resource metadata names it
    /// (its origin without resource metadata): the metadata's `issuer` must be this very string.
    pub(super) issuer: String,
    pub(super) server: ServerMetadata,
    pub(super) client: Option<OAuthClient>,
    /// [`client`](Self::client) was registered (dynamic registration or a metadata document),
    /// by this flow or an earlier one, rather than pre-registered.
    pub(super) client_registered: bool,
    pub(super) scope: Option<String>,
    /// A token request waiting for its client assertion: its form fields and the phase its
    /// answer is read in.
    pub(super) unsigned: Option<(Vec<(String, String)>, Phase)>,
    /// The enterprise identity provider's side (cross-app access only).
    pub(super) idp: IdpSession,
    pub(super) next_id: u64,
    /// The last token request sent with a DPoP proof, for a `use_dpop_nonce` retry.
    pub(super) proof_request: Option<HttpRequest>,
    /// Whether that request was retried with a nonce already (once is the limit).
    pub(super) nonce_retried: bool,
    /// The nonce the token endpoint asked for, carried by later proofs.
    pub(super) token_nonce: Option<String>,
}

impl OAuthFlow {
    /// A flow for the challenge `www_authenticate` (the header's value, if any) of the server at
    /// `config.resource_url`.
    pub fn new(config: OAuthConfig, www_authenticate: Option<&str>, random: OAuthRandom) -> Self {
        let challenge = www_authenticate
            .map(BearerChallenge::parse)
            .unwrap_or_default();
        OAuthFlow {
            idp: IdpSession::new(config.enterprise.as_ref(), &random.nonce),
            resource: config.resource_url.clone(),
            client: config.client.clone(),
            client_registered: config.client.is_some() && config.client_registered,
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
            unsigned: None,
            next_id: 1,
            proof_request: None,
            nonce_retried: false,
            token_nonce: None,
        }
    }

    /// The first step: fetching the Protected Resource Metadata.
    pub fn start(&mut self) -> OAuthStep {
        let Some(mcp) = SplitUrl::parse(&self.config.resource_url) else {
            return self.fail(format!(
                "cannot authorize: {} is not an http(s) URL",
                quoted(&self.config.resource_url)
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

    /// The response to the last [`OAuthStep::Request`] or [`OAuthStep::ProofRequest`]: status,
    /// headers and the whole body.
    pub fn handle_response(
        &mut self,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> OAuthStep {
        let json = serde_json::from_slice::<Value>(body).ok();
        if let Some(retry) = self.nonce_retry(status, headers, json.as_ref()) {
            return retry;
        }
        match self.phase {
            Phase::ResourceMetadata => self.on_resource_metadata(status, json),
            Phase::ServerMetadata => self.on_server_metadata(status, json),
            Phase::Registration => self.on_registration(status, json, body),
            Phase::Refreshing => self.on_refresh(status, json),
            Phase::IdpMetadata => self.on_idp_metadata(status, json),
            Phase::IdpToken => self.on_idp_token(status, json, body),
            Phase::TokenExchange => self.on_token_exchange(status, json, body),
            Phase::Token => self.on_token(status, json, body),
            Phase::Signing => OAuthStep::Failed(
                "the OAuth flow is waiting for a signed client assertion (handle_assertion), \
                 not an HTTP response"
                    .into(),
            ),
            Phase::Authorizing | Phase::IdpAuthorizing | Phase::Finished => {
                OAuthStep::Failed("the OAuth flow expected no HTTP response now".into())
            }
        }
    }

    /// Where the authorization server redirected the user agent after an
    /// [`OAuthStep::Authorize`] (the full redirect URL with `code` and `state`).
    pub fn handle_redirect(&mut self, url: &str) -> OAuthStep {
        // The user signs in at the identity provider (cross-app access) or authorizes at the
        // MCP server's authorization server: the redirect is checked the same way.
        let endpoint = match self.phase {
            Phase::Authorizing => self.server.authorization_endpoint.clone(),
            Phase::IdpAuthorizing => self.idp_authorization_endpoint(),
            _ => return OAuthStep::Failed("the OAuth flow expected no redirect now".into()),
        };
        let Some(redirect) = SplitUrl::parse(url) else {
            return self.fail(format!(
                "the authorization redirect {url} is not a URL",
                url = quoted(url)
            ));
        };
        // RFC 9207 §2.4, before anything else in the response is believed (errors included):
        // an answer from another authorization server (a mix-up) is refused.
        let (issuer, advertised) = match self.phase {
            Phase::IdpAuthorizing => self.idp_response_issuer(),
            _ => (self.server_issuer(), self.server.iss_supported),
        };
        let iss = redirect.query_param("iss");
        if let Err(refusal) = check_response_issuer(iss.as_deref(), &issuer, advertised, &endpoint)
        {
            return self.fail(refusal);
        }
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
        match self.phase {
            Phase::IdpAuthorizing => self.idp_code_request(&code),
            _ => self.token_request(&code),
        }
    }

    /// The signed client assertion (a compact JWT) asked for by an [`OAuthStep::SignAssertion`].
    pub fn handle_assertion(&mut self, assertion: &str) -> OAuthStep {
        if self.phase != Phase::Signing {
            return OAuthStep::Failed("the OAuth flow expected no client assertion now".into());
        }
        self.on_assertion(assertion)
    }

    // ----- helpers -----

    pub(super) fn request(
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

    pub(super) fn fail(&mut self, message: String) -> OAuthStep {
        self.phase = Phase::Finished;
        OAuthStep::Failed(message)
    }
}
