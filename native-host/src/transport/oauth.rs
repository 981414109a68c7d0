//! OAuth for remote MCP servers: runs the core's [`OAuthFlow`] with reqwest, and gets the user
//! (or a headless stand-in) through the authorization step.

use crate::transport::dpop::DpopKey;
use crate::transport::http_request::{header_pairs, to_reqwest};
use crate::transport::jwt::AssertionKey;
use crate::transport::token_store::{unix_now, StoredToken, TokenStore};
use agentwire::mcp::http::HttpRequest;
use agentwire::mcp::oauth::dpop::{ProofFor, DPOP_HEADER};
use agentwire::mcp::oauth::{OAuthConfig, OAuthFlow, OAuthRandom, OAuthStep, OAuthToken};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long the browser flow waits for the user to come back.
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(300);
/// How long each OAuth HTTP request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How the authorization step reaches the user.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Authorizer {
    /// For tests and automation: `GET` the authorization URL without following redirects and
    /// take its `Location` as the redirect (works with servers that approve at once).
    Headless,
    /// Print the URL to stderr, try to open a browser, and catch the redirect on
    /// `http://127.0.0.1:<random port>/callback`.
    Browser,
}

/// OAuth settings for an HTTP MCP server.
#[derive(Clone)]
pub struct OAuthOptions {
    /// How the user authorizes.
    pub authorizer: Authorizer,
    /// The flow's settings (client name, pre-registered client, metadata document URL, scope,
    /// grant, refresh token). Its `resource_url` and `redirect_uri` are filled in by each
    /// authorization: the server that asked, and where this host catches the redirect.
    pub config: OAuthConfig,
    /// Where tokens are kept between runs; `None` keeps them in memory only.
    pub store: Option<TokenStore>,
    /// The client's EC P-256 private key (PEM), to sign `private_key_jwt` assertions.
    pub private_key: Option<String>,
    /// This process's DPoP key (made with the options, shared by their clones): token
    /// requests carry its proofs where the authorization server takes them, and so does every
    /// request that presents a token bound to it. `None` when no key could be made.
    pub dpop: Option<Arc<DpopKey>>,
}

impl fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key (the config redacts its own secrets).
        f.debug_struct("OAuthOptions")
            .field("authorizer", &self.authorizer)
            .field("config", &self.config)
            .field("store", &self.store)
            .field(
                "private_key",
                &self.private_key.as_ref().map(|_| "<redacted>"),
            )
            .field("dpop", &self.dpop)
            .finish()
    }
}

impl OAuthOptions {
    /// Dynamic registration as `agentwire`, with `authorizer`.
    pub fn new(authorizer: Authorizer) -> Self {
        OAuthOptions {
            authorizer,
            config: OAuthConfig::new("", ""),
            store: None,
            private_key: None,
            dpop: DpopKey::generate().ok().map(Arc::new),
        }
    }

    /// Takes what `store` holds for the server at `url`: its client and refresh token, for
    /// the flow to try first (bound to the issuer that issued them: the flow lends them to no
    /// other authorization server), and the access token when it is still fresh, for the
    /// caller to send from the start. Entries of another client than the configured one are
    /// ignored (their refresh token would be refused); an entry that names no issuer (written
    /// by an older version) lends only its access token, since nothing says where its
    /// credentials may go.
    pub fn restore(&mut self, url: &str) -> Option<String> {
        let stored = self.store.as_ref()?.load(url)?;
        if let Some(client) = &self.config.client {
            if client.client_id != stored.client.client_id {
                return None;
            }
        }
        let access_token = stored
            .is_fresh(unix_now())
            .then(|| stored.access_token.clone());
        let Some(issuer) = stored.issuer else {
            return access_token;
        };
        if self.config.client.is_none() {
            self.config.client = Some(stored.client);
            self.config.client_registered = stored.client_registered;
        }
        self.config.refresh_token = stored.refresh_token;
        self.config.credentials_issuer = Some(issuer);
        access_token
    }

    /// Takes in what an authorization gave: the client it used (when it registered one, or
    /// none was configured), its refresh token (a refresh may leave the earlier one in force,
    /// at the same issuer only), the issuer they are bound to, and its scope for a later
    /// step-up. `token` ends up with the refresh token in force, as it is to be remembered.
    pub fn adopt(&mut self, token: &mut OAuthToken) {
        let config = &mut self.config;
        let same_issuer = config.credentials_issuer.as_deref() == Some(token.issuer.as_str());
        if token.client_registered || config.client.is_none() {
            config.client = Some(token.client.clone());
            config.client_registered = token.client_registered;
        }
        match &token.refresh_token {
            Some(fresh) => config.refresh_token = Some(fresh.clone()),
            None if same_issuer => token.refresh_token.clone_from(&config.refresh_token),
            None => config.refresh_token = None,
        }
        config.credentials_issuer = Some(token.issuer.clone());
        config.previous_scope.clone_from(&token.scope);
    }

    /// Keeps `token` for the server at `url` in the store, if there is one. A store that
    /// cannot be written costs only the convenience: the error goes to stderr.
    pub fn remember(&self, url: &str, token: &OAuthToken) {
        let Some(store) = &self.store else {
            return;
        };
        // A DPoP-bound token is useless without this process's key, which is never written.
        if token.dpop {
            return;
        }
        if let Err(error) = store.save(url, &StoredToken::from_token(token, unix_now())) {
            crate::errln!(
                "warning: the OAuth token for {} is not kept for the next run: {error}",
                crate::os::display_url::for_display(url)
            );
        }
    }
}

/// Runs one authorization for the MCP server at `resource_url` that answered with the
/// challenge `www_authenticate`. Returns the token or an error naming what failed.
pub async fn authorize(
    options: &OAuthOptions,
    resource_url: &str,
    www_authenticate: Option<&str>,
) -> Result<OAuthToken, String> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(REQUEST_TIMEOUT)
        .build()
        .map_err(|e| format!("could not set up an HTTP client for OAuth: {e}"))?;
    let mut random = OAuthRandom {
        verifier: [0; 32],
        state: [0; 16],
        nonce: [0; 16],
    };
    getrandom::fill(&mut random.verifier)
        .and_then(|_| getrandom::fill(&mut random.state))
        .and_then(|_| getrandom::fill(&mut random.nonce))
        .map_err(|e| format!("no randomness for OAuth: {e}"))?;
    // The browser flow needs its listener before the redirect URI exists.
    let listener = match options.authorizer {
        Authorizer::Browser => Some(
            tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| format!("could not listen for the OAuth redirect: {e}"))?,
        ),
        Authorizer::Headless => None,
    };
    let redirect_uri = match &listener {
        Some(listener) => {
            let port = listener.local_addr().map_err(|e| e.to_string())?.port();
            format!("http://127.0.0.1:{port}/callback")
        }
        None => "http://localhost:3000/callback".to_owned(),
    };
    let config = OAuthConfig {
        resource_url: resource_url.to_owned(),
        redirect_uri,
        can_sign_assertions: options.config.can_sign_assertions || options.private_key.is_some(),
        dpop: options.dpop.is_some(),
        ..options.config.clone()
    };
    let mut flow = OAuthFlow::new(config, www_authenticate, random);
    let mut step = flow.start();
    loop {
        step = match step {
            OAuthStep::Request(request) => {
                let (status, headers, body) = perform(&client, request).await?;
                flow.handle_response(status, &headers, &body)
            }
            OAuthStep::ProofRequest { mut request, nonce } => {
                let key = options.dpop.as_ref().ok_or(
                    "the OAuth flow asked for a DPoP proof, but this host has no DPoP key",
                )?;
                let proof = key.proof(&ProofFor {
                    method: "POST",
                    url: &request.url,
                    access_token: None,
                    nonce: nonce.as_deref(),
                })?;
                request.headers.push((DPOP_HEADER.to_owned(), proof));
                let (status, headers, body) = perform(&client, request).await?;
                flow.handle_response(status, &headers, &body)
            }
            OAuthStep::Authorize { url } => {
                // The URL comes from the authorization server: only https (or http to this
                // machine) goes to a browser or a request.
                let url = crate::transport::browser_open::checked(&url).map_err(|why| {
                    format!(
                        "the authorization server of {} asks to open {why}; refused",
                        crate::os::display_url::for_display(resource_url)
                    )
                })?;
                let redirect = match &listener {
                    Some(listener) => browser(listener, &url, true).await?,
                    None => headless(&client, &url).await?,
                };
                flow.handle_redirect(&redirect)
            }
            OAuthStep::SignAssertion {
                client_id,
                audience,
            } => {
                let assertion = sign_assertion(options, &client_id, &audience)?;
                flow.handle_assertion(&assertion)
            }
            OAuthStep::Done(token) => return Ok(token),
            OAuthStep::Failed(message) => return Err(message),
            other => return Err(format!("unexpected OAuth step {other:?}")),
        };
    }
}

/// A `private_key_jwt` client assertion signed with the configured key.
fn sign_assertion(
    options: &OAuthOptions,
    client_id: &str,
    audience: &str,
) -> Result<String, String> {
    let Some(pem) = &options.private_key else {
        return Err(format!(
            "the authorization server {audience} wants client {client_id} to authenticate with \
             private_key_jwt, but no private key is configured (oauth.privateKey)"
        ));
    };
    AssertionKey::from_pem(pem)?.sign_now(client_id, audience)
}

async fn perform(
    client: &reqwest::Client,
    request: HttpRequest,
) -> Result<(u16, Vec<(String, String)>, Vec<u8>), String> {
    let url = request.url.clone();
    let response = to_reqwest(client, request)?
        .send()
        .await
        .map_err(|e| format!("OAuth request to {url} failed: {e}"))?;
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("OAuth response from {url} broke off: {e}"))?;
    Ok((status, headers, body.to_vec()))
}

/// `GET`s the authorization URL and returns where it redirects.
async fn headless(client: &reqwest::Client, url: &str) -> Result<String, String> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| format!("the authorization endpoint failed: {e}"))?;
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .map(str::to_owned);
    let endpoint = url.split('?').next().unwrap_or(url);
    match location {
        Some(location) if (300..400).contains(&status) => reqwest::Url::parse(url)
            .and_then(|base| base.join(&location))
            .map(|u| u.to_string())
            .map_err(|e| format!("bad redirect from {endpoint}: {e}")),
        _ => Err(format!(
            "the authorization endpoint {endpoint} answered HTTP {status} without a redirect; \
             it needs a user in a browser"
        )),
    }
}

/// Shows the URL, opens a browser if asked (and it can), and waits for the redirect to our
/// listener.
async fn browser(
    listener: &tokio::net::TcpListener,
    url: &str,
    open_browser: bool,
) -> Result<String, String> {
    crate::errln!("To authorize agentwire, open this URL in a browser:\n  {url}");
    if open_browser {
        crate::transport::browser_open::open(url);
    }
    let wait = async {
        loop {
            let (mut socket, _) = listener
                .accept()
                .await
                .map_err(|e| format!("waiting for the OAuth redirect failed: {e}"))?;
            let mut buffer = vec![0u8; 8192];
            let read = socket.read(&mut buffer).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buffer[..read]).into_owned();
            let target = head
                .lines()
                .next()
                .and_then(|line| line.split_whitespace().nth(1))
                .unwrap_or("")
                .to_owned();
            if !target.starts_with("/callback") {
                let _ = socket
                    .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    .await;
                continue;
            }
            let page = "agentwire: authorization received, you may close this tab.";
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = socket.write_all(reply.as_bytes()).await;
            let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
            return Ok(format!("http://127.0.0.1:{port}{target}"));
        }
    };
    tokio::time::timeout(BROWSER_TIMEOUT, wait)
        .await
        .map_err(|_| {
            "nobody completed the authorization in the browser within 5 minutes".to_owned()
        })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::{TcpListener, TcpStream};

    /// Sends `request` to `addr` and returns the whole answer.
    async fn ask(addr: std::net::SocketAddr, request: &str) -> String {
        let mut socket = TcpStream::connect(addr).await.unwrap();
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[test]
    fn a_dpop_bound_token_is_never_written_to_the_store() {
        let dir = std::env::temp_dir().join(format!("aw-dpop-store-{}", std::process::id()));
        let mut options = OAuthOptions::new(Authorizer::Headless);
        assert!(options.dpop.is_some(), "every set of options has its key");
        options.store = Some(TokenStore::at(dir.join("tokens.json")));
        let mut token = OAuthToken {
            access_token: "bound".into(),
            refresh_token: Some("rt".into()),
            expires_in: Some(3600),
            scope: None,
            client: agentwire::mcp::oauth::OAuthClient {
                client_id: "c".into(),
                client_secret: None,
                auth_method: None,
            },
            client_registered: true,
            issuer: "https://auth.example".into(),
            dpop: true,
        };
        let url = "https://mcp.example/mcp";
        options.remember(url, &token);
        assert!(options.store.as_ref().unwrap().load(url).is_none());
        token.dpop = false;
        options.remember(url, &token);
        assert_eq!(
            options
                .store
                .as_ref()
                .unwrap()
                .load(url)
                .unwrap()
                .access_token,
            "bound"
        );
        // Clones share the key, so a token bound by one is usable by the others.
        let clone = options.clone();
        assert!(Arc::ptr_eq(
            options.dpop.as_ref().unwrap(),
            clone.dpop.as_ref().unwrap()
        ));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_assertion_without_a_key_names_the_setting() {
        let options = OAuthOptions::new(Authorizer::Headless);
        let error = sign_assertion(&options, "svc", "https://auth.example").unwrap_err();
        assert!(error.contains("oauth.privateKey"), "{error}");
        assert!(
            error.contains("svc") && error.contains("https://auth.example"),
            "{error}"
        );
        let mut options = options;
        options.private_key = Some("not a key".into());
        let error = sign_assertion(&options, "svc", "https://auth.example").unwrap_err();
        assert!(error.contains("is not PEM text"), "{error}");
        assert!(!format!("{options:?}").contains("not a key"));
    }

    #[tokio::test]
    async fn the_browser_redirect_is_caught_on_the_callback_path() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let user = tokio::spawn(async move {
            let stray = ask(addr, "GET /favicon.ico HTTP/1.1\r\n\r\n").await;
            assert!(stray.starts_with("HTTP/1.1 404"), "{stray}");
            ask(
                addr,
                "GET /callback?code=c&state=s HTTP/1.1\r\nHost: x\r\n\r\n",
            )
            .await
        });
        let redirect = browser(&listener, "https://auth.example/authorize?x", false)
            .await
            .unwrap();
        assert_eq!(
            redirect,
            format!("http://127.0.0.1:{}/callback?code=c&state=s", addr.port())
        );
        assert!(user.await.unwrap().contains("authorization received"));
    }

    #[tokio::test]
    async fn headless_authorization_reads_the_location_without_following_it() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            for location in [Some("/callback?code=c&state=s"), None] {
                let (mut socket, _) = listener.accept().await.unwrap();
                let mut buffer = vec![0u8; 4096];
                let _ = socket.read(&mut buffer).await.unwrap();
                let answer = match location {
                    Some(l) => format!(
                        "HTTP/1.1 302 Found\r\nLocation: {l}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    ),
                    None => "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_owned(),
                };
                socket.write_all(answer.as_bytes()).await.unwrap();
            }
        });
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let url = format!("http://{addr}/authorize?client_id=x");
        let redirect = headless(&client, &url).await.unwrap();
        assert_eq!(redirect, format!("http://{addr}/callback?code=c&state=s"));
        let error = headless(&client, &url).await.unwrap_err();
        assert!(
            error.contains("answered HTTP 200 without a redirect"),
            "{error}"
        );
        assert!(
            error.contains(&format!("http://{addr}/authorize")),
            "{error}"
        );
        assert!(!error.contains("client_id"), "{error}");
        server.await.unwrap();
    }
}
