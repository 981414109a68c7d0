//! A scripted authorization server: URL -> answer, and a user who approves at once.

use crate::mcp::http::{HttpMethod, HttpRequest};
use crate::mcp::oauth::{OAuthConfig, OAuthFlow, OAuthRandom, OAuthStep, OAuthToken, SplitUrl};
use serde_json::Value;
use std::collections::HashMap;

pub const MCP: &str = "https://mcp.example/mcp";
pub const AS: &str = "https://auth.example";
pub const PATH_PRM: &str = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
pub const ROOT_PRM: &str = "https://mcp.example/.well-known/oauth-protected-resource";
pub const REDIRECT: &str = "http://127.0.0.1:9/callback";

pub fn random() -> OAuthRandom {
    OAuthRandom {
        verifier: [7; 32],
        state: [9; 16],
        nonce: [5; 16],
    }
}

/// A scripted answer: status, headers and body.
pub type ScriptedAnswer = (u16, Vec<(String, String)>, Value);

pub struct Script {
    pub answers: HashMap<String, (u16, Vec<u8>)>,
    /// Answers for one `grant_type` at a token endpoint, before `answers`.
    pub grant_answers: HashMap<(String, String), (u16, Vec<u8>)>,
    /// Every request made, in order.
    pub requests: Vec<HttpRequest>,
    /// The authorization URLs visited.
    pub visited: Vec<String>,
    /// Rewrites the redirect (to test refusals, bad state, ...).
    pub redirect: fn(&str) -> String,
    /// The `(client_id, audience)` of every assertion the flow asked to sign.
    pub signed: Vec<(String, String)>,
    /// The host's signer: `(client_id, audience)` to the assertion handed back.
    pub sign: fn(&str, &str) -> String,
    /// The nonce of every DPoP proof the flow asked for, in order.
    pub proofs: Vec<Option<String>>,
    /// Answers to requests with a proof, in order, before the others.
    pub proof_answers: std::collections::VecDeque<ScriptedAnswer>,
}

/// A stand-in signer: a JWT-shaped string naming the claims (the core never checks a signature).
pub fn fake_sign(client_id: &str, audience: &str) -> String {
    let claims =
        crate::mcp::oauth::encoding::base64url(format!("{client_id}|{audience}").as_bytes());
    format!("h.{claims}.sig")
}

/// Approves at once: redirects with `code=the-code` and the request's `state`.
pub fn approve(url: &str) -> String {
    let state = SplitUrl::parse(url)
        .and_then(|u| u.query_param("state"))
        .unwrap_or_default();
    format!("{REDIRECT}?code=the-code&state={state}")
}

impl Script {
    pub fn new() -> Self {
        Script {
            answers: HashMap::new(),
            grant_answers: HashMap::new(),
            requests: Vec::new(),
            visited: Vec::new(),
            redirect: approve,
            signed: Vec::new(),
            sign: fake_sign,
            proofs: Vec::new(),
            proof_answers: std::collections::VecDeque::new(),
        }
    }

    pub fn answer(&mut self, url: &str, status: u16, body: Value) -> &mut Self {
        self.answers
            .insert(url.to_owned(), (status, body.to_string().into_bytes()));
        self
    }

    /// The answer at token endpoint `url` to the form `grant_type`.
    pub fn answer_grant(&mut self, url: &str, grant: &str, status: u16, body: Value) -> &mut Self {
        let key = (url.to_owned(), grant.to_owned());
        self.grant_answers
            .insert(key, (status, body.to_string().into_bytes()));
        self
    }

    /// PRM at the path-based location naming `AS`, AS metadata at the root location.
    pub fn standard(&mut self, server_extra: Value) -> &mut Self {
        self.answer(
            PATH_PRM,
            200,
            serde_json::json!({"resource": MCP, "authorization_servers": [AS]}),
        );
        let mut metadata = serde_json::json!({
            "issuer": AS,
            "authorization_endpoint": format!("{AS}/authorize"),
            "token_endpoint": format!("{AS}/token"),
            "registration_endpoint": format!("{AS}/register"),
        });
        for (k, v) in server_extra.as_object().into_iter().flatten() {
            metadata[k] = v.clone();
        }
        self.answer(
            &format!("{AS}/.well-known/oauth-authorization-server"),
            200,
            metadata,
        );
        self.answer(
            &format!("{AS}/register"),
            201,
            serde_json::json!({"client_id": "dyn-client", "client_secret": "dyn-secret"}),
        );
        self.answer(
            &format!("{AS}/token"),
            200,
            serde_json::json!({"access_token": "tok", "token_type": "Bearer", "expires_in": 60}),
        )
    }

    /// Runs a whole flow; unknown URLs answer 404.
    pub fn run(
        &mut self,
        config: OAuthConfig,
        challenge: Option<&str>,
    ) -> Result<OAuthToken, String> {
        let mut flow = OAuthFlow::new(config, challenge, random());
        let mut step = flow.start();
        for _ in 0..50 {
            step = match step {
                OAuthStep::Request(request) => {
                    let (status, body) = self.answer_to(&request);
                    self.requests.push(request);
                    flow.handle_response(status, &[], &body)
                }
                OAuthStep::ProofRequest { request, nonce } => {
                    self.proofs.push(nonce);
                    let (status, headers, body) = match self.proof_answers.pop_front() {
                        Some((status, headers, body)) => {
                            (status, headers, body.to_string().into_bytes())
                        }
                        None => {
                            let (status, body) = self.answer_to(&request);
                            (status, Vec::new(), body)
                        }
                    };
                    self.requests.push(request);
                    flow.handle_response(status, &headers, &body)
                }
                OAuthStep::Authorize { url } => {
                    let redirect = (self.redirect)(&url);
                    self.visited.push(url);
                    flow.handle_redirect(&redirect)
                }
                OAuthStep::SignAssertion {
                    client_id,
                    audience,
                } => {
                    let assertion = (self.sign)(&client_id, &audience);
                    self.signed.push((client_id, audience));
                    flow.handle_assertion(&assertion)
                }
                OAuthStep::Done(token) => return Ok(token),
                OAuthStep::Failed(message) => return Err(message),
            };
        }
        panic!("the flow did not finish");
    }

    /// The scripted answer to `request`: by grant, else by URL, else 404.
    fn answer_to(&self, request: &HttpRequest) -> (u16, Vec<u8>) {
        self.grant_answers
            .get(&(request.url.clone(), grant_type(request)))
            .or_else(|| self.answers.get(&request.url))
            .cloned()
            .unwrap_or((404, b"Not Found".to_vec()))
    }

    pub fn urls(&self) -> Vec<String> {
        self.requests.iter().map(|r| r.url.clone()).collect()
    }

    /// The request to `url` (the last one).
    pub fn request_to(&self, url: &str) -> &HttpRequest {
        self.requests
            .iter()
            .rev()
            .find(|r| r.url == url)
            .expect(url)
    }

    /// The form fields of the token request.
    pub fn token_form(&self) -> HashMap<String, String> {
        self.form_at(&format!("{AS}/token"))
    }

    /// The form fields of the (last) request to `url`.
    pub fn form_at(&self, url: &str) -> HashMap<String, String> {
        form_of(self.request_to(url))
    }

    /// A query parameter of the (last) authorization URL.
    pub fn authorize_param(&self, name: &str) -> Option<String> {
        SplitUrl::parse(self.visited.last()?)?.query_param(name)
    }
}

/// The form fields of a `POST`.
pub fn form_of(request: &HttpRequest) -> HashMap<String, String> {
    assert_eq!(request.method, HttpMethod::Post);
    let body = String::from_utf8(request.body.clone().unwrap()).unwrap();
    let url = SplitUrl::parse(&format!("http://x/?{body}")).unwrap();
    body.split('&')
        .map(|pair| pair.split('=').next().unwrap().to_owned())
        .map(|k| (k.clone(), url.query_param(&k).unwrap()))
        .collect()
}

/// The `grant_type` of a form `POST`, if any.
fn grant_type(request: &HttpRequest) -> String {
    let body = String::from_utf8_lossy(request.body.as_deref().unwrap_or_default()).into_owned();
    SplitUrl::parse(&format!("http://x/?{body}"))
        .and_then(|url| url.query_param("grant_type"))
        .unwrap_or_default()
}

pub fn config() -> OAuthConfig {
    OAuthConfig::new(MCP, REDIRECT)
}
