//! A client for the official MCP conformance suite (`@modelcontextprotocol/conformance`).
//!
//! The suite starts a test server per scenario, then runs this program with the server's URL as
//! the last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`:
//!
//! ```text
//! cargo run -q -p agentwire-host --example conformance_client -- http://localhost:PORT/mcp
//! ```
//!
//! It connects over [`HttpTransport`], does what the scenario expects, closes the session (a
//! `DELETE`) and exits 0; any failure is printed to stderr and exits 1. `conformance/run`
//! drives it through the suite.

use agentwire::driver::McpClient;
use agentwire::jsonrpc::ErrorObject;
use agentwire::mcp::http::HttpConfig;
use agentwire::mcp::oauth::{EnterpriseGrant, OAuthClient};
use agentwire::mcp::{CallOptions, ListKind, ProtocolChoice, SessionConfig, SessionEvent};
use agentwire_host::os::clock::TokioClock;
use agentwire_host::transport::http_transport::HttpTransport;
use agentwire_host::transport::oauth::{Authorizer, OAuthOptions};
use futures::StreamExt;
use serde_json::{json, Map, Value};
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    // The suite appends the URL, so it is the last argument.
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client <server-url>  (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("could not start tokio: {error}");
            return ExitCode::FAILURE;
        }
    };
    let local = tokio::task::LocalSet::new();
    match local.block_on(&runtime, run(&url, &scenario)) {
        Ok(()) => {
            eprintln!("scenario {scenario:?}: done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("scenario {scenario:?} failed: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), String> {
    let mut http = HttpConfig::new(url);
    // The sse-retry test server hands the pending tool result to whichever GET arrives first,
    // so an early standalone GET stream would race the resumption it measures. The scenario is
    // about resuming a request's stream; the standalone stream is exercised by the others.
    http.listen = scenario != "sse-retry";
    let transport = HttpTransport::with_oauth(http, Some(oauth_options(scenario)))?;
    let finished = transport.finished();
    if let Some(mut events) = transport.take_events() {
        tokio::task::spawn_local(async move {
            while let Some(event) = events.recv().await {
                eprintln!("http: {event:?}");
            }
        });
    }
    let config = SessionConfig {
        client_name: "agentwire-conformance".into(),
        elicitation: true,
        protocol: protocol_for_run(),
        ..SessionConfig::default()
    };
    let spawn = |future| {
        tokio::task::spawn_local(future);
    };
    let (client, details) = McpClient::connect(config, transport, TokioClock, spawn)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    eprintln!(
        "connected to {} (protocol {})",
        details.name(),
        details.protocol_version
    );
    answer_server_requests(&client);

    let outcome = exercise(&client, scenario).await;
    client.close("conformance scenario finished");
    // Let the DELETE go out before the runtime ends.
    let _ = tokio::time::timeout(Duration::from_secs(5), finished).await;
    outcome
}

/// The client-side OAuth setup: headless authorization (the suite's authorization servers
/// approve at once), a metadata document URL the suite recognises, and the pre-registered
/// client the suite hands over in `MCP_CONFORMANCE_CONTEXT` (`client_id`, and `client_secret`
/// or `private_key_pem`; for cross-app access also the identity provider's `idp_*` fields; for
/// workload identity federation the workload's JWT, `valid_jwt`).
fn oauth_options(scenario: &str) -> OAuthOptions {
    let mut options = OAuthOptions::new(Authorizer::Headless);
    options.config.client_name = "agentwire-conformance".into();
    // A machine-to-machine client, configured as such: with a secret (`-basic`) or a key (`-jwt`).
    options.config.client_credentials = scenario.starts_with("auth/client-credentials-");
    if scenario == "auth/basic-cimd" {
        options.config.client_metadata_url = Some(CLIENT_METADATA_URL.into());
    }
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT").unwrap_or_default();
    let context: Value = serde_json::from_str(&context).unwrap_or_default();
    if let Some(client_id) = context.get("client_id").and_then(Value::as_str) {
        options.config.client = Some(OAuthClient {
            client_id: client_id.into(),
            client_secret: context
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_owned),
            // Chosen from the server's metadata: with a key and a server that takes only
            // private_key_jwt, that is what the flow uses.
            auth_method: None,
        });
    }
    options.private_key = context
        .get("private_key_pem")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    // Workload identity federation: the suite plays the platform and hands over the
    // workload's JWT (and ones with a wrong audience or expired, which a client never picks).
    options.config.workload_token = text("valid_jwt");
    // Cross-app access: the suite plays the enterprise identity provider and hands over the
    // user's ID token from it.
    if let (Some(id_token), Some(idp_token_endpoint), Some(idp_client_id)) = (
        text("idp_id_token"),
        text("idp_token_endpoint"),
        text("idp_client_id"),
    ) {
        options.config.enterprise = Some(EnterpriseGrant {
            idp_issuer: text("idp_issuer"),
            idp_token_endpoint: Some(idp_token_endpoint),
            id_token: Some(id_token),
            idp_client_id,
            idp_client_secret: text("idp_client_secret"),
        });
    }
    options
}

/// The Client ID Metadata Document URL the suite's `auth/basic-cimd` expects.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The era a run asks for: the suite names the revision it scores in
/// `MCP_CONFORMANCE_PROTOCOL_VERSION`. For 2026-07-28 the client probes (`auto`, as a user's
/// default config does); for the revisions before it, it speaks the legacy era only, as a
/// config pinned to `"legacy"` does (a probe would be a message that revision's schema lacks).
fn protocol_for_run() -> ProtocolChoice {
    match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => ProtocolChoice::Auto,
        _ => ProtocolChoice::Legacy,
    }
}

/// What each scenario checks for, beyond the handshake.
async fn exercise(client: &McpClient, scenario: &str) -> Result<(), String> {
    match scenario {
        "sep-2322-client-request-state" => {
            let _ = client
                .list_tools()
                .await
                .map_err(|e| format!("tools/list: {e}"))?;
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                call(client, tool, json!({})).await?;
            }
            return Ok(());
        }
        "http-standard-headers" => return every_feature(client).await,
        "http-custom-headers" => {
            let _ = client
                .list_tools()
                .await
                .map_err(|e| format!("tools/list: {e}"))?;
            for (tool, arguments) in context_tool_calls() {
                call(client, &tool, arguments).await?;
            }
            return Ok(());
        }
        "http-invalid-tool-headers" => {
            // Tools with invalid `x-mcp-header` declarations are left out of the list; the
            // scenario checks the valid one is still called and none of the others are.
            let tools = client
                .list_tools()
                .await
                .map_err(|e| format!("tools/list: {e}"))?;
            for tool in tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
            {
                call(client, tool, json!({"region": "us-east1"})).await?;
            }
            return Ok(());
        }
        "json-schema-2020-12-preservation" => {
            let tools = client
                .list_tools()
                .await
                .map_err(|e| format!("tools/list: {e}"))?;
            let schema = tools
                .iter()
                .find(|t| t.get("name").and_then(Value::as_str) == Some("json_schema_2020_12_tool"))
                .and_then(|t| t.get("inputSchema"))
                .cloned()
                .unwrap_or_default();
            return call(client, "json_schema_echo", json!({ "schema": schema })).await;
        }
        _ => {}
    }
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    eprintln!("tools: {names:?}");
    let (tool, arguments) = match scenario {
        "tools_call" => ("add_numbers", json!({"a": 5, "b": 3})),
        "elicitation-sep1034-client-defaults" => ("test_client_elicitation_defaults", json!({})),
        "sse-retry" => ("test_reconnection", json!({})),
        // The step-up scenarios ask for more scope on `tools/call`.
        auth if auth.starts_with("auth/") => match names.first() {
            Some(first) => (*first, json!({})),
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    let output = client
        .call_tool(tool, arguments, CallOptions::default())
        .await
        .map_err(|e| format!("tools/call {tool}: {e}"))?;
    eprintln!("{tool} -> {}", output.to_model_text());
    if output.is_error {
        return Err(format!(
            "{tool} reported an error: {}",
            output.to_model_text()
        ));
    }
    Ok(())
}

/// Calls one tool; an execution error fails the scenario.
async fn call(client: &McpClient, tool: &str, arguments: Value) -> Result<(), String> {
    let output = client
        .call_tool(tool, arguments, CallOptions::default())
        .await
        .map_err(|e| format!("tools/call {tool}: {e}"))?;
    eprintln!("{tool} -> {}", output.to_model_text());
    if output.is_error {
        return Err(format!(
            "{tool} reported an error: {}",
            output.to_model_text()
        ));
    }
    Ok(())
}

/// Every tool, resource and prompt the server lists, each used once.
async fn every_feature(client: &McpClient) -> Result<(), String> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    for tool in tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
    {
        call(client, tool, json!({})).await?;
    }
    let resources = client
        .list(ListKind::Resources)
        .await
        .map_err(|e| format!("resources/list: {e}"))?;
    for uri in resources
        .iter()
        .filter_map(|r| r.get("uri").and_then(Value::as_str))
    {
        client
            .read_resource(uri)
            .await
            .map_err(|e| format!("resources/read {uri}: {e}"))?;
    }
    let prompts = client
        .list(ListKind::Prompts)
        .await
        .map_err(|e| format!("prompts/list: {e}"))?;
    for name in prompts
        .iter()
        .filter_map(|p| p.get("name").and_then(Value::as_str))
    {
        client
            .feature_request("prompts/get", json!({ "name": name }))
            .await
            .map_err(|e| format!("prompts/get {name}: {e}"))?;
    }
    Ok(())
}

/// The tool calls a scenario hands over in `MCP_CONFORMANCE_CONTEXT` (`toolCalls`).
fn context_tool_calls() -> Vec<(String, Value)> {
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT").unwrap_or_default();
    let context: Value = serde_json::from_str(&context).unwrap_or_default();
    let calls = context.get("toolCalls").and_then(Value::as_array);
    calls
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let name = c.get("name")?.as_str()?.to_owned();
            Some((
                name,
                c.get("arguments").cloned().unwrap_or_else(|| json!({})),
            ))
        })
        .collect()
}

/// Answers requests from the server in the background, and logs the other events.
fn answer_server_requests(client: &McpClient) {
    let Some(mut events) = client.take_events() else {
        return;
    };
    let client = client.clone();
    tokio::task::spawn_local(async move {
        while let Some(event) = events.next().await {
            match event {
                SessionEvent::ServerRequest { id, method, params } => {
                    let answer = answer(&method, params.as_ref());
                    if let Err(error) = client.respond(&id, answer) {
                        eprintln!("could not answer {method}: {error}");
                    }
                }
                other => eprintln!("event: {other:?}"),
            }
        }
    });
}

/// An elicitation is accepted with every default the requested schema declares (SEP-1034);
/// nothing else is declared, so nothing else can arrive.
fn answer(method: &str, params: Option<&Value>) -> Result<Value, ErrorObject> {
    if method != "elicitation/create" {
        return Err(ErrorObject::method_not_found(method));
    }
    let properties = params
        .and_then(|p| p.pointer("/requestedSchema/properties"))
        .and_then(Value::as_object);
    let mut content = Map::new();
    for (name, schema) in properties.into_iter().flatten() {
        if let Some(default) = schema.get("default") {
            content.insert(name.clone(), default.clone());
        }
    }
    Ok(json!({"action": "accept", "content": content}))
}
