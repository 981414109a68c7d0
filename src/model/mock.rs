//! The mock model: deterministic, offline, and honest about what it is.
//!
//! It stands in for a real model where none is reachable (sandboxes, demos, tests). It
//! recognises a few request patterns in English and Chinese, calls the matching tool from the
//! request's tool list (found by name suffix, so `mcp__github__list_issues` and `list_issues`
//! both work), and then writes its answer from what the tool returned.
//!
//! Recognised requests (each only when its tool is offered):
//!
//! | request | tool (name suffix) | arguments |
//! |---|---|---|
//! | "查看 vercel/ai 的 issues", "list issues in facebook/react" | `list_issues` | `owner`, `repo`, plus `state` only when the message says open/closed (打开的/已关闭) |
//! | "查看 vercel/ai 的 issue #123", "show issue 123 in vercel/ai" | `get_issue` | `owner`, `repo`, `issue_number` |
//! | "查看 vercel/ai 的 PR", "list pull requests in vercel/ai" | `list_pull_requests` | `owner`, `repo` (+ `state` as above) |
//! | "读取 vercel/ai 的 README.md", "read README.md of vercel/ai" | `get_file_contents` | `owner`, `repo`, `path` (a bare "readme" means `README.md`) |
//! | "搜索 mcp 相关的仓库", "search repositories about mcp" | `search_repositories` | `query` |
//! | "计算 2+3*4", "calculate 2+3*4" | `calculator` | `expression` |
//! | "北京的天气", "weather in Paris" | `get_weather` | `city` |
//! | "call echo {"message":"hi"}", "调用 get-sum {"a":1,"b":2}" | any offered tool, by its full name or the part after `__` | the JSON object in the message (none: `{}`) |
//!
//! | "use subagents: list issues in vercel/ai; list PRs in facebook/react" | `Agent` | one call per task (`description`, `prompt`, `subagent_type`), all in one turn; the answer quotes each child's report |
//! | "use the mcp-builder skill", "用 mcp-builder 技能", or a request sharing three long words with a skill's description | `activate_skill` | `name`; after the body: "Loaded skill X: &lt;first heading&gt;" |
//!
//! When the tool it wants is deferred (listed in `tool_search`'s description, see
//! [`crate::tool_search`]), it calls `tool_search` with `select:<name>`, then `call_tool`, then
//! answers.
//!
//! Asked to summarise the conversation for a compaction ([`crate::context::compact`]), it lists
//! the user's requests and the tools called, with a `- [ ]` task line for the latest request.
//!
//! It never loops: when the conversation ends in tool results, it answers with text (after a
//! `tool_search` that returned the tool it wants, it calls that tool first).

mod answer;
mod bridge;
mod explicit;
mod intent;
mod lang;
mod skill;
mod subagent;
mod summary;

use crate::model::{ChatMessage, ModelRequest, ModelResponse, ToolCall};
use explicit::Explicit;
use intent::Parsed;
use lang::{find_tool, Lang};

/// A deterministic model that needs no network: its answer is a pure function of the request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MockModel;

impl MockModel {
    /// The mock model.
    pub fn new() -> Self {
        MockModel
    }

    /// Answers `request`: a tool call when the last user message matches a pattern and its tool
    /// is offered, otherwise text; always text when the last message is a tool result. Replies
    /// in Chinese when the last user message contains any CJK character.
    pub fn complete(&self, request: &ModelRequest) -> ModelResponse {
        if let Some(summary) = summary::summarise(request) {
            return ModelResponse::text(summary);
        }
        let last_user = request.messages.iter().rev().find_map(|m| match m {
            ChatMessage::User { content } => Some(content.as_str()),
            _ => None,
        });
        let lang = Lang::detect(last_user.unwrap_or(""));
        // Deferred tools count as offered: the mock loads them through the bridge.
        let mut all = request.tools.clone();
        all.extend(bridge::deferred_tools(&request.tools));
        let tools = &all;
        let last_search = matches!(request.messages.last(),
            Some(ChatMessage::Tool { name, is_error: false, .. }) if name == "tool_search");
        if let Some(text) = skill::loaded(request) {
            return ModelResponse::text(text);
        }
        if let Some(ChatMessage::Tool { .. }) = request.messages.last() {
            if !last_search {
                return ModelResponse::text(answer::from_tool_results(&request.messages, lang));
            }
        }
        let Some(text) = last_user else {
            return ModelResponse::text(lang::no_fit(tools, lang));
        };
        if let Some(dispatch) = subagent::dispatch(request, tools, text) {
            return dispatch;
        }
        if let Some(name) = skill::pick(tools, text) {
            return tool_call(
                request,
                "activate_skill",
                serde_json::json!({ "name": name }),
            );
        }
        let (name, arguments) = match explicit::parse(text, tools) {
            Some(Explicit::Call(name, arguments)) => (name, arguments),
            Some(Explicit::BadArguments(name, error)) => {
                return ModelResponse::text(lang::bad_arguments(name, &error, lang))
            }
            None => match intent::parse(text) {
                Parsed::Call(cap, arguments) => match find_tool(tools, cap) {
                    Some(name) => (name, arguments),
                    None => {
                        return ModelResponse::text(lang::missing_tool(
                            cap, &arguments, tools, lang,
                        ))
                    }
                },
                Parsed::Missing(cap, missing) if find_tool(tools, cap).is_some() => {
                    return ModelResponse::text(lang::ask_for(missing, cap, lang))
                }
                Parsed::Missing(..) | Parsed::NoFit => {
                    return ModelResponse::text(lang::no_fit(tools, lang))
                }
            },
        };
        if bridge::is_direct(request, name) {
            return tool_call(request, name, arguments);
        }
        // A deferred tool: search for it, then call it once its definition came back.
        match bridge::call(request, name, arguments) {
            Some(bridged) => tool_call(request, "call_tool", bridged),
            None if last_search => {
                ModelResponse::text(answer::from_tool_results(&request.messages, lang))
            }
            None => {
                let (search, query) = bridge::search(name);
                tool_call(request, search, query)
            }
        }
    }
}

/// One call of tool `name`.
fn tool_call(request: &ModelRequest, name: &str, arguments: serde_json::Value) -> ModelResponse {
    ModelResponse {
        usage: None,
        text: None,
        tool_calls: vec![ToolCall {
            // Unique within a conversation, since the history only grows.
            id: format!("mock_call_{}", request.messages.len()),
            name: name.to_owned(),
            arguments,
        }],
    }
}

#[cfg(test)]
mod tests;
