//! Repository tools over the canned data: search, file contents, code search, commits.

use super::{call_err, call_ok, server, strings};
use crate::mock_github::base64;
use crate::mock_github::{MockGithubServer, MockOptions};
use serde_json::json;

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
