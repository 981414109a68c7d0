//! `HttpTransport` against canned HTTP answers from a tiny loopback server: what a user sees
//! when the server is down, refuses credentials, or is configured wrongly.

mod common;

use agentwire::driver::McpClient;
use agentwire::mcp::SessionConfig;
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use common::lib_host::{block_on, spawn_local};
use std::net::TcpListener;
use std::sync::mpsc;

/// Serves `response` (a whole HTTP/1.1 answer) to every connection at `/mcp`; each request's
/// text is sent to the returned channel.
fn canned_server(response: &'static str) -> (String, mpsc::Receiver<String>) {
    let (origin, requests) = common::loopback::answering(move |_| response.to_owned());
    (format!("{origin}/mcp"), requests)
}

async fn connect_error(url: &str, headers: Vec<(String, String)>) -> String {
    let transport = HttpTransport::connect(url, headers).expect("a valid URL");
    match McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local).await {
        Ok(_) => panic!("the handshake should have failed"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn unauthorized_names_the_status_and_challenge_and_our_header_went_out() {
    let (url, requests) = canned_server(
        "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"mcp\"\r\n\
         Content-Type: application/json\r\nContent-Length: 25\r\nConnection: close\r\n\r\n\
         {\"error\":\"invalid_token\"}",
    );
    let headers = vec![("Authorization".to_owned(), "Bearer s3cret".to_owned())];
    let error = block_on(connect_error(&url, headers));
    assert!(error.contains("HTTP 401 Unauthorized"), "{error}");
    assert!(error.contains("Bearer realm=\"mcp\""), "{error}");
    assert!(error.contains("invalid_token"), "{error}");
    let request = requests.recv().expect("the initialize request");
    let lower = request.to_ascii_lowercase();
    assert!(lower.starts_with("post /mcp http/1.1"), "{request}");
    assert!(lower.contains("authorization: bearer s3cret"), "{request}");
    assert!(
        lower.contains("accept: application/json, text/event-stream"),
        "{request}"
    );
    assert!(request.contains("\"method\":\"initialize\""), "{request}");
}

#[test]
fn a_server_error_on_initialize_fails_the_handshake_with_an_excerpt() {
    let (url, _requests) = canned_server(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\
         Content-Length: 13\r\nConnection: close\r\n\r\ndatabase down",
    );
    let error = block_on(connect_error(&url, Vec::new()));
    assert!(error.contains("server rejected initialize"), "{error}");
    assert!(error.contains("HTTP 500"), "{error}");
    assert!(error.contains("database down"), "{error}");
}

#[test]
fn an_unreachable_server_fails_the_handshake_naming_the_url() {
    // Bind then drop: the port is very likely closed during the test.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let error = block_on(connect_error(&url, Vec::new()));
    assert!(
        error.starts_with(&format!("could not reach the MCP server at {url}")),
        "{error}"
    );
}

#[test]
fn bad_urls_and_headers_are_refused_up_front() {
    block_on(async {
        let error = HttpTransport::connect("ftp://example.com/mcp", Vec::new())
            .err()
            .unwrap();
        assert!(error.contains("http or https"), "{error}");
        let error = HttpTransport::connect("not a url", Vec::new())
            .err()
            .unwrap();
        assert!(error.contains("invalid MCP server URL"), "{error}");
        let headers = vec![("Bad Header".to_owned(), "x".to_owned())];
        let error = HttpTransport::connect("http://127.0.0.1:1/mcp", headers)
            .err()
            .unwrap();
        assert!(error.contains("\"Bad Header\""), "{error}");
    });
}
