//! OAuth 2.1 authorization for remote MCP servers (MCP authorization, spec 2025-11-25), as a
//! sans-IO machine.
//!
//! When a Streamable HTTP server answers `401`/`403` (see
//! [`HttpEvent::AuthorizationRequired`](crate::mcp::http::HttpEvent::AuthorizationRequired)),
//! the host runs an [`OAuthFlow`]: it discovers the Protected Resource Metadata (RFC 9728) and
//! the authorization server metadata (RFC 8414 / OpenID Connect Discovery), registers a client
//! (pre-registered, Client ID Metadata Document, or RFC 7591 dynamic registration), asks the
//! host to send the user to the authorization URL (PKCE S256, `state`, RFC 8707 `resource`),
//! takes the redirect back, and exchanges the code for a token. Machine clients use the
//! `client_credentials` grant instead; enterprise clients trade the user's ID token for an
//! identity assertion grant at their identity provider (cross-app access, SEP-990). Every HTTP request is handed to
//! the host as data; the host also supplies the randomness ([`OAuthRandom`]).

mod challenge;
mod client;
mod discovery;
pub mod dpop;
pub mod encoding;
mod enterprise;
mod flow;
mod issuer;
mod token;
mod types;
mod url;

pub use challenge::BearerChallenge;
pub use flow::OAuthFlow;
pub use types::{EnterpriseGrant, OAuthClient, OAuthConfig, OAuthRandom, OAuthStep, OAuthToken};
pub use url::SplitUrl;

#[cfg(test)]
mod tests;
