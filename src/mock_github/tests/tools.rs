//! Each tool over the canned data: happy paths, argument errors and not-found results.

use super::{call_err, call_ok, request, server};
use crate::mock_github::base64;
use crate::mock_github::{MockGithubServer, MockOptions};
use serde_json::{json, Value};

fn numbers(v: &Value) -> Vec<u64> {
    let items = v.get("items").unwrap_or(v);
    items
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["number"].as_u64()).collect())
        .unwrap_or_default()
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    let items = v.get("items").unwrap_or(v);
    items
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i[key].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn search_repositories_matches_names_descriptions_and_topics() {
    let mut s = server();
    let r = call_ok(&mut s, "search_repositories", json!({"query": "MCP"}));
    assert_eq!(
        strings(&r, "full_name"),
        [
            "modelcontextprotocol/servers",
            "modelcontextprotocol/typescript-sdk",
            "modelcontextprotocol/rust-sdk"
        ],
        "by topic, best-starred first"
    );
    assert_eq!(r["total_count"], 3);
    assert_eq!(r["incomplete_results"], false);
    let first = &r["items"][0];
    for key in [
        "description",
        "html_url",
        "language",
        "stargazers_count",
        "owner",
        "topics",
    ] {
        assert!(!first[key].is_null(), "search items carry {key}");
    }
    assert_eq!(
        first["html_url"],
        "https://github.com/modelcontextprotocol/servers"
    );

    let r = call_ok(
        &mut s,
        "search_repositories",
        json!({"query": "toolkit typescript"}),
    );
    assert_eq!(strings(&r, "full_name"), ["vercel/ai"], "description words");
    let r = call_ok(
        &mut s,
        "search_repositories",
        json!({"query": "language:rust"}),
    );
    assert_eq!(
        strings(&r, "full_name"),
        ["rust-lang/rust", "modelcontextprotocol/rust-sdk"]
    );
    let r = call_ok(
        &mut s,
        "search_repositories",
        json!({"query": "user:VERCEL"}),
    );
    assert_eq!(strings(&r, "full_name"), ["vercel/next.js", "vercel/ai"]);
    let r = call_ok(
        &mut s,
        "search_repositories",
        json!({"query": "mcp", "page": 2, "perPage": 2}),
    );
    assert_eq!(strings(&r, "full_name"), ["modelcontextprotocol/rust-sdk"]);
    assert_eq!(r["total_count"], 3, "the total ignores paging");
    let r = call_ok(
        &mut s,
        "search_repositories",
        json!({"query": "no-such-thing-anywhere"}),
    );
    assert_eq!(r["total_count"], 0);
    let err = call_err(&mut s, "search_repositories", json!({"query": "  "}));
    assert!(err.starts_with("Validation Error:"), "{err}");
}

#[test]
fn get_file_contents_returns_a_file_like_the_real_server() {
    let mut s = server();
    let f = call_ok(
        &mut s,
        "get_file_contents",
        json!({"owner": "vercel", "repo": "ai", "path": "README.md"}),
    );
    let content = f["content"].as_str().unwrap_or_default();
    assert!(
        content.starts_with("# AI SDK\n"),
        "decoded text: {content:?}"
    );
    assert_eq!(f["encoding"], "base64");
    assert_eq!(f["type"], "file");
    assert_eq!(f["name"], "README.md");
    assert_eq!(f["path"], "README.md");
    assert_eq!(f["size"], content.len());
    assert_eq!(f["sha"].as_str().map(str::len), Some(40));
    assert_eq!(
        f["html_url"],
        "https://github.com/vercel/ai/blob/main/README.md"
    );
    assert_eq!(
        f["download_url"],
        "https://raw.githubusercontent.com/vercel/ai/main/README.md"
    );

    // With the raw-API option the same body comes base64-encoded in 60-column lines.
    let mut raw =
        MockGithubServer::with_options(MockOptions::new().with_base64_file_contents(true));
    let g = call_ok(
        &mut raw,
        "get_file_contents",
        json!({"owner": "vercel", "repo": "ai", "path": "/README.md"}),
    );
    let encoded = g["content"].as_str().unwrap_or_default();
    assert!(encoded.lines().all(|l| l.len() <= 60));
    assert_eq!(
        encoded.replace('\n', ""),
        base64::encode(content.as_bytes())
    );
    assert_eq!(g["sha"], f["sha"]);

    let branch = call_ok(
        &mut s,
        "get_file_contents",
        json!({"owner": "rust-lang", "repo": "rust", "path": "README.md", "branch": "master"}),
    );
    assert!(branch["content"]
        .as_str()
        .is_some_and(|c| c.contains("Rust")));
}

#[test]
fn get_file_contents_lists_directories() {
    let mut s = server();
    let root = call_ok(
        &mut s,
        "get_file_contents",
        json!({"owner": "vercel", "repo": "ai", "path": ""}),
    );
    assert_eq!(
        strings(&root, "name"),
        [
            "LICENSE",
            "README.md",
            "examples",
            "package.json",
            "packages"
        ]
    );
    assert_eq!(
        strings(&root, "type"),
        ["file", "file", "dir", "file", "dir"]
    );
    assert!(root[2]["download_url"].is_null() && root[2]["size"] == 0);
    assert!(root[0]["content"].is_null(), "listings carry no content");
    let sub = call_ok(
        &mut s,
        "get_file_contents",
        json!({"owner": "vercel", "repo": "ai", "path": "/packages/ai/"}),
    );
    assert_eq!(
        strings(&sub, "path"),
        ["packages/ai/package.json", "packages/ai/src"]
    );
    let slash = call_ok(
        &mut s,
        "get_file_contents",
        json!({"owner": "vercel", "repo": "ai", "path": "/"}),
    );
    assert_eq!(slash, root);
}

#[test]
fn get_file_contents_not_found_cases() {
    let mut s = server();
    for (args, needle) in [
        (
            json!({"owner": "vercel", "repo": "ai", "path": "nope.md"}),
            "nope.md",
        ),
        (
            json!({"owner": "vercel", "repo": "ai", "path": "README"}),
            "README",
        ),
        (
            json!({"owner": "vercel", "repo": "ai", "path": "README.md", "branch": "gone"}),
            "ref gone",
        ),
        (
            json!({"owner": "octocat", "repo": "hello", "path": "README.md"}),
            "octocat/hello",
        ),
    ] {
        let err = call_err(&mut s, "get_file_contents", args);
        assert!(err.starts_with("Not Found: Resource not found"), "{err}");
        assert!(err.contains(needle), "{err} should mention {needle}");
    }
}

#[test]
fn list_issues_filters_sorts_and_pages() {
    let mut s = server();
    let base = json!({"owner": "vercel", "repo": "ai"});
    let with = |extra: Value| {
        let mut args = base.clone();
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        args
    };
    let open = call_ok(&mut s, "list_issues", base.clone());
    assert_eq!(
        numbers(&open),
        [6241, 6218, 6175, 6152, 6101],
        "open by default, newest first"
    );
    assert!(strings(&open, "state").iter().all(|st| st == "open"));
    let first = &open[0];
    assert_eq!(first["user"]["login"], "mika-lindqvist");
    assert_eq!(first["comments"], 4);
    assert_eq!(
        first["html_url"],
        "https://github.com/vercel/ai/issues/6241"
    );
    assert_eq!(strings(&first["labels"], "name"), ["bug", "ai/mcp"]);
    assert!(first["created_at"].is_string() && first["title"].is_string());

    let cases = [
        (json!({"state": "closed"}), vec![6190, 6133, 6088]),
        (
            json!({"state": "all", "per_page": 3}),
            vec![6241, 6218, 6190],
        ),
        (
            json!({"state": "all", "per_page": 3, "page": 3}),
            vec![6101, 6088],
        ),
        (json!({"labels": ["bug"]}), vec![6241, 6101]),
        (json!({"labels": ["BUG", "ai/mcp"]}), vec![6241]),
        (json!({"labels": ["bug,ai/ui"]}), vec![6101]),
        (
            json!({"state": "all", "labels": ["ai/mcp"], "direction": "asc"}),
            vec![6088, 6218, 6241],
        ),
        (
            json!({"sort": "comments"}),
            vec![6218, 6152, 6241, 6101, 6175],
        ),
        (
            json!({"since": "2025-06-08T00:00:00Z"}),
            vec![6241, 6218, 6175],
        ),
        (json!({"page": 9}), vec![]),
    ];
    for (extra, expected) in cases {
        let r = call_ok(&mut s, "list_issues", with(extra.clone()));
        assert_eq!(numbers(&r), expected, "list_issues with {extra}");
    }
    let other = call_ok(
        &mut s,
        "list_issues",
        json!({"owner": "Facebook", "repo": "React"}),
    );
    assert_eq!(
        numbers(&other),
        [31840, 31777],
        "owner and repo are case-insensitive"
    );
}

#[test]
fn get_issue_finds_issues_and_pull_requests() {
    let mut s = server();
    let i = call_ok(
        &mut s,
        "get_issue",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6190}),
    );
    assert_eq!(i["number"], 6190);
    assert_eq!(i["state"], "closed");
    assert!(i["closed_at"].is_string());
    assert!(i["body"].as_str().is_some_and(|b| b.contains("onFinish")));
    assert!(i.get("pull_request").is_none());
    let p = call_ok(
        &mut s,
        "get_issue",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6250}),
    );
    assert_eq!(
        p["pull_request"]["html_url"],
        "https://github.com/vercel/ai/pull/6250"
    );
    for n in [json!(1), json!(6241.5), json!(-6241)] {
        let err = call_err(
            &mut s,
            "get_issue",
            json!({"owner": "vercel", "repo": "ai", "issue_number": n}),
        );
        assert!(
            err.starts_with("Not Found: Resource not found: no issue"),
            "{err}"
        );
    }
}

#[test]
fn pull_request_tools() {
    let mut s = server();
    let base = json!({"owner": "vercel", "repo": "ai"});
    let open = call_ok(&mut s, "list_pull_requests", base.clone());
    assert_eq!(numbers(&open), [6250, 6236]);
    assert_eq!(open[1]["draft"], true);
    let cases = [
        (json!({"state": "closed"}), vec![6199, 6160]),
        (
            json!({"state": "all", "sort": "popularity"}),
            vec![6160, 6250, 6199, 6236],
        ),
        (
            json!({"state": "all", "sort": "popularity", "direction": "desc"}),
            vec![6236, 6199, 6250, 6160],
        ),
        (json!({"head": "mcp-tools-pagination"}), vec![6250]),
        (
            json!({"head": "mika-lindqvist:mcp-tools-pagination"}),
            vec![6250],
        ),
        (json!({"head": "someone-else:mcp-tools-pagination"}), vec![]),
        (json!({"base": "canary"}), vec![]),
        (
            json!({"state": "all", "per_page": 1, "page": 2}),
            vec![6236],
        ),
    ];
    for (extra, expected) in cases {
        let mut args = base.clone();
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        assert_eq!(
            numbers(&call_ok(&mut s, "list_pull_requests", args)),
            expected,
            "{extra}"
        );
    }

    let pr = call_ok(
        &mut s,
        "get_pull_request",
        json!({"owner": "vercel", "repo": "ai", "pull_number": 6199}),
    );
    assert_eq!(pr["merged"], true);
    assert_eq!(pr["head"]["ref"], "fix-onfinish-abort");
    assert_eq!(pr["base"]["ref"], "main");
    assert_eq!(pr["base"]["repo"]["full_name"], "vercel/ai");
    assert_eq!(pr["user"]["login"], "ana-duarte");
    assert!(pr["merge_commit_sha"].is_string());
    let err = call_err(
        &mut s,
        "get_pull_request",
        json!({"owner": "vercel", "repo": "ai", "pull_number": 6241}),
    );
    assert!(err.contains("is an issue, not a pull request"), "{err}");
    let err = call_err(
        &mut s,
        "get_pull_request",
        json!({"owner": "vercel", "repo": "ai", "pull_number": 7}),
    );
    assert!(err.starts_with("Not Found:"), "{err}");
}

#[test]
fn search_code_matches_content_paths_and_qualifiers() {
    let mut s = server();
    let r = call_ok(
        &mut s,
        "search_code",
        json!({"q": "experimental_createMCPClient"}),
    );
    assert_eq!(
        strings(&r, "path"),
        ["packages/ai/src/index.ts", "examples/mcp/README.md"]
    );
    assert_eq!(r["items"][0]["repository"]["full_name"], "vercel/ai");
    assert!(r["items"][0]["html_url"]
        .as_str()
        .is_some_and(|u| u.starts_with("https://github.com/vercel/ai/blob/")));
    let r = call_ok(
        &mut s,
        "search_code",
        json!({"q": "createMCPClient language:typescript repo:vercel/ai"}),
    );
    assert_eq!(strings(&r, "path"), ["packages/ai/src/index.ts"]);
    let r = call_ok(&mut s, "search_code", json!({"q": "filename:Cargo.toml"}));
    assert_eq!(r["total_count"], 2);
    let r = call_ok(
        &mut s,
        "search_code",
        json!({"q": "workspace org:rust-lang", "per_page": 1}),
    );
    assert_eq!(strings(&r, "path"), ["Cargo.toml"]);
    let r = call_ok(
        &mut s,
        "search_code",
        json!({"q": "\"model context protocol\" extension:md"}),
    );
    assert!(r["total_count"].as_u64().is_some_and(|n| n >= 2), "{r}");
    let err = call_err(&mut s, "search_code", json!({"q": "x", "per_page": 500}));
    assert_eq!(
        err,
        "Invalid arguments: per_page: Number must be less than or equal to 100"
    );
}

#[test]
fn search_issues_spans_issues_and_pull_requests() {
    let mut s = server();
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "repo:vercel/ai is:issue is:open mcp"}),
    );
    assert_eq!(numbers(&r), [6241, 6218]);
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "is:pr is:merged", "sort": "created", "order": "asc"}),
    );
    assert_eq!(numbers(&r), [134470, 1405, 6199, 31850]);
    assert!(r["items"][0].get("pull_request").is_some());
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "label:\"good first issue\""}),
    );
    assert_eq!(numbers(&r), [134401, 6175]);
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "author:wei-chen type:issue"}),
    );
    assert_eq!(numbers(&r), [134512, 1420]);
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "pagination state:closed"}),
    );
    assert_eq!(r["total_count"], 0);
}

#[test]
fn list_commits_walks_the_default_branch() {
    let mut s = server();
    let all = call_ok(
        &mut s,
        "list_commits",
        json!({"owner": "vercel", "repo": "ai"}),
    );
    let shas = strings(&all, "sha");
    assert_eq!(shas.len(), 4);
    assert_eq!(
        all[0]["commit"]["message"],
        "feat (ai/mcp): follow nextCursor when listing tools"
    );
    assert_eq!(
        all[0]["parents"][0]["sha"],
        json!(shas[1]),
        "parents chain to older commits"
    );
    assert_eq!(all[3]["parents"], json!([]));
    let page = call_ok(
        &mut s,
        "list_commits",
        json!({"owner": "vercel", "repo": "ai", "perPage": 2, "page": 2}),
    );
    assert_eq!(strings(&page, "sha"), shas[2..]);
    let from = call_ok(
        &mut s,
        "list_commits",
        json!({"owner": "vercel", "repo": "ai", "sha": &shas[1][..10]}),
    );
    assert_eq!(strings(&from, "sha"), shas[1..]);
    let main = call_ok(
        &mut s,
        "list_commits",
        json!({"owner": "vercel", "repo": "ai", "sha": "main"}),
    );
    assert_eq!(strings(&main, "sha"), shas);
    let err = call_err(
        &mut s,
        "list_commits",
        json!({"owner": "vercel", "repo": "ai", "sha": "deadbeef"}),
    );
    assert!(err.starts_with("Not Found:"), "{err}");
}

#[test]
fn write_tools_answer_plausibly_without_storing_anything() {
    let mut s = server();
    let args = json!({"owner": "vercel", "repo": "ai", "title": "Demo issue", "body": "Hi", "labels": ["bug"], "assignees": ["ana-duarte"]});
    let a = call_ok(&mut s, "create_issue", args.clone());
    let b = call_ok(&mut s, "create_issue", args);
    assert_eq!(
        (a["number"].as_u64(), b["number"].as_u64()),
        (Some(6251), Some(6252))
    );
    assert_eq!(a["title"], "Demo issue");
    assert_eq!(a["state"], "open");
    assert_eq!(a["user"]["login"], "mock-user");
    assert_eq!(a["assignee"]["login"], "ana-duarte");
    assert_eq!(strings(&a["labels"], "name"), ["bug"]);
    assert_eq!(a["html_url"], "https://github.com/vercel/ai/issues/6251");
    let err = call_err(
        &mut s,
        "get_issue",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6251}),
    );
    assert!(
        err.starts_with("Not Found:"),
        "created issues are not stored: {err}"
    );
    let err = call_err(
        &mut s,
        "create_issue",
        json!({"owner": "vercel", "repo": "ai", "title": " "}),
    );
    assert!(err.contains("title can't be blank"), "{err}");

    let c = call_ok(
        &mut s,
        "add_issue_comment",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6241, "body": "Thanks!"}),
    );
    assert_eq!(c["body"], "Thanks!");
    assert!(c["html_url"]
        .as_str()
        .is_some_and(|u| u.contains("/issues/6241#issuecomment-")));
    let err = call_err(
        &mut s,
        "add_issue_comment",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 1, "body": "x"}),
    );
    assert!(err.starts_with("Not Found:"), "{err}");
}

#[test]
fn argument_errors_name_every_problem() {
    let mut s = server();
    let cases = [
        ("list_issues", json!({}), "Invalid arguments: owner: Required; repo: Required"),
        ("list_issues", json!({"owner": "vercel", "repo": "ai", "state": "merged"}),
            "Invalid arguments: state: Invalid enum value. Expected 'open' | 'closed' | 'all', received 'merged'"),
        ("list_issues", json!({"owner": "vercel", "repo": "ai", "labels": "bug"}),
            "Invalid arguments: labels: Expected array, received string"),
        ("get_issue", json!({"owner": "vercel", "repo": "ai", "issue_number": "6241"}),
            "Invalid arguments: issue_number: Expected number, received string"),
        ("search_repositories", json!({"q": "mcp"}), "Invalid arguments: query: Required"),
        ("get_file_contents", json!({"owner": 1, "repo": "ai"}),
            "Invalid arguments: owner: Expected string, received number; path: Required"),
        ("search_issues", json!({"q": "x", "page": 0}),
            "Invalid arguments: page: Number must be greater than or equal to 1"),
    ];
    for (tool, args, expected) in cases {
        assert_eq!(
            call_err(&mut s, tool, args.clone()),
            expected,
            "{tool}({args})"
        );
    }
    // No `arguments` at all is treated as an empty object.
    let r = request(&mut s, 5, "tools/call", json!({"name": "get_issue"}));
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains("owner: Required")));
}

#[test]
fn unknown_repositories_are_not_found_and_name_the_known_ones() {
    let mut s = server();
    for tool in ["list_issues", "list_pull_requests", "list_commits"] {
        let err = call_err(&mut s, tool, json!({"owner": "vercel", "repo": "nope"}));
        assert!(
            err.starts_with("Not Found: Resource not found: repository vercel/nope"),
            "{err}"
        );
        assert!(
            err.contains("vercel/ai") && err.contains("rust-lang/rust"),
            "{err}"
        );
    }
}

#[test]
fn tool_schemas_have_the_real_servers_shape() {
    let r = request(&mut server(), 1, "tools/list", json!({}));
    let tools = r["result"]["tools"].as_array().cloned().unwrap_or_default();
    assert_eq!(tools.len(), 11);
    for tool in &tools {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{}", tool["name"]);
        assert_eq!(schema["additionalProperties"], false);
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
        let props = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for req in schema["required"].as_array().into_iter().flatten() {
            assert!(
                props.contains_key(req.as_str().unwrap_or_default()),
                "{} requires {req}",
                tool["name"]
            );
        }
    }
    let required = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["inputSchema"]["required"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(required("list_issues"), json!(["owner", "repo"]));
    assert_eq!(required("search_repositories"), json!(["query"]));
    assert_eq!(
        required("get_file_contents"),
        json!(["owner", "repo", "path"])
    );
    assert_eq!(
        required("get_issue"),
        json!(["owner", "repo", "issue_number"])
    );
    assert_eq!(required("list_pull_requests"), json!(["owner", "repo"]));
    assert_eq!(required("search_code"), json!(["q"]));
}
