//! Interop: the published `@modelcontextprotocol/server-everything` in Streamable HTTP mode,
//! run as a real process, driven through `HttpTransport` and `McpClient`.
//!
//! Needs the npm package: run `scripts/npm-fixtures` first (installs into
//! `target/npm-fixtures`, or `$AGENTWIRE_NPM_CACHE`). Node is `$AGENTWIRE_NODE` or `node`.

mod common;

use agentwire::driver::McpClient;
use agentwire::mcp::{CallOptions, SessionConfig, SessionEvent};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use common::lib_host::{block_on, spawn_local};
use futures::{FutureExt, StreamExt};
use serde_json::{json, Value};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server's entry script; fails the test with instructions when it is not installed.
fn server_entry() -> PathBuf {
    let entry = common::npm_fixtures_dir()
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "@modelcontextprotocol/server-everything is not installed at {}: run scripts/npm-fixtures \
         (or point AGENTWIRE_NPM_CACHE at a folder where it ran)",
        entry.display()
    );
    entry
}

/// The server process; killed when dropped so a failing test leaves nothing behind.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        let entry = server_entry();
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let node = std::env::var("AGENTWIRE_NODE").unwrap_or_else(|_| "node".into());
        let child = Command::new(&node)
            .arg(&entry)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start `{node}`: {e}"));
        let mut server = Server { child, port };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("server-everything exited at start: {status}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "server-everything did not listen on port {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Stops the server and returns what it logged on stdout.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut log = String::new();
        if let Some(mut stdout) = self.child.stdout.take() {
            let _ = stdout.read_to_string(&mut log);
        }
        log
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn server_everything_lists_calls_streams_progress_and_is_deleted_on_close() {
    let server = Server::start();
    let url = server.url();
    block_on(async move {
        let transport = HttpTransport::connect(&url, Vec::new()).expect("a valid URL");
        let finished = transport.finished();
        let (client, details) =
            McpClient::connect(SessionConfig::default(), transport, TokioClock, spawn_local)
                .await
                .expect("the handshake over HTTP");
        assert_eq!(details.protocol_version, "2025-11-25");
        let mut events = client.take_events().expect("the event stream");

        let tools = client.list_tools().await.expect("tools/list");
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        assert!(
            names.contains(&"echo") && names.contains(&"get-sum"),
            "{names:?}"
        );

        let echo = client
            .call_tool(
                "echo",
                json!({"message": "hello over http"}),
                CallOptions::default(),
            )
            .await
            .expect("echo");
        assert!(!echo.is_error);
        assert!(
            echo.to_model_text().contains("hello over http"),
            "{}",
            echo.to_model_text()
        );

        let sum = client
            .call_tool("get-sum", json!({"a": 2, "b": 40}), CallOptions::default())
            .await
            .expect("get-sum");
        assert!(
            sum.to_model_text().contains("42"),
            "{}",
            sum.to_model_text()
        );

        // Progress notifications arrive on the POST's event stream before the result.
        let long = client
            .call_tool(
                "trigger-long-running-operation",
                json!({"duration": 0.3, "steps": 3}),
                CallOptions::default(),
            )
            .await
            .expect("trigger-long-running-operation");
        assert!(
            long.to_model_text().contains("Steps: 3"),
            "{}",
            long.to_model_text()
        );
        let mut progress = 0;
        while let Some(Some(event)) = events.next().now_or_never() {
            if let SessionEvent::Progress { total, .. } = event {
                assert_eq!(total, Some(3.0));
                progress += 1;
            }
        }
        assert_eq!(progress, 3, "one progress notification per step");

        client.close("test finished");
        tokio::time::timeout(Duration::from_secs(5), finished)
            .await
            .expect("the transport stops after DELETE");
    });
    let log = server.stop();
    assert!(
        log.contains("Received session termination request"),
        "the server saw no DELETE; its log:\n{log}"
    );
}
