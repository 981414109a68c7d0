//! The token endpoint: authorization code, client credentials and refresh grants, with the
//! client's authentication (`none`, `client_secret_post`, `client_secret_basic`).

use super::encoding::{base64_standard, form_encode, percent_encode};
use super::flow::{OAuthFlow, Phase};
use super::types::{OAuthClient, OAuthStep, OAuthToken};
use crate::json::quoted;
use crate::mcp::http::HttpMethod;
use serde_json::Value;

impl OAuthFlow {
    pub(super) fn token_request(&mut self, code: &str) -> OAuthStep {
        let grant = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code.to_owned()),
            ("redirect_uri".to_owned(), self.config.redirect_uri.clone()),
            ("code_verifier".to_owned(), self.verifier.clone()),
            ("resource".to_owned(), self.resource.clone()),
        ];
        self.post_token(grant)
    }

    pub(super) fn client_credentials_request(&mut self) -> OAuthStep {
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
    pub(super) fn post_token(&mut self, mut params: Vec<(String, String)>) -> OAuthStep {
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
    pub(super) fn on_refresh(&mut self, status: u16, json: Option<Value>) -> OAuthStep {
        let fresh = json
            .as_ref()
            .and_then(|j| j.get("access_token"))
            .is_some_and(Value::is_string);
        if status == 200 && fresh {
            return self.on_token(status, json, &[]);
        }
        self.choose_client()
    }

    pub(super) fn on_token(&mut self, status: u16, json: Option<Value>, body: &[u8]) -> OAuthStep {
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
                "the token endpoint {} issued a {token_type} token; only Bearer is supported",
                self.current,
                token_type = quoted(&token_type)
            )),
            _ => self.fail(format!(
                "the token endpoint {} refused: {}",
                self.current,
                describe_answer(status, body)
            )),
        }
    }
}

/// `HTTP 400: invalid_client (bad secret)` from an OAuth error answer; never echoes tokens
/// because only the `error` fields (or a short non-JSON excerpt) are quoted.
pub(super) fn describe_answer(status: u16, body: &[u8]) -> String {
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
