//! Answers written from tool results: the mock model reads what the tools returned.
//!
//! Results are parsed as the GitHub REST API shapes the GitHub MCP server returns (issue and
//! pull request arrays, search results, file objects with base64 content). Anything that does
//! not parse is quoted (its start) rather than guessed at.

use serde_json::Value;

use super::lang::{Capability, Lang};
use crate::base64;
use crate::model::{clip, ChatMessage};

/// How many list items an answer shows before summarising the rest.
const MAX_ITEMS: usize = 20;

/// The answer to the trailing tool results of `messages`, one paragraph per result.
pub(super) fn from_tool_results(messages: &[ChatMessage], lang: Lang) -> String {
    let start = messages
        .iter()
        .rposition(|m| !matches!(m, ChatMessage::Tool { .. }))
        .map_or(0, |i| i + 1);
    messages[start..]
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => {
                let (name, args) =
                    super::bridge::unwrap_call(name, call_arguments(messages, tool_call_id));
                Some(one_result(&name, content, *is_error, &args, lang))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The arguments the model sent with call `id` (to say which repository, query, ...).
fn call_arguments(messages: &[ChatMessage], id: &str) -> Value {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            ChatMessage::Assistant { tool_calls, .. } => tool_calls
                .iter()
                .find(|c| c.id == id)
                .map(|c| c.arguments.clone()),
            _ => None,
        })
        .unwrap_or(Value::Null)
}

fn one_result(name: &str, content: &str, is_error: bool, args: &Value, lang: Lang) -> String {
    if is_error {
        let error = clip(content.trim(), 500);
        return match lang {
            Lang::En => format!("The tool `{name}` failed: \"{error}\""),
            Lang::Zh => format!("工具 `{name}` 调用失败：“{error}”"),
        };
    }
    if name == crate::subagent::AGENT_TOOL {
        // A child's report, as the child wrote it.
        let task = str_at(args, "description").unwrap_or("task");
        return format!("{task}:\n{}", clip(content.trim(), 4000));
    }
    let json = crate::json::parse_str(content.trim()).ok();
    let answer = match (Capability::of_tool(name), &json) {
        (Some(Capability::ListIssues), Some(v)) => issues(v, args, lang),
        (Some(Capability::GetIssue), Some(v)) => issue(v, lang),
        (Some(Capability::ListPulls), Some(v)) => pulls(v, args, lang),
        (Some(Capability::SearchRepos), Some(v)) => repositories(v, args, lang),
        (Some(Capability::GetFile), _) => file(json.as_ref(), content, args, lang),
        (Some(Capability::Calculate), _) => Some(calculation(json.as_ref(), content, args, lang)),
        (Some(Capability::Weather), _) => Some(weather(json.as_ref(), content, args, lang)),
        _ => None,
    };
    answer.unwrap_or_else(|| raw(name, content, lang))
}

/// The start of a result that could not be read as expected.
fn raw(name: &str, content: &str, lang: Lang) -> String {
    let text = clip(content.trim(), 500);
    match (lang, text.is_empty()) {
        (Lang::En, true) => format!("`{name}` returned nothing."),
        (Lang::Zh, true) => format!("工具 `{name}` 没有返回内容。"),
        (Lang::En, false) => format!("`{name}` returned:\n{text}"),
        (Lang::Zh, false) => format!("工具 `{name}` 返回：\n{text}"),
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn repo_label(args: &Value) -> String {
    match (str_at(args, "owner"), str_at(args, "repo")) {
        (Some(o), Some(r)) => format!("{o}/{r}"),
        _ => "?".to_owned(),
    }
}

fn state_label(state: &str, lang: Lang) -> String {
    let state = state.to_lowercase();
    let zh = match state.as_str() {
        "open" => "开放",
        "closed" => "已关闭",
        "merged" => "已合并",
        "all" => "全部",
        _ => return state,
    };
    lang.pick(&state, zh).to_owned()
}

/// Label names, from `[{"name": ...}]` (REST) or plain strings.
fn labels(item: &Value) -> Vec<&str> {
    let labels = item.get("labels").and_then(Value::as_array);
    labels
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().or_else(|| str_at(l, "name")))
        .collect()
}

fn login(item: &Value) -> Option<&str> {
    ["user", "author"]
        .iter()
        .find_map(|k| item.get(*k).and_then(|u| str_at(u, "login")))
}

/// A list either bare or wrapped as `{"issues": [...]}` / `{"items": [...]}`.
fn list<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Vec<Value>> {
    v.as_array().or_else(|| {
        keys.iter()
            .find_map(|k| v.get(*k).and_then(Value::as_array))
    })
}

/// `- #12 title [open] (bug, docs)`; `None` if the item lacks a number or title.
fn issue_line(item: &Value, lang: Lang) -> Option<String> {
    let number = item.get("number").and_then(Value::as_u64)?;
    let title = str_at(item, "title")?;
    let mut state = state_label(str_at(item, "state").unwrap_or("?"), lang);
    if item.get("pull_request").is_some_and(|p| !p.is_null()) {
        state.push_str(", pull request");
    }
    let labels = labels(item);
    let labels = if labels.is_empty() {
        String::new()
    } else {
        format!(" ({})", labels.join(", "))
    };
    Some(format!("#{number} {title} [{state}]{labels}"))
}

/// Bulleted lines, cut after `MAX_ITEMS` with a note of how many more there are.
fn bullets(lines: Vec<String>, lang: Lang) -> String {
    let more = lines.len().saturating_sub(MAX_ITEMS);
    let mut out: Vec<String> = lines
        .into_iter()
        .take(MAX_ITEMS)
        .map(|l| format!("- {l}"))
        .collect();
    if more > 0 {
        out.push(match lang {
            Lang::En => format!("…and {more} more."),
            Lang::Zh => format!("……另有 {more} 个。"),
        });
    }
    out.join("\n")
}

fn issues(v: &Value, args: &Value, lang: Lang) -> Option<String> {
    let items = list(v, &["issues", "items"])?;
    let lines = items
        .iter()
        .map(|i| issue_line(i, lang))
        .collect::<Option<Vec<_>>>()?;
    let repo = repo_label(args);
    let state = str_at(args, "state").filter(|s| *s != "all");
    if lines.is_empty() {
        return Some(match (lang, state) {
            (Lang::En, Some(s)) => format!("There are no {s} issues in {repo}."),
            (Lang::En, None) => format!("There are no issues in {repo}."),
            (Lang::Zh, Some(s)) => format!("{repo} 没有{}的 issue。", state_label(s, lang)),
            (Lang::Zh, None) => format!("{repo} 没有 issue。"),
        });
    }
    let n = lines.len();
    let head = match lang {
        Lang::En => format!("Issues in {repo} ({n}):"),
        Lang::Zh => format!("{repo} 的 issue（共 {n} 个）："),
    };
    Some(format!("{head}\n{}", bullets(lines, lang)))
}

fn issue(v: &Value, lang: Lang) -> Option<String> {
    let mut out = issue_line(v, lang)?;
    let date = str_at(v, "created_at").map(|d| d.get(..10).unwrap_or(d));
    let comments = v.get("comments").and_then(Value::as_u64);
    if let Some(who) = login(v) {
        out.push('\n');
        out.push_str(&match (lang, date) {
            (Lang::En, Some(d)) => format!("Opened by @{who} on {d}"),
            (Lang::En, None) => format!("Opened by @{who}"),
            (Lang::Zh, Some(d)) => format!("由 @{who} 于 {d} 创建"),
            (Lang::Zh, None) => format!("由 @{who} 创建"),
        });
        if let Some(c) = comments {
            out.push_str(&match lang {
                Lang::En => format!(", {c} comments."),
                Lang::Zh => format!("，{c} 条评论。"),
            });
        }
    }
    if let Some(url) = str_at(v, "html_url") {
        out.push('\n');
        out.push_str(url);
    }
    if let Some(body) = str_at(v, "body").map(str::trim).filter(|b| !b.is_empty()) {
        out.push_str("\n\n");
        out.push_str(&clip(body, 600));
    }
    Some(out)
}

fn pulls(v: &Value, args: &Value, lang: Lang) -> Option<String> {
    let items = list(v, &["pull_requests", "items"])?;
    let lines = items
        .iter()
        .map(|p| {
            let number = p.get("number").and_then(Value::as_u64)?;
            let title = str_at(p, "title")?;
            let merged = p.get("merged_at").is_some_and(|m| !m.is_null());
            let mut state = state_label(
                if merged {
                    "merged"
                } else {
                    str_at(p, "state").unwrap_or("?")
                },
                lang,
            );
            if p.get("draft").and_then(Value::as_bool) == Some(true) {
                state.push_str(lang.pick(", draft", "，草稿"));
            }
            let branch = |side: &str| p.get(side).and_then(|b| str_at(b, "ref"));
            let mut line = format!("#{number} {title} [{state}]");
            if let (Some(head), Some(base)) = (branch("head"), branch("base")) {
                line.push_str(&format!(" {head} → {base}"));
            }
            if let Some(who) = login(p) {
                line.push_str(&format!(" @{who}"));
            }
            Some(line)
        })
        .collect::<Option<Vec<_>>>()?;
    let repo = repo_label(args);
    if lines.is_empty() {
        return Some(match lang {
            Lang::En => format!("There are no matching pull requests in {repo}."),
            Lang::Zh => format!("{repo} 没有符合条件的 pull request。"),
        });
    }
    let n = lines.len();
    let head = match lang {
        Lang::En => format!("Pull requests in {repo} ({n}):"),
        Lang::Zh => format!("{repo} 的 pull request（共 {n} 个）："),
    };
    Some(format!("{head}\n{}", bullets(lines, lang)))
}

fn repositories(v: &Value, args: &Value, lang: Lang) -> Option<String> {
    let items = list(v, &["items", "repositories"])?;
    let lines = items
        .iter()
        .map(|r| {
            let name = str_at(r, "full_name").or_else(|| str_at(r, "name"))?;
            let mut line = name.to_owned();
            if let Some(stars) = r.get("stargazers_count").and_then(Value::as_u64) {
                line.push_str(&format!(" ★{stars}"));
            }
            if let Some(language) = str_at(r, "language") {
                line.push_str(&format!(" [{language}]"));
            }
            if let Some(d) = str_at(r, "description").filter(|d| !d.is_empty()) {
                line.push_str(&format!(": {}", clip(d, 160)));
            }
            Some(line)
        })
        .collect::<Option<Vec<_>>>()?;
    let query = str_at(args, "query").unwrap_or("?");
    let total = v
        .get("total_count")
        .and_then(Value::as_u64)
        .unwrap_or(lines.len() as u64);
    if lines.is_empty() {
        return Some(match lang {
            Lang::En => format!("No repositories match \"{query}\"."),
            Lang::Zh => format!("没有找到与“{query}”相关的仓库。"),
        });
    }
    let shown = lines.len().min(MAX_ITEMS);
    let head = match lang {
        Lang::En => format!("Found {total} repositories for \"{query}\" (showing {shown}):"),
        Lang::Zh => format!("找到 {total} 个与“{query}”相关的仓库（显示 {shown} 个）："),
    };
    Some(format!("{head}\n{}", bullets(lines, lang)))
}

fn file(json: Option<&Value>, content: &str, args: &Value, lang: Lang) -> Option<String> {
    let repo = repo_label(args);
    let asked = str_at(args, "path").unwrap_or("?");
    let Some(v) = json else {
        // Servers that return the file as an embedded resource: "[resource uri]\n<text>".
        let body = content.strip_prefix("[resource ")?.split_once('\n')?.1;
        return Some(file_text(asked, &repo, body, body.len(), lang));
    };
    if let Some(entries) = v.as_array() {
        let lines: Vec<String> = entries
            .iter()
            .filter_map(|e| {
                let name = str_at(e, "name")?;
                Some(match str_at(e, "type") {
                    Some("dir") => format!("{name}/"),
                    _ => name.to_owned(),
                })
            })
            .collect();
        let n = lines.len();
        let head = match lang {
            Lang::En => format!("{asked} in {repo} has {n} entries:"),
            Lang::Zh => format!("{repo} 的 {asked} 目录下有 {n} 项："),
        };
        return Some(format!("{head}\n{}", bullets(lines, lang)));
    }
    let path = str_at(v, "path").unwrap_or(asked);
    let Some(encoded) = str_at(v, "content") else {
        let url = str_at(v, "download_url")?;
        return Some(match lang {
            Lang::En => {
                format!("{path} in {repo} is too large to show here; download it from {url}")
            }
            Lang::Zh => format!("{repo} 中的 {path} 太大，无法在此显示；下载地址：{url}"),
        });
    };
    let declared_size = v.get("size").and_then(Value::as_u64).map(|s| s as usize);
    let bytes = match str_at(v, "encoding") {
        // The GitHub API sends base64, but the GitHub MCP server (and the built-in mock) decode
        // it and keep the label. Content that is not base64 is already the text; when it could
        // be either (plain text such as "abcd" is valid base64), the declared size, which
        // counts the file's real bytes, says which reading is right.
        Some("base64") => match base64::decode(encoded) {
            Ok(decoded)
                if declared_size != Some(encoded.len()) || declared_size == Some(decoded.len()) =>
            {
                decoded
            }
            _ => encoded.as_bytes().to_vec(),
        },
        _ => encoded.as_bytes().to_vec(),
    };
    let size = declared_size.unwrap_or(bytes.len());
    match String::from_utf8(bytes) {
        Ok(text) => Some(file_text(path, &repo, &text, size, lang)),
        Err(_) => Some(match lang {
            Lang::En => format!("{path} in {repo} is a binary file ({size} bytes)."),
            Lang::Zh => format!("{repo} 中的 {path} 是二进制文件（{size} 字节）。"),
        }),
    }
}

fn file_text(path: &str, repo: &str, text: &str, size: usize, lang: Lang) -> String {
    let head = match lang {
        Lang::En => format!("{path} in {repo} ({size} bytes):"),
        Lang::Zh => format!("{repo} 中 {path} 的内容（{size} 字节）："),
    };
    format!("{head}\n\n{}", clip(text.trim_end(), 1500))
}

fn calculation(json: Option<&Value>, content: &str, args: &Value, lang: Lang) -> String {
    let result = match json {
        Some(Value::Object(o)) => o.get("result").map_or_else(
            || Value::Object(o.clone()).to_string(),
            |r| r.as_str().map_or_else(|| r.to_string(), str::to_owned),
        ),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => clip(content.trim(), 200),
    };
    match (str_at(args, "expression"), lang) {
        (Some(e), Lang::En) if !result.contains('=') => format!("{e} = {result}"),
        (Some(e), Lang::Zh) if !result.contains('=') => format!("计算结果：{e} = {result}"),
        (_, Lang::En) => format!("The result is {result}."),
        (_, Lang::Zh) => format!("计算结果：{result}"),
    }
}

fn weather(json: Option<&Value>, content: &str, args: &Value, lang: Lang) -> String {
    let city = str_at(args, "city")
        .or_else(|| json.and_then(|v| str_at(v, "city").or_else(|| str_at(v, "location"))))
        .unwrap_or("?");
    let summary = match json {
        Some(Value::Object(o)) => o
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "city" | "location"))
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some(format!("{k}: {s}")),
                Value::Number(n) => Some(format!("{k}: {n}")),
                Value::Bool(b) => Some(format!("{k}: {b}")),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => clip(content.trim(), 500),
    };
    match lang {
        Lang::En => format!("Weather in {city}: {summary}"),
        Lang::Zh => format!("{city}的天气：{summary}"),
    }
}
