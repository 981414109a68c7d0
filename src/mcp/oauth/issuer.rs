//! Issuer checks (MCP authorization, 2026-07-28): the metadata must be the issuer's own
//! (RFC 8414 §3.3), the authorization response must come from it (RFC 9207), and credentials
//! obtained from one authorization server are never presented to another (SEP-2352).
//!
//! Issuers are compared as strings, exactly: no case folding, no default-port elision, no
//! trailing-slash or percent-encoding normalisation (RFC 9207 §2.4 refers to RFC 3986 §6.2.1
//! simple string comparison), so a look-alike issuer is never taken for the real one.

use super::flow::OAuthFlow;
use crate::json::quoted;

/// Checks the `issuer` that the authorization server metadata at `url` declares against
/// `expected`, the issuer identifier the well-known URL was built from (RFC 8414 §3.3, OpenID
/// Connect Discovery §4.3). Metadata without an `issuer` is taken as the expected issuer's: it
/// claims no other.
pub(super) fn check_metadata_issuer(
    declared: Option<&str>,
    expected: &str,
    url: &str,
) -> Result<(), String> {
    match declared {
        Some(declared) if declared != expected => Err(format!(
            "the authorization server metadata at {url} is for issuer {}, not {}, the issuer it \
             was looked up for: refusing it (RFC 8414 §3.3)",
            quoted(declared),
            quoted(expected)
        )),
        _ => Ok(()),
    }
}

/// Checks the `iss` parameter of an authorization response from `endpoint` against the
/// authorization server's `issuer` (RFC 9207 §2.4): a present `iss` must be that very string,
/// whether or not the server `advertised` the parameter; an absent one is refused only when
/// it did.
pub(super) fn check_response_issuer(
    iss: Option<&str>,
    issuer: &str,
    advertised: bool,
    endpoint: &str,
) -> Result<(), String> {
    match iss {
        Some(iss) if iss != issuer => Err(format!(
            "the authorization response from {endpoint} was issued by {}, not {}: refusing it \
             (a mix-up, RFC 9207)",
            quoted(iss),
            quoted(issuer)
        )),
        None if advertised => Err(format!(
            "the authorization response from {endpoint} carries no `iss`, though {} says it \
             always does: refusing it (RFC 9207)",
            quoted(issuer)
        )),
        _ => Ok(()),
    }
}

impl OAuthFlow {
    /// Forgets the credentials of another authorization server than the one discovered now
    /// (SEP-2352): its refresh token, and its client when that was registered there rather
    /// than pre-registered. The flow then registers anew.
    pub(super) fn drop_foreign_credentials(&mut self) {
        let Some(bound) = &self.config.credentials_issuer else {
            return;
        };
        if *bound == self.server_issuer() {
            return;
        }
        self.config.refresh_token = None;
        if self.client_registered {
            self.client = None;
            self.client_registered = false;
        }
    }
}
