//! Real modern-only MCP servers (2026-07-28), built with the official TypeScript SDK v2
//! (`@modelcontextprotocol/server`, from `scripts/npm-fixtures`; `fixtures/modern.mjs` serves
//! with `legacy: 'reject'`), over stdio and Streamable HTTP, side by side with a legacy server
//! in one config: from the CLI and from the library.
//!
//! When the SDK is missing these tests fail and say how to install it; they never skip.

mod common;

use agentwire::mcp::{CallOptions, Era, ListKind, ProtocolChoice, SessionEvent};
use common::lib_host::{local, session};
use common::{fixture, npm_fixtures_dir, server_entry, Project};
use futures::StreamExt;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// The npm fixtures directory, checked to hold the SDK.
fn npm_dir() -> String {
    let dir = npm_fixtures_dir();
    let manifest = dir.join("node_modules/@modelcontextprotocol/server/package.json");
    assert!(
        manifest.is_file(),
        "{} is missing: run scripts/npm-fixtures to install the TypeScript SDK v2",
        manifest.display()
    );
    dir.display().to_string()
}

/// The modern fixture serving HTTP on a loopback port; killed on drop.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl HttpServer {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let port_file = dir.path().join("port");
        let child = std::process::Command::new("node")
            .args([&fixture("modern.mjs"), "--npm", &npm_dir(), "--http"])
            .arg(&port_file)
            .spawn()
            .expect("start node");
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                if !text.is_empty() {
                    break text;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the HTTP fixture did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn modern_and_legacy_servers_side_by_side_from_the_cli() {
    let npm = npm_dir();
    let http = HttpServer::start();
    let mut project = Project::new();
    project
        .fixture("modern", "modern.mjs", &["--npm", &npm])
        .fixture("legacy", "normal.mjs", &["--tag", "legacy"])
        .entry("remote", json!({"type": "http", "url": http.url}))
        .fixture_with(
            "pinned",
            "modern.mjs",
            &["--npm", &npm],
            json!({"protocol": "legacy"}),
        );

    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();
    for (name, era, version) in [
        ("modern", "modern", "2026-07-28"),
        ("remote", "modern", "2026-07-28"),
        ("legacy", "legacy", "2025-11-25"),
    ] {
        let entry = server_entry(&list, name);
        assert_eq!(entry["status"], "connected", "{entry}");
        assert_eq!(
            (entry["era"].as_str(), entry["protocolVersion"].as_str()),
            (Some(era), Some(version)),
            "{entry}"
        );
    }
    let names: Vec<&str> = server_entry(&list, "modern")["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["original_name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["echo", "ask_color", "where", "grow"],
        "server order kept"
    );
    // A modern-only server pinned to the legacy era fails alone, with the server's reason.
    let pinned = server_entry(&list, "pinned");
    assert_eq!(pinned["status"], "failed", "{pinned}");
    let error = pinned["error"].as_str().unwrap();
    assert!(
        error.contains("initialize") && error.contains("-32022"),
        "{error}"
    );

    let text = project.run(&["mcp", "list"]);
    assert!(
        text.stdout.contains("MCP 2026-07-28 (modern)"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("MCP 2025-11-25 (legacy)"),
        "{}",
        text.stdout
    );

    for (server, expected) in [
        ("modern", "modern: hi"),
        ("remote", "modern: hi"),
        ("legacy", "[legacy] hi"),
    ] {
        let out = project.run(&["mcp", "call", server, "echo", r#"{"text":"hi"}"#, "--json"]);
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(out.json()["content"][0]["text"], expected, "{server}");
    }
    // A multi-round-trip call answered by the CLI itself: the roots are the workspace.
    let out = project.run(&["mcp", "call", "modern", "where", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.json()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let workspace = std::fs::canonicalize(project.path()).unwrap();
    assert!(
        text.starts_with("roots=file://") && text.contains(workspace.to_str().unwrap()),
        "{text}"
    );
    project.assert_no_server_processes();
}

#[test]
fn a_modern_elicitation_resources_and_prompts_from_the_library() {
    let npm = npm_dir();
    local(async {
        let config = agentwire::mcp::SessionConfig {
            elicitation: true,
            protocol: ProtocolChoice::Auto,
            ..session(Duration::from_secs(20))
        };
        let fixture =
            common::lib_host::connect("modern", "modern.mjs", &["--npm", &npm], config).await;
        let client = fixture.client;
        let details = client.server().unwrap();
        assert_eq!(
            (details.era, details.name()),
            (Era::Modern, "modern-fixture")
        );
        // Elicitations are accepted with their defaults, as a user pressing Enter would.
        let mut events = client.take_events().unwrap();
        let answering = client.clone();
        let (changed_tx, mut changed) = futures::channel::mpsc::unbounded();
        tokio::task::spawn_local(async move {
            while let Some(event) = events.next().await {
                if event == SessionEvent::ToolsListChanged {
                    let _ = changed_tx.unbounded_send(());
                }
                if let SessionEvent::ServerRequest { id, method, params } = event {
                    assert_eq!(method, "elicitation/create");
                    let mut content = Map::new();
                    let properties = params
                        .as_ref()
                        .and_then(|p| p.pointer("/requestedSchema/properties"));
                    for (key, schema) in properties.and_then(Value::as_object).into_iter().flatten()
                    {
                        content.insert(key.clone(), schema["default"].clone());
                    }
                    answering
                        .respond(&id, Ok(json!({"action": "accept", "content": content})))
                        .unwrap();
                }
            }
        });
        let output = client
            .call_tool("ask_color", json!({}), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(output.to_model_text(), "color=teal");
        let resources = client.list(ListKind::Resources).await.unwrap();
        assert_eq!(resources[0]["uri"], "memo://greeting");
        let read = client.read_resource("memo://greeting").await.unwrap();
        assert!(
            read.to_model_text().contains("hello from 2026"),
            "{}",
            read.to_model_text()
        );
        let prompt = client
            .feature_request(
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            )
            .await
            .unwrap();
        assert_eq!(prompt["messages"][0]["content"]["text"], "Say hello to Ada");
        // A new tool: the list change comes on the subscriptions/listen stream.
        let grew = client
            .call_tool("grow", json!({}), CallOptions::default())
            .await
            .unwrap();
        assert_eq!(grew.to_model_text(), "grew");
        tokio::time::timeout(Duration::from_secs(10), changed.next())
            .await
            .expect("tools/list_changed within 10 s");
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.last().unwrap()["name"], "grown");
        // Roots were not declared, so the server refuses to ask for them, with a named code.
        let error = client
            .call_tool("where", json!({}), CallOptions::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("roots/list")
                && error.contains("-32021): missing required client capability"),
            "{error}"
        );
        client.close("done");
    });
}

#[test]
fn hostile_modern_servers_fail_their_calls_naming_the_server_and_spare_the_others() {
    let mut project = Project::new();
    project
        .fixture("hostile", "modern-hostile.mjs", &[])
        .fixture("legacy", "normal.mjs", &["--tag", "legacy"]);
    for (tool, expected) in [
        ("forever", "input_required again after 8 rounds"),
        (
            "huge_state",
            "a requestState of 2097152 bytes (the limit is 1048576)",
        ),
        ("tampered", "unknown resultType \"banana\""),
    ] {
        let started = Instant::now();
        let out = project.run(&["mcp", "call", "hostile", tool, "--json"]);
        assert_eq!(out.code, 1, "{out:?}");
        let error = out.json()["error"].as_str().unwrap_or_default().to_owned();
        assert!(
            error.starts_with("MCP server hostile: ")
                && error.contains("\"hostile-modern\"")
                && error.contains(expected),
            "{tool}: {error}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{tool} took {:?}",
            started.elapsed()
        );
    }
    let out = project.run(&["mcp", "call", "hostile", "fine", "--json"]);
    assert_eq!(out.json()["content"][0]["text"], "fine");
    let out = project.run(&[
        "mcp",
        "call",
        "legacy",
        "echo",
        r#"{"text":"ok"}"#,
        "--json",
    ]);
    assert_eq!(out.json()["content"][0]["text"], "[legacy] ok");
    project.assert_no_server_processes();
}
