//! Enterprise-managed authorization, or cross-app access (SEP-990; IETF draft "Identity
//! Assertion JWT Authorization Grant"): no browser and no consent screen, because the
//! enterprise's identity provider decides which apps may reach which servers.
//!
//! Two token requests replace the authorization step:
//! 1. at the identity provider, an RFC 8693 token exchange: the user's ID token in, an
//!    identity assertion grant (ID-JAG, a JWT addressed to the MCP server's authorization
//!    server and naming the MCP server as its resource) out;
//! 2. at the MCP server's authorization server, an RFC 7523 JWT bearer grant with that ID-JAG
//!    as the `assertion`, authenticated as the configured client, for the access token.

use super::encoding::form_encode;
use super::flow::{OAuthFlow, Phase};
use super::token::{basic_authorization, describe_answer, form_headers};
use super::types::{EnterpriseGrant, OAuthStep};
use crate::json::quoted;
use crate::mcp::http::HttpMethod;
use serde_json::Value;

/// RFC 8693's grant type.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of an OpenID Connect ID token (RFC 8693 §3).
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of an identity assertion JWT authorization grant.
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// RFC 7523's grant type: a JWT as the authorization grant.
const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

impl OAuthFlow {
    /// Step 1: asks the identity provider for an ID-JAG addressed to the authorization server
    /// just discovered, for the MCP server's resource and the chosen scope.
    pub(super) fn token_exchange_request(&mut self, grant: &EnterpriseGrant) -> OAuthStep {
        if self.client.is_none() {
            // The ID-JAG names the client it is for, and the authorization server checks the
            // client that presents it: there is no registering on the fly.
            return self.fail(format!(
                "cross-app access needs a client id registered at the authorization server {}: \
                 configure one",
                self.server_issuer()
            ));
        }
        let mut params = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            ("subject_token", grant.id_token.clone()),
            ("subject_token_type", ID_TOKEN.to_owned()),
            ("audience", self.server_issuer()),
            ("resource", self.resource.clone()),
        ];
        if let Some(scope) = &self.scope {
            params.push(("scope", scope.clone()));
        }
        let mut headers = form_headers();
        match &grant.idp_client_secret {
            Some(secret) => headers.push(basic_authorization(&grant.idp_client_id, secret)),
            None => params.push(("client_id", grant.idp_client_id.clone())),
        }
        let pairs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let body = form_encode(&pairs).into_bytes();
        self.phase = Phase::TokenExchange;
        self.current = grant.idp_token_endpoint.clone();
        let url = self.current.clone();
        self.request(HttpMethod::Post, url, headers, Some(body))
    }

    /// Step 2: the identity provider's answer; an ID-JAG goes to the authorization server's
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
