//! Argument errors, unknown repositories, and the shape of the advertised schemas.

use super::{call_err, request, server};
use serde_json::{json, Value};

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
