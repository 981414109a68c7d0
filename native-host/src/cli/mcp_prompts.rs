//! MCP resources and prompts for the user: `agentwire mcp resources|read|prompts|prompt`, and
//! server prompts as `/mcp__<server>__<prompt>` commands in the interactive session.

use crate::app::App;
use crate::cli::commands::{fail, ExitCode};
use crate::os::display_url::redact_message;
use agentwire::mcp::prompt_text;
use serde_json::{json, Map, Value};

/// `mcp resources [SERVER]`: resources and templates of every server offering them.
pub async fn resources(app: &App, server: Option<&str>, as_json: bool) -> ExitCode {
    let listed = match app.runtime.resources(server).await {
        Ok(listed) => listed,
        Err(e) => return fail(as_json, &e),
    };
    if as_json {
        crate::outln!("{listed}");
        return 0;
    }
    let text = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().to_owned();
    for r in listed["resources"].as_array().into_iter().flatten() {
        let about = [text(r, "name"), text(r, "description")].join(" ");
        crate::outln!(
            "@{}:{}  {}",
            text(r, "server"),
            text(r, "uri"),
            about.trim()
        );
    }
    for t in listed["resourceTemplates"].as_array().into_iter().flatten() {
        let about = [text(t, "name"), text(t, "description")].join(" ");
        crate::outln!(
            "@{}:{}  (template) {}",
            text(t, "server"),
            text(t, "uriTemplate"),
            about.trim()
        );
    }
    0
}

/// `mcp read SERVER URI`: one resource's contents.
pub async fn read(app: &App, server: &str, uri: &str, as_json: bool) -> ExitCode {
    match app.runtime.read_resource(server, uri).await {
        Ok(output) if as_json => {
            let contents: Vec<Value> = output
                .content
                .iter()
                .map(|b| b.to_value()["resource"].clone())
                .collect();
            crate::outln!("{}", json!({ "contents": contents }));
            0
        }
        Ok(output) => {
            crate::outln!("{}", output.to_model_text());
            0
        }
        Err(e) => fail(as_json, &e),
    }
}

/// `mcp prompts [SERVER]`: every prompt with its arguments.
pub async fn prompts(app: &App, server: Option<&str>, as_json: bool) -> ExitCode {
    let prompts = match app.runtime.prompts(server).await {
        Ok(prompts) => prompts,
        Err(e) => return fail(as_json, &e),
    };
    if as_json {
        crate::outln!("{}", Value::from(prompts));
        return 0;
    }
    for p in &prompts {
        crate::outln!("{}", usage_line(p));
    }
    0
}

/// `/mcp__server__name <arg> [arg?] — description`, for listings and `/help`.
pub fn usage_line(prompt: &Value) -> String {
    let arguments = prompt["arguments"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let args: Vec<String> = arguments
        .iter()
        .map(|a| {
            let name = a["name"].as_str().unwrap_or("?");
            if a["required"] == true {
                format!("<{name}>")
            } else {
                format!("[{name}]")
            }
        })
        .collect();
    let command = format!(
        "/mcp__{}__{} {}",
        prompt["server"].as_str().unwrap_or_default(),
        prompt["name"].as_str().unwrap_or_default(),
        args.join(" ")
    );
    match prompt["description"].as_str() {
        Some(d) => format!("{}  {d}", command.trim_end()),
        None => command.trim_end().to_owned(),
    }
}

/// `mcp prompt SERVER NAME [name=value ...]`: the prompt's messages.
pub async fn prompt(
    app: &App,
    server: &str,
    name: &str,
    args: &[String],
    as_json: bool,
) -> ExitCode {
    let arguments = match prompt_arguments(app, server, name, args).await {
        Ok(arguments) => arguments,
        Err(e) => return fail(as_json, &e),
    };
    let result = match app.runtime.get_prompt(server, name, arguments).await {
        Ok(result) => result,
        Err(e) => return fail(as_json, &e),
    };
    if as_json {
        crate::outln!("{result}");
        return 0;
    }
    match prompt_text(&result) {
        Ok(text) => {
            crate::outln!("{text}");
            0
        }
        Err(e) => fail(false, &format!("MCP server {server}: prompt {name}: {e}")),
    }
}

/// Reads `name=value` and positional arguments (in the prompt's declared order) into the
/// object `prompts/get` takes; a name the prompt does not declare is an error naming it.
pub async fn prompt_arguments(
    app: &App,
    server: &str,
    name: &str,
    args: &[String],
) -> Result<Value, String> {
    let declared: Vec<String> = app
        .runtime
        .prompts(Some(server))
        .await?
        .into_iter()
        .find(|p| p["name"] == name)
        .ok_or_else(|| {
            format!(
                "MCP server {server} has no prompt named {name:?} (see `agentwire mcp prompts`)"
            )
        })?["arguments"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|a| a["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    parse_arguments(&declared, args)
        .map_err(|e| format!("prompt {name} of MCP server {server}: {e}"))
}

/// Positional values fill the declared arguments in order; `name=value` names one.
pub fn parse_arguments(declared: &[String], args: &[String]) -> Result<Value, String> {
    let mut map = Map::new();
    let mut positional = declared.iter();
    for arg in args {
        let named = arg
            .split_once('=')
            .filter(|(k, _)| declared.iter().any(|d| d == k));
        let (key, value) = match named {
            Some((k, v)) => (k.to_owned(), v),
            None => match positional.find(|d| !map.contains_key(*d)) {
                Some(d) => (d.clone(), arg.as_str()),
                None => {
                    return Err(format!(
                        "unexpected argument {arg:?} (it takes {})",
                        declared.join(", ")
                    ))
                }
            },
        };
        map.insert(key, Value::from(value));
    }
    Ok(Value::Object(map))
}

/// Whether a REPL line is a prompt command, `/mcp__<server>__<prompt> ...`.
pub fn is_prompt_command(line: &str) -> bool {
    line.starts_with("/mcp__")
}

/// Runs a prompt command in the REPL: gets the prompt and sends its text as the user's turn.
pub async fn run_command(app: &App, line: &str) {
    let mut words = line.split_whitespace();
    let command = words
        .next()
        .unwrap_or_default()
        .trim_start_matches("/mcp__");
    let Some((server, name)) = command.split_once("__") else {
        crate::errln!("error: prompt commands look like /mcp__<server>__<prompt>");
        return;
    };
    let args: Vec<String> = words.map(str::to_owned).collect();
    let text = async {
        let arguments = prompt_arguments(app, server, name, &args).await?;
        let result = app.runtime.get_prompt(server, name, arguments).await?;
        prompt_text(&result).map_err(|e| format!("MCP server {server}: prompt {name}: {e}"))
    };
    // Ctrl-C while a slow server answers stops the wait (and cancels its request).
    match app.runtime.interruptible(text).await {
        Ok(Ok(text)) => {
            let _ = app.runtime.run(&text, &app.terminal).await;
        }
        Ok(Err(e)) => crate::errln!("error: {}", redact_message(&e)),
        Err(reason) => crate::errln!("interrupted: {reason} stopped /mcp__{server}__{name}"),
    }
}

/// `/help` lines for every server prompt.
pub async fn help_lines(app: &App) -> Vec<String> {
    let prompts = app.runtime.prompts(None).await.unwrap_or_default();
    prompts
        .iter()
        .map(|p| format!("  {}", usage_line(p)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positional_and_named_arguments_fill_the_declared_ones() {
        let declared = ["owner".to_owned(), "repo".to_owned(), "path".to_owned()];
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let got = parse_arguments(&declared, &args(&["repo=ai", "vercel", "a=b.md"])).unwrap();
        assert_eq!(
            got,
            json!({"repo": "ai", "owner": "vercel", "path": "a=b.md"})
        );
        let err = parse_arguments(&declared[..1], &args(&["x", "y"])).unwrap_err();
        assert!(err.contains("unexpected argument \"y\""), "{err}");
    }
}
