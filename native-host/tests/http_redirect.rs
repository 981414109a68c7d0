//! Redirects and credentials: a server's configured headers (`X-Api-Key`) follow a redirect
//! within the server's origin and never to another one. Two loopback servers on different ports
//! are two origins.

mod common;

use agentwire::driver::McpClient;
use agentwire::mcp::SessionConfig;
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use common::lib_host::{block_on, spawn_local};
use common::loopback::answering as server;

const REFUSED: &str = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

fn redirect_to(location: &str) -> String {
    format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\n\
         Connection: close\r\n\r\n"
    )
}

fn handshake(url: &str) {
    let headers = vec![
        ("X-Api-Key".to_owned(), "k-s3cret-value".to_owned()),
        ("Authorization".to_owned(), "Bearer t-s3cret".to_owned()),
    ];
    let connected = block_on(async {
        let transport = HttpTransport::connect(url, headers).expect("a valid URL");
        McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local)
            .await
            .is_ok()
    });
    assert!(!connected, "the last server refuses");
}

#[test]
fn configured_headers_do_not_follow_a_redirect_to_another_origin() {
    let (second, second_seen) = server(|_| REFUSED.to_owned());
    let target = format!("{second}/mcp");
    let (first, first_seen) = server(move |_| redirect_to(&target));
    handshake(&format!("{first}/mcp"));
    let at_first = first_seen.recv().unwrap().to_ascii_lowercase();
    assert!(at_first.contains("x-api-key: k-s3cret-value"), "{at_first}");
    let at_second = second_seen.recv().unwrap();
    let lower = at_second.to_ascii_lowercase();
    assert!(
        lower.starts_with("post /mcp "),
        "307 keeps the POST: {at_second}"
    );
    assert!(
        lower.contains("\"initialize\""),
        "and its body: {at_second}"
    );
    assert!(!lower.contains("x-api-key"), "{at_second}");
    assert!(!lower.contains("s3cret"), "{at_second}");
    assert!(
        lower.contains("content-type: application/json"),
        "{at_second}"
    );
}

#[test]
fn configured_headers_follow_a_redirect_within_the_origin() {
    let (origin, seen) = server(|request| {
        if request.starts_with("POST /mcp ") {
            redirect_to("/moved")
        } else {
            REFUSED.to_owned()
        }
    });
    handshake(&format!("{origin}/mcp"));
    let _first = seen.recv().unwrap();
    let second = seen.recv().unwrap().to_ascii_lowercase();
    assert!(second.starts_with("post /moved "), "{second}");
    assert!(second.contains("x-api-key: k-s3cret-value"), "{second}");
    assert!(
        second.contains("authorization: bearer t-s3cret"),
        "{second}"
    );
}

#[test]
fn a_redirect_loop_ends_with_an_error_naming_it() {
    let (origin, _seen) = server(|_| redirect_to("/mcp"));
    let error = block_on(async {
        let transport = HttpTransport::connect(&format!("{origin}/mcp"), vec![]).unwrap();
        match McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local).await
        {
            Ok(_) => panic!("a loop cannot connect"),
            Err(error) => error.to_string(),
        }
    });
    assert!(error.contains("more than 10 redirects"), "{error}");
}
