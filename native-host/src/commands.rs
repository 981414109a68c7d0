//! `run`, `mcp list`, `mcp call` and `tools` (`mcp logout` is in [`crate::logout`]: it starts no
//! server).

use crate::app::App;
use agentwire::driver::ServerStatus;
use agentwire::registry::{char_prefix, ToolSpec};
use serde_json::{json, Value};

/// Process exit status of a command.
pub type ExitCode = i32;

/// One agent run; prints steps and the answer. Exit 1 when the run ends in an error.
pub async fn run(app: &App, prompt: &str) -> ExitCode {
    match app.runtime.run(prompt, &app.terminal).await {
        Ok(_) => 0,
        Err(_) => 1,
    }
}

fn tool_json(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "original_name": spec.call_name(),
        "description": spec.description,
        "risk": spec.risk.as_str(),
    })
}

/// `mcp list`: servers, status, error, tools.
pub fn mcp_list(app: &App, as_json: bool) -> ExitCode {
    let servers = app.runtime.servers();
    let entries: Vec<Value> = app.runtime.with_agent(|agent| {
        servers
            .iter()
            .map(|(name, status)| {
                let tools: Vec<Value> =
                    agent.registry().server_tools(name).map(tool_json).collect();
                let error = match status {
                    ServerStatus::Failed { reason } => Value::String(reason.clone()),
                    _ => Value::Null,
                };
                let oauth = app
                    .servers
                    .iter()
                    .find(|s| &s.name == name)
                    .and_then(crate::account::oauth_state);
                let skipped: Vec<Value> = agent
                    .registry()
                    .skipped_tools(name)
                    .iter()
                    .map(|s| json!({"name": s.name, "reason": s.reason}))
                    .collect();
                let mut entry = json!({"name": name, "status": status.as_str(), "error": error,
                    "tools": tools, "skipped": skipped});
                if let Some(oauth) = oauth {
                    entry["oauth"] = oauth;
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
                Some(state) => format!(" ({})", crate::account::describe_oauth_state(state)),
                None => String::new(),
            };
            match entry["status"].as_str() {
                Some("connected") => crate::outln!(
                    "{}: connected, {tools} tools{oauth}",
                    entry["name"].as_str().unwrap_or("")
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
                    "  {} [{}] {}",
                    tool["name"].as_str().unwrap_or(""),
                    tool["risk"].as_str().unwrap_or(""),
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

fn fail(as_json: bool, message: &str) -> ExitCode {
    if as_json {
        crate::outln!("{}", json!({"error": message}));
    } else {
        eprintln!("error: {message}");
    }
    1
}

/// `tools`: every tool, built-in and MCP, with its source and risk.
pub fn tools(app: &App, as_json: bool) -> ExitCode {
    let tools: Vec<Value> = app.runtime.with_agent(|agent| {
        agent
            .registry()
            .tools()
            .iter()
            .map(|spec| {
                let mut v = tool_json(spec);
                v["source"] = spec
                    .server()
                    .map_or_else(|| "builtin".to_owned(), |s| format!("mcp:{s}"))
                    .into();
                v
            })
            .collect()
    });
    if as_json {
        crate::outln!("{}", json!({"tools": tools}));
    } else {
        for tool in &tools {
            crate::outln!(
                "{:<40} {:<8} {:<14} {}",
                tool["name"].as_str().unwrap_or(""),
                tool["risk"].as_str().unwrap_or(""),
                tool["source"].as_str().unwrap_or(""),
                first_line(tool["description"].as_str().unwrap_or(""))
            );
        }
    }
    0
}
