//! Remote servers as other clients write them, against a real server on the legacy HTTP+SSE
//! transport (the official TypeScript SDK's `SSEServerTransport`, `fixtures/sse-legacy.mjs`):
//! a `url` alone is Streamable HTTP that falls back to the legacy transport when the server
//! refuses the first POST, `"type": "sse"` selects the legacy transport, `httpUrl` is
//! Streamable only; and one broken entry fails only itself, named, while the rest connect.
//!
//! Needs the npm package: run `scripts/npm-fixtures` first (installs into
//! `target/npm-fixtures`, or `$AGENTWIRE_NPM_CACHE`).

mod common;

use common::{fixture, Project};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The legacy SSE server; killed when dropped.
struct LegacyServer {
    child: Child,
    url: String,
}

impl LegacyServer {
    fn start() -> LegacyServer {
        let sdk = common::npm_fixtures_dir().join("node_modules/@modelcontextprotocol/sdk");
        assert!(
            sdk.join("package.json").is_file(),
            "@modelcontextprotocol/sdk is not installed at {}: run scripts/npm-fixtures (or \
             point AGENTWIRE_NPM_CACHE at a folder where it ran)",
            sdk.display()
        );
        let mut child = Command::new("node")
            .arg(fixture("sse-legacy.mjs"))
            .arg(common::npm_fixtures_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start node");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the server's URL");
        let url = serde_json::from_str::<Value>(&line)
            .ok()
            .and_then(|v| v["url"].as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("no URL from sse-legacy.mjs: {line:?}"));
        LegacyServer { child, url }
    }
}

impl Drop for LegacyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_url_alone_falls_back_to_the_legacy_sse_transport_and_type_sse_selects_it() {
    let server = LegacyServer::start();
    let mut project = Project::new();
    project
        .entry("cursorish", json!({"url": server.url}))
        .entry("windsurfish", json!({"serverUrl": server.url}))
        .entry("legacy", json!({"type": "sse", "url": server.url}));
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();
    for name in ["cursorish", "windsurfish", "legacy"] {
        let entry = common::server_entry(&list, name);
        assert_eq!(entry["status"], "connected", "{name}: {entry}");
        assert_eq!(
            common::tool_names(entry),
            [format!("mcp__{name}__echo")],
            "{name}: {entry}"
        );
    }
    let out = project.run(&["mcp", "call", "cursorish", "echo", r#"{"text":"over sse"}"#]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("echo: over sse"), "{out:?}");
    let out = project.run(&["mcp", "call", "legacy", "echo", r#"{"text":"direct"}"#]);
    assert!(out.stdout.contains("echo: direct"), "{out:?}");
    // `httpUrl` means Streamable HTTP only: no fall back, and the failure names the status.
    let mut strict = Project::new();
    strict.entry("gemini", json!({"httpUrl": server.url}));
    let out = strict.run(&["mcp", "list", "--json"]);
    let entry = common::server_entry(&out.json(), "gemini").clone();
    assert_eq!(entry["status"], "failed", "{entry}");
    assert!(
        entry["error"].as_str().unwrap_or_default().contains("405"),
        "{entry}"
    );
}

#[test]
fn one_broken_entry_fails_alone_and_mcp_list_names_why() {
    let mut project = Project::new();
    project
        .entry("browser", json!({"args": ["--headless"]}))
        .entry("wrong", json!({"url": "ftp://example.test/mcp"}))
        .fixture("local", "normal.mjs", &[]);
    let out = project.run(&["mcp", "list", "--json"]);
    let list = out.json();
    let local = common::server_entry(&list, "local");
    assert_eq!(local["status"], "connected", "{list}");
    let browser = common::server_entry(&list, "browser");
    assert_eq!(browser["status"], "failed", "{list}");
    let why = browser["error"].as_str().unwrap_or_default();
    assert!(
        why.contains(r#"server "browser": "command" is required"#),
        "{why}"
    );
    let wrong = common::server_entry(&list, "wrong");
    assert_eq!(wrong["status"], "failed", "{list}");
    assert!(
        wrong["error"]
            .as_str()
            .unwrap_or_default()
            .contains("must start with http:// or https://"),
        "{wrong}"
    );
    // The tools of the others are there, and the start-up line names the broken one.
    let out = project.run(&["mcp", "call", "local", "echo", r#"{"text":"still here"}"#]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("still here"), "{out:?}");
    let out = project.run(&["tools"]);
    assert!(
        out.stderr.contains("MCP server browser failed"),
        "{}",
        out.stderr
    );
}
