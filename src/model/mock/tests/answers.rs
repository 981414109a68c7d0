use serde_json::{json, Value};

use super::{after_tool, answer, user};
use crate::model::{ChatMessage, MockModel, ToolCall};

const LIST: &str = "mcp__github__list_issues";

/// An issue as the GitHub REST API (and so the GitHub MCP server) returns it.
fn rest_issue(
    repo: &str,
    number: u64,
    title: &str,
    state: &str,
    labels: &[&str],
    login: &str,
) -> Value {
    json!({
        "url": format!("https://api.github.com/repos/{repo}/issues/{number}"),
        "repository_url": format!("https://api.github.com/repos/{repo}"),
        "html_url": format!("https://github.com/{repo}/issues/{number}"),
        "id": 2_000_000_000u64 + number,
        "node_id": "I_kwDOJ",
        "number": number,
        "title": title,
        "user": {"login": login, "id": 42, "type": "User", "html_url": format!("https://github.com/{login}")},
        "labels": labels.iter().map(|l| json!({"id": 1, "name": l, "color": "d73a4a", "default": false, "description": ""})).collect::<Vec<_>>(),
        "state": state,
        "locked": false,
        "assignee": null,
        "assignees": [],
        "milestone": null,
        "comments": 3,
        "created_at": "2025-03-14T09:26:53Z",
        "updated_at": "2025-03-15T10:00:00Z",
        "closed_at": null,
        "author_association": "CONTRIBUTOR",
        "body": "Steps to reproduce:\n1. call streamText\n2. observe the error",
    })
}

fn list_args(repo: &str) -> Value {
    let (owner, name) = repo.split_once('/').unwrap();
    json!({"owner": owner, "repo": name})
}

#[test]
fn issue_lists_are_read_from_the_result() {
    let result = json!([
        rest_issue(
            "vercel/ai",
            5012,
            "streamText drops the last chunk",
            "open",
            &["bug", "ai/core"],
            "octocat"
        ),
        rest_issue(
            "vercel/ai",
            4998,
            "Docs: tool calling example is outdated",
            "open",
            &[],
            "hubot"
        ),
    ])
    .to_string();
    assert_eq!(
        answer(
            "show the issues in vercel/ai",
            LIST,
            list_args("vercel/ai"),
            &result
        ),
        "Issues in vercel/ai (2):\n\
         - #5012 streamText drops the last chunk [open] (bug, ai/core)\n\
         - #4998 Docs: tool calling example is outdated [open]"
    );
    assert_eq!(
        answer(
            "查看 vercel/ai 的 issues",
            LIST,
            list_args("vercel/ai"),
            &result
        ),
        "vercel/ai 的 issue（共 2 个）：\n\
         - #5012 streamText drops the last chunk [开放] (bug, ai/core)\n\
         - #4998 Docs: tool calling example is outdated [开放]"
    );

    // Different data, different answer: nothing is canned.
    let mut pull = rest_issue(
        "facebook/react",
        31000,
        "useEffect fires twice",
        "closed",
        &["Status: Unconfirmed"],
        "gaearon",
    );
    pull["pull_request"] =
        json!({"url": "https://api.github.com/repos/facebook/react/pulls/31000"});
    let other = json!([pull]).to_string();
    assert_eq!(
        answer("list issues in facebook/react", LIST, list_args("facebook/react"), &other),
        "Issues in facebook/react (1):\n- #31000 useEffect fires twice [closed, pull request] (Status: Unconfirmed)"
    );

    // The wrapped shape of newer servers, label names as strings, and an empty list.
    let wrapped = json!({"issues": [{"number": 7, "title": "Wrapped", "state": "OPEN", "labels": ["x"]}], "totalCount": 1}).to_string();
    assert_eq!(
        answer("list issues in a/b", LIST, list_args("a/b"), &wrapped),
        "Issues in a/b (1):\n- #7 Wrapped [open] (x)"
    );
    let mut open_args = list_args("a/b");
    open_args["state"] = json!("open");
    assert_eq!(
        answer("list open issues in a/b", LIST, open_args.clone(), "[]"),
        "There are no open issues in a/b."
    );
    assert_eq!(
        answer("查看 a/b 打开的 issue", LIST, open_args, "[]"),
        "a/b 没有开放的 issue。"
    );
}

#[test]
fn long_lists_are_cut_with_a_count() {
    let issues: Vec<Value> = (1..=23)
        .map(|n| rest_issue("o/r", n, &format!("Issue {n}"), "open", &[], "u"))
        .collect();
    let text = answer(
        "list issues in o/r",
        LIST,
        list_args("o/r"),
        &Value::from(issues).to_string(),
    );
    assert_eq!(text.lines().count(), 1 + 20 + 1);
    assert!(
        text.starts_with("Issues in o/r (23):\n- #1 Issue 1 [open]"),
        "{text}"
    );
    assert!(
        text.ends_with("- #20 Issue 20 [open]\n…and 3 more."),
        "{text}"
    );
}

#[test]
fn one_issue_in_detail() {
    let mut issue = rest_issue(
        "vercel/ai",
        123,
        "Tool call arguments arrive empty",
        "open",
        &["bug"],
        "octocat",
    );
    issue["comments"] = json!(7);
    let args = json!({"owner": "vercel", "repo": "ai", "issue_number": 123});
    assert_eq!(
        answer(
            "show issue 123 in vercel/ai",
            "mcp__github__get_issue",
            args.clone(),
            &issue.to_string()
        ),
        "#123 Tool call arguments arrive empty [open] (bug)\n\
         Opened by @octocat on 2025-03-14, 7 comments.\n\
         https://github.com/vercel/ai/issues/123\n\n\
         Steps to reproduce:\n1. call streamText\n2. observe the error"
    );
    let zh = answer(
        "查看 vercel/ai 的 issue #123",
        "mcp__github__get_issue",
        args,
        &issue.to_string(),
    );
    assert!(zh.starts_with("#123 Tool call arguments arrive empty [开放] (bug)\n由 @octocat 于 2025-03-14 创建，7 条评论。"), "{zh}");
}

#[test]
fn pull_requests_show_state_branches_and_author() {
    let pulls = json!([
        {"number": 88, "title": "Add retries", "state": "open", "draft": true, "merged_at": null,
         "user": {"login": "alice"}, "head": {"ref": "retries", "sha": "abc"}, "base": {"ref": "main", "sha": "def"}},
        {"number": 80, "title": "Fix typo", "state": "closed", "draft": false, "merged_at": "2025-01-02T00:00:00Z",
         "user": {"login": "bob"}, "head": {"ref": "typo"}, "base": {"ref": "main"}},
    ]);
    let args = json!({"owner": "vercel", "repo": "ai"});
    assert_eq!(
        answer("list pull requests in vercel/ai", "mcp__github__list_pull_requests", args.clone(), &pulls.to_string()),
        "Pull requests in vercel/ai (2):\n- #88 Add retries [open, draft] retries → main @alice\n- #80 Fix typo [merged] typo → main @bob"
    );
    assert_eq!(
        answer("查看 vercel/ai 的 PR", "mcp__github__list_pull_requests", args, &pulls.to_string()),
        "vercel/ai 的 pull request（共 2 个）：\n- #88 Add retries [开放，草稿] retries → main @alice\n- #80 Fix typo [已合并] typo → main @bob"
    );
}

#[test]
fn search_results_list_repositories() {
    let result = json!({
        "total_count": 1234,
        "incomplete_results": false,
        "items": [
            {"id": 1, "full_name": "modelcontextprotocol/servers", "description": "Model Context Protocol Servers",
             "stargazers_count": 40123, "language": "TypeScript", "html_url": "https://github.com/modelcontextprotocol/servers"},
            {"id": 2, "full_name": "modelcontextprotocol/rust-sdk", "description": null,
             "stargazers_count": 2100, "language": "Rust"},
        ]
    })
    .to_string();
    let args = json!({"query": "mcp"});
    assert_eq!(
        answer(
            "search repositories about mcp",
            "mcp__github__search_repositories",
            args.clone(),
            &result
        ),
        "Found 1234 repositories for \"mcp\" (showing 2):\n\
         - modelcontextprotocol/servers ★40123 [TypeScript]: Model Context Protocol Servers\n\
         - modelcontextprotocol/rust-sdk ★2100 [Rust]"
    );
    assert!(answer(
        "搜索 mcp 相关的仓库",
        "mcp__github__search_repositories",
        args.clone(),
        &result
    )
    .starts_with(
        "找到 1234 个与“mcp”相关的仓库（显示 2 个）：\n- modelcontextprotocol/servers ★40123"
    ));
    assert_eq!(
        answer(
            "search repositories about mcp",
            "mcp__github__search_repositories",
            args,
            r#"{"total_count":0,"items":[]}"#
        ),
        "No repositories match \"mcp\"."
    );
}

#[test]
fn file_contents_are_decoded_from_base64() {
    // "# AI SDK\n\nThe AI SDK is a TypeScript toolkit.\n" wrapped at 60 columns, as GitHub does.
    let result = json!({
        "type": "file", "encoding": "base64", "size": 47, "name": "README.md", "path": "README.md",
        "content": "IyBBSSBTREsKClRoZSBBSSBTREsgaXMgYSBUeXBlU2NyaXB0IHRvb2xraXQu\nCg==\n",
        "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
        "html_url": "https://github.com/vercel/ai/blob/main/README.md",
    })
    .to_string();
    let args = json!({"owner": "vercel", "repo": "ai", "path": "README.md"});
    assert_eq!(
        answer(
            "read README.md of vercel/ai",
            "mcp__github__get_file_contents",
            args.clone(),
            &result
        ),
        "README.md in vercel/ai (47 bytes):\n\n# AI SDK\n\nThe AI SDK is a TypeScript toolkit."
    );
    assert_eq!(
        answer("读取 vercel/ai 的 README.md", "mcp__github__get_file_contents", args.clone(), &result),
        "vercel/ai 中 README.md 的内容（47 字节）：\n\n# AI SDK\n\nThe AI SDK is a TypeScript toolkit."
    );
    // A directory, an embedded resource, binary content, undecodable base64.
    let dir = json!([{"name": "src", "type": "dir"}, {"name": "package.json", "type": "file"}])
        .to_string();
    assert_eq!(
        answer(
            "read packages of vercel/ai",
            "mcp__github__get_file_contents",
            json!({"owner": "vercel", "repo": "ai", "path": "packages"}),
            &dir
        ),
        "packages in vercel/ai has 2 entries:\n- src/\n- package.json"
    );
    let resource = "[resource repo://vercel/ai/contents/README.md]\nHello from a resource";
    assert_eq!(
        answer(
            "read README.md of vercel/ai",
            "mcp__github__get_file_contents",
            args.clone(),
            resource
        ),
        "README.md in vercel/ai (21 bytes):\n\nHello from a resource"
    );
    let binary =
        json!({"path": "logo.png", "encoding": "base64", "content": "iVBORw0KGgo=", "size": 8})
            .to_string();
    assert_eq!(
        answer(
            "read logo.png of vercel/ai",
            "mcp__github__get_file_contents",
            args.clone(),
            &binary
        ),
        "logo.png in vercel/ai is a binary file (8 bytes)."
    );
    // Labelled base64 but not base64: the GitHub MCP server's decoded text, shown as it is.
    let decoded = json!({"path": "a.md", "encoding": "base64", "content": "# Title\n%%%"});
    assert_eq!(
        answer(
            "read a.md of vercel/ai",
            "mcp__github__get_file_contents",
            args.clone(),
            &decoded.to_string(),
        ),
        "a.md in vercel/ai (11 bytes):\n\n# Title\n%%%"
    );
    // Decoded text that happens to be valid base64 too: the size (4 bytes of text, where the
    // base64 reading would give 3) keeps it as text.
    let ambiguous = json!({"path": "id.txt", "encoding": "base64", "content": "abcd", "size": 4});
    assert_eq!(
        answer(
            "read id.txt of vercel/ai",
            "mcp__github__get_file_contents",
            args.clone(),
            &ambiguous.to_string(),
        ),
        "id.txt in vercel/ai (4 bytes):\n\nabcd"
    );
    // The same bytes with the size of their decoded form are base64 ("Zm9v" is "foo").
    let encoded = json!({"path": "f.txt", "encoding": "base64", "content": "Zm9v", "size": 3});
    assert_eq!(
        answer(
            "read f.txt of vercel/ai",
            "mcp__github__get_file_contents",
            args,
            &encoded.to_string(),
        ),
        "f.txt in vercel/ai (3 bytes):\n\nfoo"
    );
}

#[test]
fn local_tools_results() {
    let calc = |prompt: &str, result: &str| {
        answer(prompt, "calculator", json!({"expression": "2+3*4"}), result)
    };
    assert_eq!(calc("calculate 2+3*4", "14"), "2+3*4 = 14");
    assert_eq!(calc("计算 2+3*4", "14"), "计算结果：2+3*4 = 14");
    assert_eq!(
        calc("calculate 2+3*4", r#"{"result": 14.0}"#),
        "2+3*4 = 14.0"
    );
    assert_eq!(
        calc("calculate 2+3*4", "2+3*4 = 14"),
        "The result is 2+3*4 = 14."
    );

    let weather = json!({"city": "Paris", "temperature": 18, "condition": "cloudy"}).to_string();
    assert_eq!(
        answer(
            "weather in Paris",
            "get_weather",
            json!({"city": "Paris"}),
            &weather
        ),
        "Weather in Paris: temperature: 18, condition: cloudy"
    );
    assert_eq!(
        answer(
            "北京的天气",
            "get_weather",
            json!({"city": "北京"}),
            "晴，25°C"
        ),
        "北京的天气：晴，25°C"
    );
}

#[test]
fn errors_and_unreadable_results_are_reported_not_invented() {
    let args = list_args("vercel/ai");
    let err = "MCP error -32603: Not Found: Resource not found (GET /repos/vercel/nope/issues)";
    let request = after_tool("list issues in vercel/nope", LIST, args.clone(), err, true);
    assert_eq!(
        MockModel::new().complete(&request).text.unwrap(),
        format!("The tool `{LIST}` failed: \"{err}\"")
    );
    let request = after_tool(
        "查看 vercel/nope 的 issues",
        LIST,
        args.clone(),
        "denied by policy",
        true,
    );
    assert_eq!(
        MockModel::new().complete(&request).text.unwrap(),
        format!("工具 `{LIST}` 调用失败：“denied by policy”")
    );

    // Not JSON, or JSON of another shape: quoted (clipped), never replaced by made-up data.
    assert_eq!(
        answer(
            "list issues in vercel/ai",
            LIST,
            args.clone(),
            "API rate limit exceeded"
        ),
        format!("`{LIST}` returned:\nAPI rate limit exceeded")
    );
    assert_eq!(
        answer(
            "list issues in vercel/ai",
            LIST,
            args.clone(),
            r#"[{"id": 1}]"#
        ),
        format!("`{LIST}` returned:\n[{{\"id\": 1}}]")
    );
    let long = "x".repeat(2000);
    let text = answer("list issues in vercel/ai", LIST, args.clone(), &long);
    assert_eq!(text, format!("`{LIST}` returned:\n{}…", "x".repeat(500)));
    assert_eq!(
        answer("查看 vercel/ai 的 issues", LIST, args, "  "),
        format!("工具 `{LIST}` 没有返回内容。")
    );
    assert_eq!(
        answer("do something", "mcp__fs__read_file", json!({}), "file body"),
        "`mcp__fs__read_file` returned:\nfile body"
    );
}

#[test]
fn never_loops_and_answers_every_trailing_result() {
    // The user's text would match a tool again, but the last message is a tool result.
    let request = crate::model::ModelRequest {
        system: String::new(),
        messages: vec![
            user("计算 2+3*4，然后查北京的天气"),
            ChatMessage::Assistant {
                content: None,
                tool_calls: vec![
                    ToolCall {
                        id: "a".into(),
                        name: "calculator".into(),
                        arguments: json!({"expression": "2+3*4"}),
                    },
                    ToolCall {
                        id: "b".into(),
                        name: "get_weather".into(),
                        arguments: json!({"city": "北京"}),
                    },
                ],
            },
            ChatMessage::Tool {
                tool_call_id: "a".into(),
                name: "calculator".into(),
                content: "14".into(),
                is_error: false,
            },
            ChatMessage::Tool {
                tool_call_id: "b".into(),
                name: "get_weather".into(),
                content: "timeout".into(),
                is_error: true,
            },
        ],
        tools: super::all_tools(),
    };
    let response = MockModel::new().complete(&request);
    assert!(response.tool_calls.is_empty());
    assert_eq!(
        response.text.unwrap(),
        "计算结果：2+3*4 = 14\n\n工具 `get_weather` 调用失败：“timeout”"
    );
}

#[test]
fn a_whole_turn_calls_then_answers_from_the_result() {
    let model = MockModel::new();
    let mut request = crate::model::ModelRequest {
        system: String::new(),
        messages: vec![user("查看 vercel/ai 的 issues")],
        tools: super::all_tools(),
    };
    let first = model.complete(&request);
    let call = first.tool_calls[0].clone();
    assert_eq!(call.arguments, json!({"owner": "vercel", "repo": "ai"}));
    request.messages.push(ChatMessage::Assistant {
        content: first.text,
        tool_calls: vec![call.clone()],
    });
    let result = json!([rest_issue(
        "vercel/ai",
        1,
        "First!",
        "open",
        &["question"],
        "me"
    )])
    .to_string();
    request.messages.push(ChatMessage::Tool {
        tool_call_id: call.id,
        name: call.name,
        content: result,
        is_error: false,
    });
    let second = model.complete(&request);
    assert!(second.tool_calls.is_empty());
    assert_eq!(
        second.text.unwrap(),
        "vercel/ai 的 issue（共 1 个）：\n- #1 First! [开放] (question)"
    );
    // A new user message after the answer starts a new request.
    request.messages.push(ChatMessage::Assistant {
        content: Some("…".into()),
        tool_calls: vec![],
    });
    request.messages.push(user("weather in Paris"));
    let third = model.complete(&request);
    assert_eq!(third.tool_calls[0].name, "get_weather");
    assert_eq!(third.tool_calls[0].id, "mock_call_5");
}
