//! Request timeouts measure the server, not the user: while the transport authorizes (a user
//! taking their time on the consent page), neither the handshake nor a tool call times out,
//! even with timeouts far shorter than the consent.

mod common;

use agentwire::driver::McpClient;
use agentwire::mcp::http::HttpConfig;
use agentwire::mcp::{CallOptions, SessionConfig};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use agentwire_host::transport::oauth::{Authorizer, OAuthOptions};
use common::lib_host::{block_on, spawn_local};
use common::oauth_server::{count, OAuthServer};
use serde_json::json;
use std::time::Duration;

/// The consent takes three times as long as any timeout allows.
const CONSENT_MS: &str = "1500";
const TIMEOUT: Duration = Duration::from_millis(500);

#[test]
fn a_slow_consent_times_out_neither_the_handshake_nor_a_tool_call() {
    let server = OAuthServer::start_with_env(&[("AUTHORIZE_DELAY_MS", CONSENT_MS)]);
    let url = server.url.clone();
    let (first, second) = block_on(async {
        let options = OAuthOptions::new(Authorizer::Headless);
        let transport =
            HttpTransport::with_oauth(HttpConfig::new(url.as_str()), Some(options)).unwrap();
        let finished = transport.finished();
        let session = SessionConfig {
            initialize_timeout: TIMEOUT,
            request_timeout: TIMEOUT,
            ..SessionConfig::default()
        };
        // The first request is refused: the handshake waits for the consent.
        let (client, _) = McpClient::connect(session, transport, TokioClock, spawn_local)
            .await
            .expect("the handshake survives the consent");
        let whoami = || client.call_tool("whoami", json!({}), CallOptions::default());
        let first = whoami().await.expect("whoami").to_model_text();
        // Every token revoked: the next call needs the user again, in the middle of the call.
        revoke_everything_at(&url).await;
        let second = whoami()
            .await
            .expect("the call survives the consent")
            .to_model_text();
        client.close("done");
        let _ = tokio::time::timeout(Duration::from_secs(5), finished).await;
        (first, second)
    });
    assert_eq!(first, "called with at-1");
    assert_eq!(second, "called with at-2");
    assert_eq!(count(&server.stats(), "authorizations"), 2);
}

/// `POST /revoke?refresh=too` on the fixture at `mcp_url`: every token stops working, refresh
/// tokens too, so the next `401` needs the user again.
async fn revoke_everything_at(mcp_url: &str) {
    let url = mcp_url.replace("/mcp", "/revoke?refresh=too");
    let response = reqwest::Client::new().post(url).send().await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
}
