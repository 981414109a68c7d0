//! The mock's resources, prompts and argument completion.
//!
//! Like the real GitHub MCP server, file contents are resources under the template
//! `repo://{owner}/{repo}/contents{/path*}`; `resources/list` names each repository's README.
//! Two prompts turn canned data into a ready request: `summarize_open_issues` and
//! `explain_file`. Completion suggests owners, repositories and paths from the canned data.

use super::data::{State, FILES, ISSUES, REPOS};
use crate::jsonrpc::{codes, ErrorObject};
use serde_json::{json, Map, Value};

const TEMPLATE: &str = "repo://{owner}/{repo}/contents{/path*}";

fn invalid(message: String) -> ErrorObject {
    ErrorObject::new(codes::INVALID_PARAMS, message)
}

fn uri_of(repo: &str, path: &str) -> String {
    format!("repo://{repo}/contents/{path}")
}

fn mime_of(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        Some("ts") => "text/typescript",
        Some("rs") => "text/x-rust",
        _ => "text/plain",
    }
}

/// `resources/list`: every README, one page.
pub(super) fn list() -> Value {
    let readmes = FILES.iter().filter(|f| f.path == "README.md");
    let resources: Vec<Value> = readmes
        .map(|f| {
            json!({"uri": uri_of(f.repo, f.path), "name": format!("{} README", f.repo),
                   "mimeType": "text/markdown"})
        })
        .collect();
    json!({ "resources": resources })
}

/// `resources/templates/list`.
pub(super) fn templates() -> Value {
    json!({"resourceTemplates": [{"uriTemplate": TEMPLATE, "name": "Repository Content",
        "description": "A file on a repository's default branch"}]})
}

/// `resources/read` of `repo://owner/repo/contents/path`.
pub(super) fn read(params: Option<&Map<String, Value>>) -> Result<Value, ErrorObject> {
    let uri = params
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("resources/read needs a string \"uri\"".into()))?;
    let file = uri
        .strip_prefix("repo://")
        .and_then(|rest| rest.split_once("/contents/"))
        .and_then(|(repo, path)| FILES.iter().find(|f| f.repo == repo && f.path == path))
        // -32002 is the spec's "resource not found".
        .ok_or_else(|| ErrorObject::new(-32002, format!("Resource not found: {uri}")))?;
    Ok(json!({"contents": [{"uri": uri, "mimeType": mime_of(file.path), "text": file.content}]}))
}

fn argument(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "required": true})
}

/// `prompts/list`.
pub(super) fn prompts() -> Value {
    let (owner, repo) = (
        argument("owner", "Repository owner"),
        argument("repo", "Repository name"),
    );
    json!({"prompts": [
        {"name": "summarize_open_issues", "description": "Summarise the open issues of a repository",
         "arguments": [owner, repo]},
        {"name": "explain_file", "description": "Explain one file of a repository",
         "arguments": [owner, repo, argument("path", "File path")]},
    ]})
}

/// `prompts/get`.
pub(super) fn get(params: Option<&Map<String, Value>>) -> Result<Value, ErrorObject> {
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let args = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object);
    let arg = |key: &str| {
        args.and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid(format!("prompt {name} needs argument \"{key}\"")))
    };
    let text = |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
    let messages = match name {
        "summarize_open_issues" => {
            let repo = format!("{}/{}", arg("owner")?, arg("repo")?);
            let open = ISSUES
                .iter()
                .filter(|i| i.repo == repo && i.state == State::Open);
            let list: Vec<String> = open.map(|i| format!("#{} {}", i.number, i.title)).collect();
            vec![text(format!(
                "Summarise the open issues of {repo} and group them by theme:\n{}",
                list.join("\n")
            ))]
        }
        "explain_file" => {
            let (repo, path) = (format!("{}/{}", arg("owner")?, arg("repo")?), arg("path")?);
            let uri = uri_of(&repo, path);
            let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
            let resource = read(Some(&params))?["contents"][0].take();
            vec![
                text(format!("Explain what {path} in {repo} is for.")),
                json!({"role": "user", "content": {"type": "resource", "resource": resource}}),
            ]
        }
        _ => return Err(invalid(format!("Unknown prompt: {name}"))),
    };
    Ok(json!({ "messages": messages }))
}

/// `completion/complete` for the prompts' arguments (and the template's variables).
pub(super) fn complete(params: Option<&Map<String, Value>>) -> Value {
    let field = |pointer: &str| {
        params
            .and_then(|p| p.get("argument"))
            .and_then(|a| a.pointer(pointer))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (name, prefix) = (field("/name"), field("/value"));
    let given = |key: &str| {
        params
            .and_then(|p| p.get("context"))
            .and_then(|c| c.pointer(&format!("/arguments/{key}")))
            .and_then(Value::as_str)
    };
    let repo = given("owner")
        .zip(given("repo"))
        .map(|(o, r)| format!("{o}/{r}"));
    let mut values: Vec<String> = match name {
        "owner" => REPOS.iter().map(|r| r.owner.to_owned()).collect(),
        "repo" => {
            let owner = given("owner");
            let repos = REPOS.iter().filter(|r| owner.is_none_or(|o| o == r.owner));
            repos.map(|r| r.name.to_owned()).collect()
        }
        "path" => FILES
            .iter()
            .filter(|f| repo.as_ref().is_none_or(|r| *r == f.repo))
            .map(|f| f.path.to_owned())
            .collect(),
        _ => Vec::new(),
    };
    values.retain(|v| v.starts_with(prefix));
    values.dedup();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}
