//! `run`, `mcp list`, `mcp call` and `tools` (`mcp logout` is `account::mcp_logout`: it starts no
//! server).

use crate::app::App;
use crate::os::display_url::redact_message;
use agentwire::agent::Agent;
use agentwire::audit::redact_value;
use agentwire::driver::ServerStatus;
use agentwire::registry::{char_prefix, ToolSpec};
use agentwire::tool_search::{
    estimate_tokens, Loading, ToolDoc, ToolIndex, ToolLoading, ToolSession,
};
use serde_json::{json, Value};

/// Process exit status of a command.
pub type ExitCode = i32;

/// One agent run; prints steps and the answer. Exit 1 when the run ends in an error.
pub async fn run(app: &App, prompt: &str) -> ExitCode {
    // `@server:uri` attaches that resource; one that cannot be read stops the run.
    let prompt = match app.runtime.attach_mentions(prompt).await {
        Ok(prompt) => prompt,
        Err(e) => return fail(false, &e),
    };
    app.session_start("startup").await;
    match app.runtime.run(&prompt, &app.terminal).await {
        Ok(_) => 0,
        Err(e) => exit_code(&e),
    }
}

/// Exit 3 for a run that paused for approval, 1 for any other failure.
fn exit_code(error: &agentwire::driver::RunError) -> ExitCode {
    if error.0.starts_with("paused:") {
        3
    } else {
        1
    }
}

/// `run --resume ID --approve CALL_ID --reject CALL_ID`: continues the session's paused run.
pub async fn resume_paused(app: &App, approve: &[String], reject: &[String]) -> ExitCode {
    use agentwire::agent::Approval;
    let decisions: Vec<(String, Approval)> = approve
        .iter()
        .map(|id| (id.clone(), Approval::Yes))
        .chain(reject.iter().map(|id| (id.clone(), Approval::No)))
        .collect();
    match app.runtime.resume(&decisions, &app.terminal).await {
        Ok(_) => 0,
        Err(e) => {
            if !e.0.starts_with("paused:") {
                crate::errln!("error: {e}");
            }
            exit_code(&e)
        }
    }
}

fn tool_json(spec: &ToolSpec, loading: Option<&ToolLoading>) -> Value {
    let mut v = json!({
        "name": spec.name,
        "original_name": spec.call_name(),
        "description": spec.description,
        "risk": spec.risk.as_str(),
    });
    if let Some(loading) = loading {
        v["loading"] = loading.loading.as_str().into();
        v["estimatedTokens"] = loading.estimated_tokens.into();
    }
    v
}

/// Every tool's loading (direct or deferred, and its estimated tokens), in registry order:
/// the conversation's partition once it made a request, else the one its next request makes.
fn loadings(agent: &Agent) -> Vec<ToolLoading> {
    agent.tool_loading()
}

/// Estimated tokens of the `tools` the next request sends (direct tools, and `tool_search` and
/// `call_tool` when something is deferred).
fn request_tokens(agent: &Agent) -> u64 {
    let registry = agent.registry();
    let tools = match agent.tool_session() {
        Some(session) => session.request_tools(registry),
        None => ToolSession::start(registry, &agent.config().tool_search).request_tools(registry),
    };
    tools.iter().map(|t| u64::from(estimate_tokens(t))).sum()
}

/// `1234` → `1,234`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `mcp list`: servers, status, error, tools.
pub fn mcp_list(app: &App, as_json: bool) -> ExitCode {
    let servers = app.runtime.servers();
    let entries: Vec<Value> = app.runtime.with_agent(|agent| {
        let loadings = loadings(agent);
        servers
            .iter()
            .map(|(name, status)| {
                let tools: Vec<Value> = agent
                    .registry()
                    .server_tools(name)
                    .map(|spec| tool_json(spec, loadings.iter().find(|l| l.name == spec.name)))
                    .collect();
                let estimated: u64 = tools
                    .iter()
                    .filter_map(|t| t["estimatedTokens"].as_u64())
                    .sum();
                let deferred = tools.iter().filter(|t| t["loading"] == "deferred").count();
                let error = match status {
                    // Reasons quote stderr and URLs.
                    ServerStatus::Failed { reason } => Value::String(redact_message(reason)),
                    _ => Value::Null,
                };
                let oauth = app
                    .servers
                    .iter()
                    .find(|s| &s.name == name)
                    .and_then(crate::cli::account::oauth_state);
                let skipped: Vec<Value> = agent
                    .registry()
                    .skipped_tools(name)
                    .iter()
                    .map(|s| json!({"name": s.name, "reason": s.reason}))
                    .collect();
                let mut entry = json!({"name": name, "status": status.as_str(), "error": error,
                    "estimatedTokens": estimated, "deferredTools": deferred, "tools": tools,
                    "skipped": skipped});
                if let Some(oauth) = oauth {
                    entry["oauth"] = oauth;
                }
                // The MCP era and version the session speaks (2026-07-28 is "modern").
                let details = app.runtime.client(name).and_then(|c| c.server());
                if let Some(details) = details {
                    entry["era"] = details.era.as_str().into();
                    entry["protocolVersion"] = details.protocol_version.into();
                }
                // The MCP extensions negotiated with the server (both sides declared them).
                let negotiated = app.runtime.client(name).map(|c| c.extensions());
                if let Some(extensions) = negotiated.filter(|e| !e.is_empty()) {
                    entry["extensions"] = extensions.into();
                }
                entry
            })
            .collect()
    });
    if as_json {
        crate::outln!("{}", json!({"servers": entries}));
    } else {
        for entry in &entries {
            let tools = entry["tools"].as_array().map_or(0, Vec::len);
            let oauth = match entry.get("oauth") {
                Some(state) => format!(" ({})", crate::cli::account::describe_oauth_state(state)),
                None => String::new(),
            };
            let era = match (entry["era"].as_str(), entry["protocolVersion"].as_str()) {
                (Some(era), Some(version)) => format!(", MCP {version} ({era})"),
                _ => String::new(),
            };
            let era = match entry["extensions"].as_array() {
                Some(names) => {
                    let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                    format!("{era}, extensions: {}", names.join(", "))
                }
                None => era,
            };
            match entry["status"].as_str() {
                Some("connected") => crate::outln!(
                    "{}: connected, {tools} tools, ~{} tokens{}{oauth}{era}",
                    entry["name"].as_str().unwrap_or(""),
                    thousands(entry["estimatedTokens"].as_u64().unwrap_or(0)),
                    deferral(entry["deferredTools"].as_u64().unwrap_or(0), tools as u64)
                ),
                Some(status) => crate::outln!(
                    "{}: {status}{oauth}{}",
                    entry["name"].as_str().unwrap_or(""),
                    entry["error"]
                        .as_str()
                        .map(|e| format!(" — {e}"))
                        .unwrap_or_default()
                ),
                None => {}
            }
            for tool in entry["tools"].as_array().into_iter().flatten() {
                crate::outln!(
                    "  {} [{}{}] {}",
                    tool["name"].as_str().unwrap_or(""),
                    tool["risk"].as_str().unwrap_or(""),
                    if tool["loading"] == "deferred" {
                        ", deferred"
                    } else {
                        ""
                    },
                    first_line(tool["description"].as_str().unwrap_or(""))
                );
            }
            for skipped in entry["skipped"].as_array().into_iter().flatten() {
                crate::outln!(
                    "  skipped {}: {}",
                    skipped["name"].as_str().unwrap_or(""),
                    skipped["reason"].as_str().unwrap_or("")
                );
            }
        }
    }
    // Listing succeeds even when some servers failed: their status says so.
    0
}

/// `, deferred` / `, 3 of 26 deferred` / nothing.
fn deferral(deferred: u64, tools: u64) -> String {
    match deferred {
        0 => String::new(),
        n if n == tools => ", deferred".to_owned(),
        n => format!(", {n} of {tools} deferred"),
    }
}

fn first_line(text: &str) -> String {
    match char_prefix(text.lines().next().unwrap_or(""), 100) {
        (head, 0) => head.to_owned(),
        (head, _) => format!("{head}…"),
    }
}

/// `mcp call SERVER TOOL ARGS`: the user's own call. Deny rules apply, it is audited, it never
/// asks. Exit 1 on an error result or a failure.
pub async fn mcp_call(app: &App, server: &str, tool: &str, args: &str, as_json: bool) -> ExitCode {
    let arguments: Value = match serde_json::from_str(args) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => {
            return fail(
                as_json,
                "ARGS must be a JSON object, like '{\"owner\": \"vercel\"}'",
            )
        }
        Err(e) => return fail(as_json, &format!("ARGS is not valid JSON: {e}")),
    };
    if let Some(ServerStatus::Failed { reason }) = app
        .runtime
        .servers()
        .into_iter()
        .find(|(n, _)| n == server)
        .map(|(_, s)| s)
    {
        return fail(
            as_json,
            &format!("MCP server {server} failed to connect: {reason}"),
        );
    }
    let name = app.runtime.with_agent(|agent| {
        agent
            .registry()
            .server_tools(server)
            .find(|spec| spec.call_name() == tool || spec.name == tool)
            .map(|spec| spec.name.clone())
    });
    let Some(name) = name else {
        return fail(
            as_json,
            &format!("MCP server {server} has no tool named {tool:?} (see `agentwire mcp list`)"),
        );
    };
    match app.runtime.call_tool(&name, arguments, &app.terminal).await {
        Err(refused) => fail(as_json, &refused.to_string()),
        Ok(call) => match (call.output, call.failure) {
            // An error result is the server's error text: redacted like every error.
            (Some(output), _) if output.is_error => {
                if as_json {
                    crate::outln!("{}", redact_value(&output.to_mcp_value()));
                } else {
                    crate::outln!("{}", redact_message(&output.to_model_text()));
                }
                1
            }
            (Some(output), _) => {
                if as_json {
                    crate::outln!("{}", output.to_mcp_value());
                } else {
                    crate::outln!("{}", output.to_model_text());
                }
                i32::from(output.is_error)
            }
            (None, failure) => fail(
                as_json,
                &failure.unwrap_or_else(|| "the call failed".into()),
            ),
        },
    }
}

/// Prints an error (redacted: server errors quote what they were given) and returns 1.
pub(crate) fn fail(as_json: bool, message: &str) -> ExitCode {
    let message = redact_message(message);
    if as_json {
        crate::outln!("{}", json!({"error": message}));
    } else {
        crate::errln!("error: {message}");
    }
    1
}

/// `tools`: every tool, built-in and MCP, with its source, risk, loading and estimated tokens.
pub fn tools(app: &App, as_json: bool) -> ExitCode {
    let (tools, request) = app.runtime.with_agent(|agent| {
        let loadings = loadings(agent);
        let tools: Vec<Value> = agent
            .registry()
            .tools()
            .iter()
            .zip(&loadings)
            .map(|(spec, loading)| {
                let mut v = tool_json(spec, Some(loading));
                v["source"] = spec
                    .server()
                    .map_or_else(|| "builtin".to_owned(), |s| format!("mcp:{s}"))
                    .into();
                v
            })
            .collect();
        (tools, request_tokens(agent))
    });
    let deferred = tools.iter().filter(|t| t["loading"] == "deferred").count();
    if as_json {
        crate::outln!(
            "{}",
            json!({"tools": tools, "deferred": deferred, "requestEstimatedTokens": request})
        );
    } else {
        for tool in &tools {
            crate::outln!(
                "{:<40} {:<8} {:<14} {:<8} {:>6} {}",
                tool["name"].as_str().unwrap_or(""),
                tool["risk"].as_str().unwrap_or(""),
                tool["source"].as_str().unwrap_or(""),
                tool["loading"].as_str().unwrap_or(""),
                format!("~{}", tool["estimatedTokens"].as_u64().unwrap_or(0)),
                first_line(tool["description"].as_str().unwrap_or(""))
            );
        }
        crate::outln!(
            "{} tools, {deferred} deferred; the tools of a request: ~{} tokens",
            tools.len(),
            thousands(request)
        );
    }
    0
}

/// How many ranked tools `tools search` prints by default.
pub const SEARCH_LIMIT: usize = 10;

/// `{"query", "results": [{"name", "score"}]}` for one query (scores rounded to 3 decimals).
fn search_json(index: &ToolIndex, query: &str, limit: usize) -> Value {
    let results: Vec<Value> = index
        .search(query, limit)
        .into_iter()
        .map(|hit| json!({"name": hit.name, "score": (hit.score * 1000.0).round() / 1000.0}))
        .collect();
    json!({"query": query, "results": results})
}

/// `tools search QUERY`: the MCP tools (deferred and direct alike) ranked by the core's index
/// for QUERY, best first. With `-`, one query per line from stdin, one JSON line each, so an
/// evaluation starts the servers once.
pub async fn tools_search(app: &App, query: &str, limit: usize, as_json: bool) -> ExitCode {
    let (index, loadings) = app.runtime.with_agent(|agent| {
        let docs: Vec<ToolDoc> = agent
            .registry()
            .tools()
            .iter()
            .filter_map(|spec| {
                let server = spec.server()?;
                Some(ToolDoc::from_definition(
                    &spec.name,
                    server,
                    spec.call_name(),
                    &spec.description,
                    &spec.input_schema,
                ))
            })
            .collect();
        (ToolIndex::new(docs), loadings(agent))
    });
    if query != "-" {
        let answer = search_json(&index, query, limit);
        if as_json {
            crate::outln!("{}", json!({"results": answer["results"]}));
            return 0;
        }
        let results = answer["results"].as_array().cloned().unwrap_or_default();
        if results.is_empty() {
            crate::outln!("no MCP tool matches {query:?}");
        }
        for hit in results {
            let name = hit["name"].as_str().unwrap_or("");
            let deferred = loadings
                .iter()
                .any(|l| l.name == name && l.loading == Loading::Deferred);
            crate::outln!(
                "{:>8.3}  {name}{}",
                hit["score"].as_f64().unwrap_or(0.0),
                if deferred { "  (deferred)" } else { "" }
            );
        }
        return 0;
    }
    // One query per line: read them all off the async thread, then answer in order.
    let lines = tokio::task::spawn_blocking(|| {
        std::io::stdin().lines().collect::<Result<Vec<String>, _>>()
    })
    .await;
    let lines = match lines {
        Ok(Ok(lines)) => lines,
        Ok(Err(e)) => return fail(true, &format!("cannot read queries from stdin: {e}")),
        Err(e) => return fail(true, &format!("cannot read queries from stdin: {e}")),
    };
    for line in lines {
        crate::outln!("{}", search_json(&index, line.trim(), limit));
    }
    0
}
