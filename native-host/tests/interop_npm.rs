//! Interoperability with real MCP servers from npm, run offline from `target/npm-fixtures` or
//! `$AGENTWIRE_NPM_CACHE` (installed by `scripts/npm-fixtures`):
//! `@modelcontextprotocol/server-github` with a dummy token, and
//! `@modelcontextprotocol/server-everything` in stdio mode.
//!
//! When the packages are missing these tests fail and say how to install them; they never skip.

mod common;

use agentwire::content::ContentBlock;
use agentwire::mcp::{CallOptions, SessionEvent};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::stdio::{StdioCommand, StdioTransport};
use common::lib_host::{local, session};
use common::{assert_server_shape, server_entry, tool_names, Project};
use serde_json::{json, Value};
use std::time::Duration;

const GITHUB: &str = "@modelcontextprotocol/server-github";
const EVERYTHING: &str = "@modelcontextprotocol/server-everything";

/// The tools `@modelcontextprotocol/server-github` (2025.4.8) offers.
const GITHUB_TOOLS: [&str; 26] = [
    "create_or_update_file",
    "search_repositories",
    "create_repository",
    "get_file_contents",
    "push_files",
    "create_issue",
    "create_pull_request",
    "fork_repository",
    "create_branch",
    "list_commits",
    "list_issues",
    "update_issue",
    "add_issue_comment",
    "search_code",
    "search_issues",
    "search_users",
    "get_issue",
    "get_pull_request",
    "list_pull_requests",
    "create_pull_request_review",
    "merge_pull_request",
    "get_pull_request_files",
    "get_pull_request_status",
    "update_pull_request_branch",
    "get_pull_request_comments",
    "get_pull_request_reviews",
];

/// The installed entry point of an npm package (its `bin`), run with `node`. Fails the test
/// with instructions when the package is not installed.
fn package_bin(package: &str) -> String {
    let dir = common::npm_fixtures_dir()
        .join("node_modules")
        .join(package);
    let manifest = dir.join("package.json");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|_| {
        panic!(
            "{package} is not installed ({} is missing): run `scripts/npm-fixtures` from the \
             repository root once (it needs network access; `$AGENTWIRE_NPM_CACHE` picks another \
             folder); the tests then run offline",
            manifest.display()
        )
    });
    let json: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", manifest.display()));
    let bin = match &json["bin"] {
        Value::String(path) => Some(path.clone()),
        Value::Object(bins) => bins.values().find_map(|v| v.as_str().map(str::to_owned)),
        _ => None,
    }
    .unwrap_or_else(|| panic!("{} has no `bin` entry", manifest.display()));
    let path = dir.join(bin);
    assert!(
        path.is_file(),
        "{} is missing: run `scripts/npm-fixtures` again",
        path.display()
    );
    path.display().to_string()
}

fn project() -> Project {
    let mut project = Project::new();
    project
        .entry(
            "github",
            json!({
                "command": "node",
                "args": [package_bin(GITHUB)],
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy-token-for-tests"}
            }),
        )
        .entry(
            "everything",
            json!({"command": "node", "args": [package_bin(EVERYTHING), "stdio"]}),
        );
    project
}

#[test]
fn both_servers_list_their_tools_namespaced_github_has_26() {
    let project = project();
    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();

    let github = server_entry(&list, "github");
    assert_server_shape(github);
    assert_eq!(github["status"], "connected", "{github}");
    let mut names = tool_names(github);
    names.sort_unstable();
    let mut expected: Vec<String> = GITHUB_TOOLS
        .iter()
        .map(|t| format!("mcp__github__{t}"))
        .collect();
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert_eq!(names.len(), 26);

    let everything = server_entry(&list, "everything");
    assert_server_shape(everything);
    assert_eq!(everything["status"], "connected", "{everything}");
    let names = tool_names(everything);
    for tool in [
        "echo",
        "get-structured-content",
        "get-tiny-image",
        "get-sum",
    ] {
        assert!(
            names.contains(&format!("mcp__everything__{tool}")),
            "{tool} missing from {names:?}"
        );
    }
}

#[test]
fn github_server_reports_invalid_arguments_offline() {
    // Validation happens before any request to GitHub, so this needs no network.
    let project = project();
    let out = project.run(&["mcp", "call", "github", "get_issue", "{}", "--json"]);
    assert_eq!(out.code, 1, "{out:?}");
    let error = out.json()["error"].as_str().unwrap_or_default().to_owned();
    assert!(
        error.starts_with("MCP server github: server error:"),
        "{error}"
    );
    assert!(
        error.contains("issue_number"),
        "names the missing field: {error}"
    );
}

#[test]
fn everything_server_is_offered_the_workspace_as_its_root() {
    // server-everything asks for roots right after the handshake (it registers
    // `get-roots-list` only for clients with the `roots` capability).
    let project = project();
    let out = project.run(&["mcp", "call", "everything", "get-roots-list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.json()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let workspace = std::fs::canonicalize(project.path()).unwrap();
    let uri = format!("file://{}", workspace.display());
    assert!(text.contains(&uri), "{uri} in {text}");
}

#[test]
fn everything_server_samples_the_model_only_when_the_config_allows_it() {
    // `trigger-sampling-request` sends `sampling/createMessage` from inside its own tool call;
    // server-everything registers it only for clients that declare `sampling`.
    let mut project = Project::new();
    project.entry(
        "everything",
        json!({"command": "node", "args": [package_bin(EVERYTHING), "stdio"], "sampling": true}),
    );
    let args = r#"{"prompt":"list the issues of vercel/ai"}"#;
    let out = project.run(&[
        "mcp",
        "call",
        "everything",
        "trigger-sampling-request",
        args,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.json()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // The mock model answered (and said which model it is), through the server.
    assert!(
        text.contains("LLM sampling result") && text.contains("\"model\": \"agentwire-mock\""),
        "{text}"
    );
    assert!(
        text.contains("list_issues"),
        "the model saw the prompt: {text}"
    );

    // Without "sampling": true the capability is not declared, so the tool does not exist.
    let out = project_without_sampling().run(&[
        "mcp",
        "call",
        "everything",
        "trigger-sampling-request",
        args,
    ]);
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("no tool named"), "{out:?}");
}

/// server-everything alone, with the default (no sampling).
fn project_without_sampling() -> Project {
    let mut project = Project::new();
    project.entry(
        "everything",
        json!({"command": "node", "args": [package_bin(EVERYTHING), "stdio"]}),
    );
    project
}

#[test]
fn everything_server_echo_structured_content_and_image() {
    let project = project();
    let out = project.run(&[
        "mcp",
        "call",
        "everything",
        "echo",
        r#"{"message":"hello"}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json(),
        json!({"content": [{"type": "text", "text": "Echo: hello"}], "isError": false})
    );

    let out = project.run(&[
        "mcp",
        "call",
        "everything",
        "get-structured-content",
        r#"{"location":"Chicago"}"#,
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let result = out.json();
    let weather = json!({"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82});
    assert_eq!(result["structuredContent"], weather);
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(text).ok(),
        Some(weather),
        "the text block mirrors the structured content"
    );

    let out = project.run(&["mcp", "call", "everything", "get-tiny-image", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let result = out.json();
    let image = result["content"]
        .as_array()
        .and_then(|blocks| blocks.iter().find(|b| b["type"] == "image"))
        .unwrap_or_else(|| panic!("no image block in {result}"));
    assert_eq!(image["mimeType"], "image/png");
    let data = image["data"].as_str().unwrap_or_default();
    assert!(
        data.starts_with("iVBORw0KGgo"),
        "base64 of a PNG signature: {}",
        &data[..20]
    );
}

#[test]
fn everything_server_does_not_see_the_parents_environment() {
    // Only a short list of variables (PATH, HOME, ...) and the config's `env` reach a server.
    let mut project = project();
    project.entry(
        "envcheck",
        json!({
            "command": "node",
            "args": [package_bin(EVERYTHING), "stdio"],
            "env": {"FROM_CONFIG": "yes"}
        }),
    );
    let out = project.run_with_env(
        &["mcp", "call", "envcheck", "get-env", "--json"],
        &[("AGENTWIRE_ITEST_PARENT_SECRET", "must-not-leak")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.json()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let env: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(env["FROM_CONFIG"], "yes", "{env}");
    assert!(env.get("PATH").is_some(), "{env}");
    assert!(env.get("AGENTWIRE_ITEST_PARENT_SECRET").is_none(), "{env}");
}

#[test]
fn everything_server_through_the_library_with_progress() {
    local(async {
        let spec = StdioCommand {
            command: "node".into(),
            args: vec![package_bin(EVERYTHING), "stdio".into()],
            ..StdioCommand::default()
        };
        let transport = StdioTransport::spawn("everything", &spec).expect("spawn");
        let (client, details) = agentwire::driver::McpClient::connect(
            session(Duration::from_secs(10)),
            transport,
            TokioClock,
            |f| {
                tokio::task::spawn_local(f);
            },
        )
        .await
        .expect("connect to server-everything");
        assert!(
            details.server_info["name"].as_str().is_some(),
            "{:?}",
            details.server_info
        );
        let mut events = client.take_events().expect("events");

        let image = client
            .call_tool("get-tiny-image", json!({}), CallOptions::default())
            .await
            .expect("get-tiny-image");
        let png = image.content.iter().find_map(|block| match block {
            ContentBlock::Image { data, mime_type } => Some((data.clone(), mime_type.clone())),
            _ => None,
        });
        let (data, mime_type) = png.unwrap_or_else(|| panic!("no image in {image:?}"));
        assert_eq!(mime_type, "image/png");
        assert!(data.len() > 1000 && data.starts_with("iVBORw0KGgo"));

        let structured = client
            .call_tool(
                "get-structured-content",
                json!({"location": "Los Angeles"}),
                CallOptions::default(),
            )
            .await
            .expect("get-structured-content");
        assert_eq!(
            structured.structured_content,
            Some(json!({"temperature": 73, "conditions": "Sunny / Clear", "humidity": 48}))
        );

        // A real server's progress notifications are matched to our call by its token.
        let long = client
            .call_tool(
                "trigger-long-running-operation",
                json!({"duration": 0.3, "steps": 3}),
                CallOptions::default(),
            )
            .await
            .expect("long-running operation");
        assert!(!long.is_error, "{long:?}");
        let mut steps = Vec::new();
        while let Ok(event) = events.try_recv() {
            if let SessionEvent::Progress {
                progress, total, ..
            } = event
            {
                steps.push((progress, total));
            }
        }
        assert_eq!(
            steps,
            [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
        );
        client.close("test done");
    });
}
