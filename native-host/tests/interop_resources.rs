//! Resources, prompts, completion, logging and list changes against the published
//! `@modelcontextprotocol/server-everything` (stdio), run offline from `scripts/npm-fixtures`;
//! and the built-in mock GitHub server's resources and prompts through the CLI.

mod common;

use agentwire::driver::{EventStream, McpClient};
use agentwire::mcp::{ListKind, SessionEvent};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::stdio::{StdioCommand, StdioTransport};
use common::lib_host::{local, session, spawn_local};
use common::Project;
use futures::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

fn everything_entry() -> String {
    let entry = common::npm_fixtures_dir()
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "server-everything is not installed at {}: run scripts/npm-fixtures once",
        entry.display()
    );
    entry.display().to_string()
}

async fn everything() -> (McpClient, EventStream) {
    let spec = StdioCommand {
        command: "node".into(),
        args: vec![everything_entry(), "stdio".into()],
        ..StdioCommand::default()
    };
    let transport = StdioTransport::spawn("everything", &spec).expect("spawn server-everything");
    let config = session(Duration::from_secs(20));
    let (client, _) = McpClient::connect(config, transport, TokioClock, spawn_local)
        .await
        .expect("connect to server-everything");
    let events = client.take_events().expect("events");
    (client, events)
}

/// The first event `pick` accepts within `secs` seconds.
async fn wait_for<T>(
    events: &mut EventStream,
    secs: u64,
    pick: impl Fn(&SessionEvent) -> Option<T>,
) -> T {
    let deadline = tokio::time::sleep(Duration::from_secs(secs));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            event = events.next() => {
                let event = event.expect("the event stream ended");
                if let Some(found) = pick(&event) {
                    return found;
                }
            }
            _ = &mut deadline => panic!("no matching event within {secs} s"),
        }
    }
}

async fn get_prompt(client: &McpClient, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments});
    client.feature_request("prompts/get", params).await.unwrap()
}

async fn complete(client: &McpClient, argument: &str, value: &str, context: Value) -> Vec<String> {
    let params = json!({"ref": {"type": "ref/prompt", "name": "completable-prompt"},
        "argument": {"name": argument, "value": value}, "context": {"arguments": context}});
    let result = client
        .feature_request("completion/complete", params)
        .await
        .unwrap();
    serde_json::from_value(result["completion"]["values"].clone()).unwrap()
}

#[test]
fn everything_resources_templates_and_reads() {
    local(async {
        let (client, _events) = everything().await;
        let resources = client.list(ListKind::Resources).await.unwrap();
        let uri = "demo://resource/static/document/architecture.md";
        assert!(resources.iter().any(|r| r["uri"] == uri), "{resources:?}");
        let templates = client.list(ListKind::ResourceTemplates).await.unwrap();
        assert!(templates
            .iter()
            .any(|t| t["uriTemplate"] == "demo://resource/dynamic/blob/{resourceId}"));
        let text = client.read_resource(uri).await.unwrap();
        assert!(
            text.to_model_text().contains("architecture"),
            "{}",
            text.to_model_text()
        );
        let blob = client
            .read_resource("demo://resource/dynamic/blob/7")
            .await
            .unwrap();
        assert!(
            blob.to_model_text().contains("bytes base64"),
            "{}",
            blob.to_model_text()
        );
        let missing = client
            .read_resource("demo://resource/nowhere")
            .await
            .unwrap_err();
        assert!(missing.to_string().contains("server error"), "{missing}");
    });
}

#[test]
fn everything_prompts_with_and_without_arguments_and_completion() {
    local(async {
        let (client, _events) = everything().await;
        let prompts = client.list(ListKind::Prompts).await.unwrap();
        let names: Vec<&str> = prompts.iter().filter_map(|p| p["name"].as_str()).collect();
        assert!(
            names.contains(&"simple-prompt") && names.contains(&"args-prompt"),
            "{names:?}"
        );
        let simple = get_prompt(&client, "simple-prompt", json!({})).await;
        assert!(!agentwire::mcp::prompt_text(&simple).unwrap().is_empty());
        let args = get_prompt(&client, "args-prompt", json!({"city": "Lyon"})).await;
        assert!(agentwire::mcp::prompt_text(&args).unwrap().contains("Lyon"));
        let args = json!({"resourceType": "Text", "resourceId": "3"});
        let with_resource = get_prompt(&client, "resource-prompt", args).await;
        let messages = agentwire::mcp::prompt_messages(&with_resource).unwrap();
        assert!(messages
            .iter()
            .any(|(_, b)| matches!(b, agentwire::content::ContentBlock::Resource { .. })));
        let departments = complete(&client, "department", "S", json!({})).await;
        assert_eq!(departments, ["Sales", "Support"]);
        let names = complete(&client, "name", "", json!({"department": "Sales"})).await;
        assert_eq!(names, ["David", "Eve", "Frank"]);
    });
}

#[test]
fn everything_logging_subscriptions_and_list_changes() {
    local(async {
        let (client, mut events) = everything().await;
        client
            .feature_request("logging/setLevel", json!({"level": "error"}))
            .await
            .unwrap();
        let call = |name: &'static str, args: Value| {
            let client = client.clone();
            async move {
                client
                    .call_tool(name, args, Default::default())
                    .await
                    .unwrap()
            }
        };
        call("toggle-simulated-logging", json!({})).await;
        // The server sends one message at once, then one every 5 s, each at a random one of
        // eight levels: half pass "error". 60 s makes missing all of them a 1-in-8,000 event.
        let level = wait_for(&mut events, 60, |e| match e {
            SessionEvent::Log { level, .. } => Some(level.clone()),
            _ => None,
        })
        .await;
        // setLevel was honoured: nothing below error arrives.
        assert!(
            ["error", "critical", "alert", "emergency"].contains(&level.as_str()),
            "{level}"
        );

        let uri = "demo://resource/dynamic/text/1";
        client
            .feature_request("resources/subscribe", json!({"uri": uri}))
            .await
            .unwrap();
        call("toggle-subscriber-updates", json!({})).await;
        let updated = wait_for(&mut events, 15, |e| match e {
            SessionEvent::ResourceUpdated { uri } => Some(uri.clone()),
            _ => None,
        })
        .await;
        assert_eq!(updated, uri);

        // A new session resource: the server announces a changed resource list.
        let args = json!({"name": "hi.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"});
        call("gzip-file-as-resource", args).await;
        wait_for(&mut events, 10, |e| {
            (*e == SessionEvent::ListChanged(ListKind::Resources)).then_some(())
        })
        .await;
        let resources = client.list(ListKind::Resources).await.unwrap();
        assert!(
            resources.iter().any(|r| r["name"] == "hi.gz"),
            "{resources:?}"
        );
    });
}

#[test]
fn mock_github_resources_and_prompts_through_the_cli() {
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let listed = project.run(&["mcp", "resources", "--json"]).json();
    assert!(
        listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "repo://facebook/react/contents/README.md"
                && r["server"] == "github")
    );
    let read = project
        .run(&[
            "mcp",
            "read",
            "github",
            "repo://vercel/ai/contents/README.md",
            "--json",
        ])
        .json();
    assert!(read["contents"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("# AI SDK"));
    let missing = project.run(&[
        "mcp",
        "read",
        "github",
        "repo://vercel/ai/contents/NOPE",
        "--json",
    ]);
    assert_eq!(missing.code, 1);
    let error = missing.json()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("repo://vercel/ai/contents/NOPE") && error.contains("MCP server github"),
        "{error}"
    );
    let prompts = project.run(&["mcp", "prompts", "--json"]).json();
    assert_eq!(prompts.as_array().unwrap().len(), 2);
    let got = project
        .run(&[
            "mcp",
            "prompt",
            "github",
            "summarize_open_issues",
            "facebook",
            "repo=react",
            "--json",
        ])
        .json();
    assert!(got["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("facebook/react"));
    let bad = project.run(&[
        "mcp",
        "prompt",
        "github",
        "summarize_open_issues",
        "a",
        "b",
        "c",
    ]);
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.contains("unexpected argument \"c\""),
        "{}",
        bad.stderr
    );
}
