//! The OAuth fixture server (`fixtures/oauth-server.mjs`): an MCP server with its own
//! authorization server and a stand-in enterprise identity provider, started per test.

use super::lib_host::{block_on, spawn_local};
use agentwire::driver::McpClient;
use agentwire::mcp::http::HttpConfig;
use agentwire::mcp::{CallOptions, SessionConfig};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use agentwire_host::transport::oauth::OAuthOptions;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The fixture server process; killed on drop.
pub struct OAuthServer {
    child: Child,
    /// The MCP endpoint, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
}

impl OAuthServer {
    /// Starts the server and waits for its address.
    pub fn start() -> Self {
        Self::start_with_env(&[])
    }

    /// Like [`start`](Self::start), with extra environment (such as `AUTHORIZE_DELAY_MS`).
    pub fn start_with_env(env: &[(&str, &str)]) -> Self {
        let mut child = Command::new("node")
            .arg(super::fixture("oauth-server.mjs"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the OAuth fixture server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("its stdout"))
            .read_line(&mut line)
            .expect("its address");
        let hello: Value = serde_json::from_str(&line).expect("a JSON line with the address");
        let url = hello["url"].as_str().expect("the url").to_owned();
        OAuthServer { child, url }
    }

    fn admin(&self, method: reqwest::Method, path: &str) -> Value {
        let url = self.url.replace("/mcp", path);
        block_on(async move {
            let response = reqwest::Client::new()
                .request(method, url)
                .send()
                .await
                .expect("the fixture answers");
            response.json().await.expect("JSON")
        })
    }

    /// What the server counted so far (see the fixture's header).
    pub fn stats(&self) -> Value {
        self.admin(reqwest::Method::GET, "/stats")
    }

    /// The resource moves to the fixture's second authorization server (issuer
    /// `<base>/as2`); access tokens issued so far stop working.
    pub fn migrate_authorization_server(&self) {
        self.admin(reqwest::Method::POST, "/migrate");
    }

    /// Every access token issued so far stops working; refresh tokens still do.
    pub fn revoke_access_tokens(&self) {
        self.admin(reqwest::Method::POST, "/revoke");
    }
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The counter `key` of a `/stats` answer.
pub fn count(stats: &Value, key: &str) -> u64 {
    stats[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {stats}"))
}

/// Connects to the MCP server at `url` with `options`, calls `whoami`, closes. Returns the
/// tool's text, which names the access token the server saw.
pub fn whoami_with(url: &str, options: OAuthOptions) -> String {
    let url = url.to_owned();
    block_on(async move {
        let transport =
            HttpTransport::with_oauth(HttpConfig::new(url.as_str()), Some(options)).unwrap();
        let finished = transport.finished();
        let session = SessionConfig {
            initialize_timeout: Duration::from_secs(20),
            ..SessionConfig::default()
        };
        let (client, _) = McpClient::connect(session, transport, TokioClock, spawn_local)
            .await
            .expect("the handshake, authorized");
        let output = client
            .call_tool("whoami", json!({}), CallOptions::default())
            .await
            .expect("whoami");
        client.close("run finished");
        let _ = tokio::time::timeout(Duration::from_secs(5), finished).await;
        output.to_model_text()
    })
}
