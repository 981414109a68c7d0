//! Resources, prompts and completion of the mock, over JSON-RPC.

use super::{request, server};
use serde_json::{json, Value};

#[test]
fn readmes_are_listed_and_files_read_through_the_template() {
    let mut s = server();
    let listed = request(&mut s, 1, "resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().unwrap();
    assert!(resources
        .iter()
        .any(|r| r["uri"] == "repo://vercel/ai/contents/README.md"
            && r["mimeType"] == "text/markdown"));
    let templates = request(&mut s, 2, "resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "repo://{owner}/{repo}/contents{/path*}"
    );
    let uri = "repo://vercel/ai/contents/package.json";
    let read = request(&mut s, 3, "resources/read", json!({"uri": uri}));
    let content = &read["result"]["contents"][0];
    assert_eq!(content["uri"], uri);
    assert_eq!(content["mimeType"], "application/json");
    assert!(content["text"].as_str().unwrap().contains("ai-monorepo"));
    let missing = request(
        &mut s,
        4,
        "resources/read",
        json!({"uri": "repo://no/such/contents/x"}),
    );
    assert_eq!(missing["error"]["code"], -32002);
    assert!(missing["error"]["message"]
        .as_str()
        .unwrap()
        .contains("repo://no/such/contents/x"));
}

#[test]
fn prompts_fill_in_canned_data() {
    let mut s = server();
    let listed = request(&mut s, 1, "prompts/list", json!({}));
    let names: Vec<&str> = listed["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["summarize_open_issues", "explain_file"]);
    let args = json!({"owner": "vercel", "repo": "ai"});
    let got = request(
        &mut s,
        2,
        "prompts/get",
        json!({"name": "summarize_open_issues", "arguments": args}),
    );
    let text = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.starts_with("Summarise the open issues of vercel/ai"),
        "{text}"
    );
    assert!(text.contains('#'), "lists issues: {text}");
    let args = json!({"owner": "vercel", "repo": "ai", "path": "README.md"});
    let got = request(
        &mut s,
        3,
        "prompts/get",
        json!({"name": "explain_file", "arguments": args}),
    );
    assert_eq!(
        got["result"]["messages"][1]["content"]["resource"]["uri"],
        "repo://vercel/ai/contents/README.md"
    );
    let missing = request(
        &mut s,
        4,
        "prompts/get",
        json!({"name": "explain_file", "arguments": {}}),
    );
    assert!(missing["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"owner\""));
    let unknown = request(&mut s, 5, "prompts/get", json!({"name": "nope"}));
    assert!(unknown["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Unknown prompt: nope"));
}

#[test]
fn completion_suggests_from_the_data_and_the_context() {
    let mut s = server();
    let values = |s: &mut _, id, params: Value| -> Vec<String> {
        let out = request(s, id, "completion/complete", params);
        serde_json::from_value(out["result"]["completion"]["values"].clone()).unwrap()
    };
    let reference = json!({"type": "ref/prompt", "name": "explain_file"});
    let owners = values(
        &mut s,
        1,
        json!({"ref": reference, "argument": {"name": "owner", "value": "ver"}}),
    );
    assert_eq!(owners, ["vercel"]);
    let repos = values(
        &mut s,
        2,
        json!({"ref": reference, "argument": {"name": "repo", "value": ""},
        "context": {"arguments": {"owner": "facebook"}}}),
    );
    assert_eq!(repos, ["react"]);
    let paths = values(
        &mut s,
        3,
        json!({"ref": reference, "argument": {"name": "path", "value": "packages/"},
        "context": {"arguments": {"owner": "vercel", "repo": "ai"}}}),
    );
    assert_eq!(
        paths,
        ["packages/ai/package.json", "packages/ai/src/index.ts"]
    );
}
