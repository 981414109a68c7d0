//! The data the OAuth flow takes and gives: configuration, randomness, steps, the token.

use crate::mcp::http::HttpRequest;
use std::fmt;

/// A client known to the authorization server: pre-registered, registered earlier, or a
/// Client ID Metadata Document URL.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthClient {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, for confidential clients.
    pub client_secret: Option<String>,
    /// How to authenticate at the token endpoint (`none`, `client_secret_post`,
    /// `client_secret_basic`, `private_key_jwt`); `None` lets the flow choose from the server's
    /// metadata.
    pub auth_method: Option<String>,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret.
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("auth_method", &self.auth_method)
            .finish()
    }
}

/// What the host tells the flow about itself.
#[derive(Clone)]
pub struct OAuthConfig {
    /// The MCP endpoint that asked for authorization (also the RFC 8707 `resource` unless its
    /// Protected Resource Metadata names another).
    pub resource_url: String,
    /// Where the authorization server sends the browser back, such as
    /// `http://127.0.0.1:8123/callback`.
    pub redirect_uri: String,
    /// `client_name` for dynamic client registration.
    pub client_name: String,
    /// A pre-registered client (or one registered by an earlier flow); skips registration.
    pub client: Option<OAuthClient>,
    /// An `https` URL of this client's metadata document, used as the `client_id` when the
    /// server supports Client ID Metadata Documents.
    pub client_metadata_url: Option<String>,
    /// Scopes to request, overriding the server's hints.
    pub scope: Option<String>,
    /// Use the `client_credentials` grant (machine to machine, no user step) instead of the
    /// authorization code; needs a [`client`](Self::client) with a secret, or one that
    /// authenticates with `private_key_jwt`.
    pub client_credentials: bool,
    /// The host holds a private key and can sign client assertions
    /// ([`OAuthStep::SignAssertion`]): `private_key_jwt` is then used when the server offers
    /// only that method, even for a client configured without an `auth_method`.
    pub can_sign_assertions: bool,
    /// The host holds a DPoP key (EC P-256) and signs proofs ([`OAuthStep::ProofRequest`]):
    /// token requests to an authorization server that takes ES256 proofs then carry one
    /// (RFC 9449), and the tokens it binds come back with [`OAuthToken::dpop`].
    pub dpop: bool,
    /// A refresh token from an earlier flow: tried first (with [`client`](Self::client)); when
    /// the server refuses it, the flow authorizes anew.
    pub refresh_token: Option<String>,
    /// The issuer of the authorization server that [`refresh_token`](Self::refresh_token), and
    /// [`client`](Self::client) when [`client_registered`](Self::client_registered), came from.
    /// Credentials are bound to their issuer (SEP-2352): when discovery finds another one, the
    /// refresh token is never sent there and a registered client is not presented there (the
    /// flow registers anew). `None` binds nothing.
    pub credentials_issuer: Option<String>,
    /// [`client`](Self::client) was registered by an earlier flow (dynamic registration or a
    /// metadata document), not pre-registered: it belongs to
    /// [`credentials_issuer`](Self::credentials_issuer) only.
    pub client_registered: bool,
    /// The scope of the previous authorization for this server: a step-up
    /// (`error="insufficient_scope"`) asks for it together with the challenged scope
    /// (SEP-2350), so the permissions earlier operations needed are not lost.
    pub previous_scope: Option<String>,
    /// A workload identity token (a JWT the platform issued to this workload, SEP-1933):
    /// traded at the token endpoint with the RFC 7523 JWT bearer grant, with no user step. A
    /// refusal ends the flow: no other grant is tried in its place.
    pub workload_token: Option<String>,
    /// Enterprise-managed authorization (cross-app access): the enterprise identity provider
    /// vouches for the user instead of a browser step; needs a configured
    /// [`client`](Self::client) at the MCP server's authorization server.
    pub enterprise: Option<EnterpriseGrant>,
}

/// The enterprise identity provider's side of cross-app access (SEP-990): the user's ID token
/// from single sign-on, exchanged at the provider for an identity assertion grant (ID-JAG).
///
/// Either the ID token and the token endpoint are given, or the issuer is: then the flow
/// discovers the provider (OpenID Connect Discovery) and, without an ID token, signs the user
/// in there first (a browser step, [`OAuthStep::Authorize`]).
#[derive(Clone, PartialEq, Eq)]
pub struct EnterpriseGrant {
    /// The identity provider's issuer URL, for discovery and for checking the ID token.
    pub idp_issuer: Option<String>,
    /// The identity provider's token endpoint, where the RFC 8693 token exchange happens
    /// (discovered from the issuer when not given).
    pub idp_token_endpoint: Option<String>,
    /// The user's OpenID Connect ID token from the identity provider: the exchange's subject
    /// (obtained by signing in when not given).
    pub id_token: Option<String>,
    /// This application's client id at the identity provider.
    pub idp_client_id: String,
    /// Its secret there, for a confidential client (sent with HTTP Basic authentication).
    pub idp_client_secret: Option<String>,
}

impl fmt::Debug for EnterpriseGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the ID token or the secret.
        f.debug_struct("EnterpriseGrant")
            .field("idp_issuer", &self.idp_issuer)
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("id_token", &self.id_token.as_ref().map(|_| "<redacted>"))
            .field("idp_client_id", &self.idp_client_id)
            .field(
                "idp_client_secret",
                &self.idp_client_secret.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the refresh token (the client redacts its own secret).
        f.debug_struct("OAuthConfig")
            .field("resource_url", &self.resource_url)
            .field("redirect_uri", &self.redirect_uri)
            .field("client_name", &self.client_name)
            .field("client", &self.client)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scope", &self.scope)
            .field("client_credentials", &self.client_credentials)
            .field("can_sign_assertions", &self.can_sign_assertions)
            .field("dpop", &self.dpop)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("credentials_issuer", &self.credentials_issuer)
            .field("client_registered", &self.client_registered)
            .field("previous_scope", &self.previous_scope)
            .field(
                "workload_token",
                &self.workload_token.as_ref().map(|_| "<redacted>"),
            )
            .field("enterprise", &self.enterprise)
            .finish()
    }
}

impl OAuthConfig {
    /// A configuration with no client, no metadata document and no scope override.
    pub fn new(resource_url: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        OAuthConfig {
            resource_url: resource_url.into(),
            redirect_uri: redirect_uri.into(),
            client_name: "agentwire".into(),
            client: None,
            client_metadata_url: None,
            scope: None,
            client_credentials: false,
            can_sign_assertions: false,
            dpop: false,
            refresh_token: None,
            credentials_issuer: None,
            client_registered: false,
            previous_scope: None,
            workload_token: None,
            enterprise: None,
        }
    }
}

/// Randomness the host supplies (the core has none): PKCE verifier, `state` and `nonce` bytes.
#[derive(Clone)]
pub struct OAuthRandom {
    /// Becomes the PKCE `code_verifier` (base64url, 43 characters).
    pub verifier: [u8; 32],
    /// Becomes the `state` parameter.
    pub state: [u8; 16],
    /// Becomes the OpenID Connect `nonce` when signing in at an identity provider.
    pub nonce: [u8; 16],
}

/// What the host should do next.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OAuthStep {
    /// Perform this request (without following redirects) and report the whole response with
    /// [`OAuthFlow::handle_response`](super::OAuthFlow::handle_response).
    Request(HttpRequest),
    /// Send the user (or a headless agent) to `url`; report where the authorization server
    /// redirected to with [`OAuthFlow::handle_redirect`](super::OAuthFlow::handle_redirect).
    Authorize {
        /// The authorization request URL.
        url: String,
    },
    /// Perform this request with a DPoP proof (RFC 9449 §4) in its `DPoP` header, made for its
    /// method and URL with `nonce` when there is one ([`dpop::proof_signing_input`]), and
    /// report the response with [`OAuthFlow::handle_response`](super::OAuthFlow::handle_response).
    ///
    /// [`dpop::proof_signing_input`]: super::dpop::proof_signing_input
    ProofRequest {
        /// The token request, without its proof.
        request: HttpRequest,
        /// The nonce the authorization server asked proofs to carry.
        nonce: Option<String>,
    },
    /// Sign a client assertion (RFC 7523 §2.2, `private_key_jwt`) and hand the JWT to
    /// [`OAuthFlow::handle_assertion`](super::OAuthFlow::handle_assertion).
    SignAssertion {
        /// The `iss` and `sub` claims: the client id.
        client_id: String,
        /// The `aud` claim: the authorization server's issuer URL.
        audience: String,
    },
    /// The flow finished.
    Done(OAuthToken),
    /// The flow failed; the message names the URL or endpoint at fault.
    Failed(String),
}

/// The outcome of a successful flow.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthToken {
    /// The bearer token for the MCP server.
    pub access_token: String,
    /// A refresh token, when the server issued one.
    pub refresh_token: Option<String>,
    /// Lifetime in seconds, when the server said.
    pub expires_in: Option<u64>,
    /// The granted scope (as the server reported it, else as requested).
    pub scope: Option<String>,
    /// The client the token was issued to, for reuse by a later flow (step-up).
    pub client: OAuthClient,
    /// Whether [`client`](Self::client) was registered by a flow (dynamic registration or a
    /// metadata document) rather than pre-registered: then it belongs to
    /// [`issuer`](Self::issuer) only.
    pub client_registered: bool,
    /// The issuer of the authorization server that issued the token (its metadata's
    /// `issuer`, checked against the identifier it was discovered by). The refresh token and a
    /// registered client are bound to it.
    pub issuer: String,
    /// Bound to the host's DPoP key (`token_type` `DPoP`): sent as `Authorization: DPoP`, each
    /// request with a fresh proof, and useless to anyone without the key.
    pub dpop: bool,
}

impl fmt::Debug for OAuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print tokens.
        f.debug_struct("OAuthToken")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .field("client", &self.client)
            .field("client_registered", &self.client_registered)
            .field("issuer", &self.issuer)
            .field("dpop", &self.dpop)
            .finish()
    }
}
