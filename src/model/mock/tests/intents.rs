use serde_json::{json, Value};

use super::{all_tools, ask, tool};
use crate::model::ToolCall;

fn call(text: &str) -> (String, Value) {
    let response = ask(text, all_tools());
    assert_eq!(response.text, None, "{text}");
    match response.tool_calls.as_slice() {
        [ToolCall {
            id,
            name,
            arguments,
        }] => {
            assert_eq!(id, "mock_call_1");
            (name.clone(), arguments.clone())
        }
        calls => panic!("{text}: expected one tool call, got {calls:?}"),
    }
}

#[test]
fn every_intent_in_both_languages_makes_the_exact_call() {
    let gh = |t: &str| format!("mcp__github__{t}");
    let cases = [
        (
            "查看 vercel/ai 的 issues",
            gh("list_issues"),
            json!({"owner": "vercel", "repo": "ai"}),
        ),
        (
            "list issues in facebook/react",
            gh("list_issues"),
            json!({"owner": "facebook", "repo": "react"}),
        ),
        (
            "show the open issues in vercel/ai",
            gh("list_issues"),
            json!({"owner": "vercel", "repo": "ai", "state": "open"}),
        ),
        (
            "查看 vercel/ai 未关闭的问题",
            gh("list_issues"),
            json!({"owner": "vercel", "repo": "ai", "state": "open"}),
        ),
        (
            "list closed issues of modelcontextprotocol/servers.",
            gh("list_issues"),
            json!({"owner": "modelcontextprotocol", "repo": "servers", "state": "closed"}),
        ),
        (
            "查看 vercel/ai 的 issue #123",
            gh("get_issue"),
            json!({"owner": "vercel", "repo": "ai", "issue_number": 123}),
        ),
        (
            "show issue 123 in vercel/ai",
            gh("get_issue"),
            json!({"owner": "vercel", "repo": "ai", "issue_number": 123}),
        ),
        (
            "what is https://github.com/vercel/ai/issues/42 about?",
            gh("get_issue"),
            json!({"owner": "vercel", "repo": "ai", "issue_number": 42}),
        ),
        (
            "查看 vercel/ai 的 PR",
            gh("list_pull_requests"),
            json!({"owner": "vercel", "repo": "ai"}),
        ),
        (
            "list pull requests in vercel/ai",
            gh("list_pull_requests"),
            json!({"owner": "vercel", "repo": "ai"}),
        ),
        (
            "list open PRs in facebook/react",
            gh("list_pull_requests"),
            json!({"owner": "facebook", "repo": "react", "state": "open"}),
        ),
        (
            "读取 vercel/ai 的 README.md",
            gh("get_file_contents"),
            json!({"owner": "vercel", "repo": "ai", "path": "README.md"}),
        ),
        (
            "read README.md of vercel/ai",
            gh("get_file_contents"),
            json!({"owner": "vercel", "repo": "ai", "path": "README.md"}),
        ),
        (
            "read docs/intro.md of vercel/next.js",
            gh("get_file_contents"),
            json!({"owner": "vercel", "repo": "next.js", "path": "docs/intro.md"}),
        ),
        (
            "读取vercel/ai的packages/ai/package.json",
            gh("get_file_contents"),
            json!({"owner": "vercel", "repo": "ai", "path": "packages/ai/package.json"}),
        ),
        (
            "show me the readme of facebook/react",
            gh("get_file_contents"),
            json!({"owner": "facebook", "repo": "react", "path": "README.md"}),
        ),
        (
            "搜索 mcp 相关的仓库",
            gh("search_repositories"),
            json!({"query": "mcp"}),
        ),
        (
            "search repositories about mcp",
            gh("search_repositories"),
            json!({"query": "mcp"}),
        ),
        (
            "帮我在 GitHub 上搜索一下 rust agent 相关的项目",
            gh("search_repositories"),
            json!({"query": "rust agent"}),
        ),
        (
            "find repos for Model Context Protocol",
            gh("search_repositories"),
            json!({"query": "Model Context Protocol"}),
        ),
        (
            "计算 2+3*4",
            "calculator".into(),
            json!({"expression": "2+3*4"}),
        ),
        (
            "calculate 2+3*4",
            "calculator".into(),
            json!({"expression": "2+3*4"}),
        ),
        (
            "算一下 (1+2)×3 等于多少？",
            "calculator".into(),
            json!({"expression": "(1+2)*3"}),
        ),
        (
            "what is 12.5 / 5?",
            "calculator".into(),
            json!({"expression": "12.5 / 5"}),
        ),
        (
            "2+3*4=?",
            "calculator".into(),
            json!({"expression": "2+3*4"}),
        ),
        ("北京的天气", "get_weather".into(), json!({"city": "北京"})),
        (
            "请问上海明天天气怎么样？",
            "get_weather".into(),
            json!({"city": "上海"}),
        ),
        (
            "weather in Paris",
            "get_weather".into(),
            json!({"city": "Paris"}),
        ),
        (
            "What's the weather like in New York today?",
            "get_weather".into(),
            json!({"city": "New York"}),
        ),
        (
            "Tokyo weather",
            "get_weather".into(),
            json!({"city": "Tokyo"}),
        ),
    ];
    for (text, name, args) in cases {
        assert_eq!(call(text), (name, args), "{text}");
    }
}

#[test]
fn tools_are_found_by_suffix_whatever_the_server_is_called() {
    for names in [
        vec!["list_issues"],
        vec!["mcp__gh__list_issues"],
        vec![
            "mcp__github_enterprise__list_issues",
            "mcp__other__list_issues_by_label",
        ],
    ] {
        let response = ask(
            "list issues in vercel/ai",
            names.iter().map(|n| tool(n)).collect(),
        );
        assert_eq!(response.tool_calls.len(), 1, "{names:?}");
        assert_eq!(response.tool_calls[0].name, names[0]);
    }
    // An exact name wins over a prefixed one; a name that merely contains the suffix is not it.
    let response = ask(
        "list issues in vercel/ai",
        vec![tool("mcp__github__list_issues"), tool("list_issues")],
    );
    assert_eq!(response.tool_calls[0].name, "list_issues");
    let response = ask(
        "list issues in vercel/ai",
        vec![tool("mcp__github__xlist_issues")],
    );
    assert!(response.tool_calls.is_empty());
}

#[test]
fn a_missing_tool_is_explained_in_the_users_language() {
    let only_local = vec![tool("calculator"), tool("get_weather")];
    let zh = ask("查看 vercel/ai 的 issues", only_local.clone());
    assert!(zh.tool_calls.is_empty());
    assert_eq!(
        zh.text.unwrap(),
        "我理解这是要调用 `list_issues`，参数为 {\"owner\":\"vercel\",\"repo\":\"ai\"}，但当前没有名为 `list_issues`（或以 `__list_issues` 结尾）的工具。\n\
         使用当前可用的工具，我可以：\n- 计算：“计算 2+3*4”\n- 查天气：“北京的天气”"
    );
    let en = ask("read README.md of vercel/ai", only_local).text.unwrap();
    assert!(
        en.starts_with("I understood this as a call to `get_file_contents` with {\"owner\":\"vercel\",\"repo\":\"ai\",\"path\":\"README.md\"}, but no tool named `get_file_contents`"),
        "{en}"
    );
    assert!(en.ends_with("With the tools available now, I can:\n- calculate: “calculate 2+3*4”\n- look up the weather: “weather in Paris”"), "{en}");

    let none = ask("计算 1+1", vec![]).text.unwrap();
    assert!(none.contains("目前没有我会使用的工具"), "{none}");
}

#[test]
fn messages_that_fit_nothing_get_the_list_of_what_works() {
    let en = ask("hello, who are you?", all_tools()).text.unwrap();
    assert!(en.starts_with("I'm the built-in mock model"), "{en}");
    let lines: Vec<&str> = en.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(lines.len(), 7, "{en}");
    assert_eq!(
        lines[0],
        "- list the issues of a repository: “list issues in vercel/ai”"
    );

    let zh = ask("你好", vec![tool("mcp__github__search_repositories")])
        .text
        .unwrap();
    assert_eq!(
        zh,
        "我是内置的模拟模型，只能识别几种固定的请求，这条消息不在其中。\n使用当前可用的工具，我可以：\n- 搜索仓库：“搜索 mcp 相关的仓库”\n也可以直接指定工具：`调用 <工具名> {\"参数\": \"值\"}`。"
    );
    // A repository alone is not a request, and everyday "find" is not a repository search.
    for text in ["vercel/ai", "你能帮我找工作吗", "find my keys"] {
        assert!(ask(text, all_tools()).tool_calls.is_empty(), "{text}");
    }
    assert_eq!(
        ask("帮我找一些 agent 项目", all_tools()).tool_calls[0].arguments,
        json!({"query": "agent"})
    );
}

#[test]
fn missing_details_are_asked_for() {
    let cases = [
        ("list issues", "Which repository? Please write it as owner/repo. For example: list the issues of a repository: “list issues in vercel/ai”"),
        ("查看 issue #5", "请告诉我是哪个仓库，格式为 owner/repo。例如：查看单个 issue：“查看 vercel/ai 的 issue #123”"),
        ("read README.md", "Which repository? Please write it as owner/repo. For example: read a file: “read README.md of vercel/ai”"),
        ("读取 vercel/ai 的文件", "请告诉我要读取哪个文件，例如 README.md。例如：读取文件：“读取 vercel/ai 的 README.md”"),
        ("搜索仓库", "请告诉我要搜索什么。例如：搜索仓库：“搜索 mcp 相关的仓库”"),
        ("what's the weather?", "Which city? For example: look up the weather: “weather in Paris”"),
    ];
    for (text, expected) in cases {
        let response = ask(text, all_tools());
        assert!(response.tool_calls.is_empty(), "{text}");
        assert_eq!(response.text.as_deref(), Some(expected), "{text}");
    }
}

#[test]
fn answers_are_a_pure_function_of_the_request() {
    let a = ask("search repositories about mcp", all_tools());
    let b = ask("search repositories about mcp", all_tools());
    assert_eq!(a, b);
    assert_ne!(a, ask("search repositories about rust", all_tools()));
}
