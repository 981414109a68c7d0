//! The `oauth` field of an `http` server (agentwire extension): `true`, or an object for
//! servers that need more than dynamic registration, such as a pre-registered client.

use super::EntryCtx;
use crate::mcp::oauth::EnterpriseGrant;
use serde_json::{Map, Value};
use std::fmt;

/// Fields of an `"oauth": {...}` object.
const OAUTH_FIELDS: [&str; 7] = [
    "clientId",
    "clientSecret",
    "privateKey",
    "scope",
    "clientCredentials",
    "storeTokens",
    "enterprise",
];

/// Fields of `"oauth": {"enterprise": {...}}` (cross-app access).
const ENTERPRISE_FIELDS: [&str; 5] = [
    "idpIssuer",
    "idpTokenEndpoint",
    "idToken",
    "idpClientId",
    "idpClientSecret",
];

/// How agentwire authorizes with an `http` server that answers `401` (MCP authorization).
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A pre-registered client id, for authorization servers without dynamic registration.
    pub client_id: Option<String>,
    /// Its secret, for a confidential client (write it as `${VAR}`, not in the file).
    pub client_secret: Option<String>,
    /// An EC P-256 private key in PEM (write it as `${VAR}`): the client authenticates with a
    /// signed JWT (`private_key_jwt`, ES256) instead of a secret.
    pub private_key: Option<String>,
    /// Scopes to request instead of the server's hints (space-separated).
    pub scope: Option<String>,
    /// Use the `client_credentials` grant (machine to machine, no browser): needs `clientId`
    /// and `clientSecret` or `privateKey`.
    pub client_credentials: bool,
    /// Keep tokens between runs (the host's token store); `"storeTokens": false` keeps them
    /// in memory only, so every run authorizes anew.
    pub store_tokens: bool,
    /// Cross-app access: the enterprise identity provider's token exchange replaces the
    /// browser (needs `clientId` at the server's authorization server).
    pub enterprise: Option<EnterpriseGrant>,
}

impl Default for OAuthSettings {
    fn default() -> Self {
        OAuthSettings {
            client_id: None,
            client_secret: None,
            private_key: None,
            scope: None,
            client_credentials: false,
            store_tokens: true,
            enterprise: None,
        }
    }
}

impl fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret or the key.
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "private_key",
                &self.private_key.as_ref().map(|_| "<redacted>"),
            )
            .field("scope", &self.scope)
            .field("client_credentials", &self.client_credentials)
            .field("store_tokens", &self.store_tokens)
            .field("enterprise", &self.enterprise)
            .finish()
    }
}

impl EntryCtx<'_> {
    /// Reads `oauth`: absent, `null` or `false` (off), `true` (defaults), or an object.
    pub(super) fn oauth(
        &mut self,
        map: &Map<String, Value>,
    ) -> Result<Option<OAuthSettings>, super::ConfigError> {
        let object = match map.get("oauth") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
            Some(Value::Bool(true)) => return Ok(Some(OAuthSettings::default())),
            Some(Value::Object(object)) => object,
            Some(_) => {
                return Err(self.err(
                    Some("oauth"),
                    "\"oauth\" must be true, false or an object".into(),
                ))
            }
        };
        self.warn_unknown_fields(object, "oauth", &OAUTH_FIELDS);
        let text = |ctx: &Self, key: &str| ctx.string_field(object, "oauth", key);
        let flag = |ctx: &Self, key: &str, default: bool| -> Result<bool, super::ConfigError> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => {
                    let field = format!("oauth.{key}");
                    Err(ctx.err(Some(&field), format!("\"{field}\" must be a boolean")))
                }
            }
        };
        let settings = OAuthSettings {
            client_id: text(self, "clientId")?,
            client_secret: text(self, "clientSecret")?,
            private_key: text(self, "privateKey")?,
            scope: text(self, "scope")?,
            client_credentials: flag(self, "clientCredentials", false)?,
            store_tokens: flag(self, "storeTokens", true)?,
            enterprise: self.enterprise(object)?,
        };
        if settings.client_secret.is_some() && settings.client_id.is_none() {
            return Err(self.err(
                Some("oauth.clientSecret"),
                "\"oauth.clientSecret\" needs \"oauth.clientId\"".into(),
            ));
        }
        if settings.private_key.is_some() && settings.client_id.is_none() {
            return Err(self.err(
                Some("oauth.privateKey"),
                "\"oauth.privateKey\" needs \"oauth.clientId\"".into(),
            ));
        }
        if let Some(key) = &settings.private_key {
            // Catch a variable holding something else (a path, a public key) early; the host
            // parses the key itself when it signs.
            if !key.contains("-----BEGIN") || !key.contains("PRIVATE KEY-----") {
                return Err(self.err(
                    Some("oauth.privateKey"),
                    "\"oauth.privateKey\" must be the PEM text of a private key \
                     (-----BEGIN PRIVATE KEY-----...), not a path or a public key"
                        .into(),
                ));
            }
        }
        if settings.enterprise.is_some() {
            if settings.client_id.is_none() {
                return Err(self.err(
                    Some("oauth.enterprise"),
                    "\"oauth.enterprise\" needs \"oauth.clientId\": the client registered at \
                     the server's authorization server"
                        .into(),
                ));
            }
            if settings.client_credentials {
                return Err(self.err(
                    Some("oauth.enterprise"),
                    "\"oauth.enterprise\" and \"oauth.clientCredentials\" are two different \
                     grants: keep one"
                        .into(),
                ));
            }
        }
        if settings.client_credentials
            && settings.client_secret.is_none()
            && settings.private_key.is_none()
        {
            return Err(self.err(
                Some("oauth.clientCredentials"),
                "\"oauth.clientCredentials\" needs \"oauth.clientId\" and \"oauth.clientSecret\" \
                 or \"oauth.privateKey\""
                    .into(),
            ));
        }
        Ok(Some(settings))
    }

    /// Reads `oauth.enterprise`: absent or `null` (off), else an object naming the identity
    /// provider (its issuer, or its token endpoint and the user's ID token) and this app's
    /// client there.
    fn enterprise(
        &mut self,
        oauth: &Map<String, Value>,
    ) -> Result<Option<EnterpriseGrant>, super::ConfigError> {
        let object = match oauth.get("enterprise") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(object)) => object,
            Some(_) => {
                return Err(self.err(
                    Some("oauth.enterprise"),
                    "\"oauth.enterprise\" must be an object".into(),
                ))
            }
        };
        self.warn_unknown_fields(object, "oauth.enterprise", &ENTERPRISE_FIELDS);
        // An empty value (a variable set to "") counts as missing.
        let optional = |ctx: &Self, key: &str| -> Result<Option<String>, super::ConfigError> {
            Ok(ctx
                .string_field(object, "oauth.enterprise", key)?
                .filter(|value| !value.trim().is_empty()))
        };
        let idp_client_id = optional(self, "idpClientId")?.ok_or_else(|| {
            self.err(
                Some("oauth.enterprise.idpClientId"),
                "\"oauth.enterprise.idpClientId\" is required".into(),
            )
        })?;
        let grant = EnterpriseGrant {
            idp_issuer: optional(self, "idpIssuer")?,
            idp_token_endpoint: optional(self, "idpTokenEndpoint")?,
            id_token: optional(self, "idToken")?,
            idp_client_id,
            idp_client_secret: self.string_field(object, "oauth.enterprise", "idpClientSecret")?,
        };
        let ready = grant.idp_issuer.is_some()
            || (grant.id_token.is_some() && grant.idp_token_endpoint.is_some());
        if !ready {
            return Err(self.err(
                Some("oauth.enterprise"),
                "\"oauth.enterprise\" needs \"idpIssuer\" (to sign in at the identity \
                 provider), or \"idToken\" and \"idpTokenEndpoint\""
                    .into(),
            ));
        }
        for (key, url) in [
            ("idpIssuer", &grant.idp_issuer),
            ("idpTokenEndpoint", &grant.idp_token_endpoint),
        ] {
            let Some(url) = url else { continue };
            if !url.starts_with("https://") && !url.starts_with("http://") {
                let field = format!("oauth.enterprise.{key}");
                return Err(self.err(
                    Some(&field),
                    format!("\"{field}\" must start with http:// or https:// (got {url})"),
                ));
            }
        }
        Ok(Some(grant))
    }

    /// Warns about each field of `object` (named `{prefix}.{field}`) that is not in `known`:
    /// a typo should not silently turn a setting off, nor fail the whole file.
    fn warn_unknown_fields(&mut self, object: &Map<String, Value>, prefix: &str, known: &[&str]) {
        for key in object.keys() {
            if !known.contains(&key.as_str()) {
                self.warn(format!(
                    "unknown field \"{prefix}.{key}\" ignored (known: {})",
                    known.join(", ")
                ));
            }
        }
    }

    /// The string `object[key]` with `${VAR}`s expanded, named `{prefix}.{key}` in errors.
    fn string_field(
        &self,
        object: &Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Result<Option<String>, super::ConfigError> {
        let field = format!("{prefix}.{key}");
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => self.expand(&field, s).map(Some),
            Some(_) => Err(self.err(Some(&field), format!("\"{field}\" must be a string"))),
        }
    }
}
