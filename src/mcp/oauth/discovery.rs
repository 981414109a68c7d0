//! Discovery: Protected Resource Metadata (RFC 9728), then authorization server metadata
//! (RFC 8414 / OpenID Connect Discovery), with the 2025-03-26 fallbacks.

use super::flow::{OAuthFlow, Phase, ServerMetadata};
use super::issuer::check_metadata_issuer;
use super::types::OAuthStep;
use super::url::SplitUrl;
use crate::json::quoted;
use crate::mcp::http::HttpMethod;
use serde_json::Value;

impl OAuthFlow {
    pub(super) fn next_metadata(&mut self) -> OAuthStep {
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

    pub(super) fn on_resource_metadata(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
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
                    "the protected resource metadata at {} names resource {resource}, not {}",
                    self.current,
                    self.config.resource_url,
                    resource = quoted(resource)
                ));
            }
            self.resource = resource.to_owned();
        }
        self.resource_scopes = string_list(json.get("scopes_supported"));
        self.tried.clear();
        // Kept exactly as named: the metadata's `issuer` must be this string (the well-known
        // URL drops a trailing `/` itself).
        self.begin_server_metadata(issuer)
    }

    fn begin_server_metadata(&mut self, issuer: String) -> OAuthStep {
        let Some(url) = SplitUrl::parse(&issuer) else {
            return self.fail(format!(
                "the authorization server {issuer} is not a URL",
                issuer = quoted(&issuer)
            ));
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

    pub(super) fn on_server_metadata(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
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
        let declared = text("issuer");
        // Only an issuer the resource named binds its metadata: without resource metadata
        // (2025-03-26), the origin is only where the server's own metadata is looked for,
        // and that metadata may well name an issuer below it.
        if !self.legacy {
            let checked = check_metadata_issuer(declared.as_deref(), &self.issuer, &self.current);
            if let Err(refusal) = checked {
                return self.fail(refusal);
            }
        }
        self.server = ServerMetadata {
            issuer: declared,
            authorization_endpoint: authorization,
            token_endpoint: token,
            registration_endpoint: text("registration_endpoint"),
            scopes_supported: string_list(json.get("scopes_supported")),
            auth_methods: string_list(json.get("token_endpoint_auth_methods_supported")),
            cimd_supported: json
                .get("client_id_metadata_document_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            iss_supported: json
                .get("authorization_response_iss_parameter_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            dpop: super::dpop::supports_dpop(&json),
        };
        self.choose_client()
    }
}

pub(super) fn string_list(value: Option<&Value>) -> Option<Vec<String>> {
    let list = value?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}
