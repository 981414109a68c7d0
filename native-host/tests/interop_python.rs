//! Interop with a server built on the official MCP Python SDK (`mcp`, installed into a venv by
//! `scripts/py-fixtures`): its resources, template, prompt and tool through the CLI.
//!
//! When the SDK is missing this test fails and says how to install it; it never skips.

mod common;

use common::Project;
use serde_json::json;

fn python() -> String {
    let root = std::env::var_os("AGENTWIRE_PY_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| common::repo_root().join("target/py-fixtures"));
    let python = root.join("bin/python");
    assert!(
        python.is_file(),
        "the MCP Python SDK is not installed ({} is missing): run `scripts/py-fixtures` once",
        python.display()
    );
    python.display().to_string()
}

fn project() -> Project {
    let mut project = Project::new();
    let script = common::fixture("py_server.py");
    project.entry("py", json!({"command": python(), "args": [script]}));
    project
}

#[test]
fn python_sdk_server_resources_prompt_and_tool() {
    let project = project();
    let listed = project.run(&["mcp", "resources", "py", "--json"]).json();
    assert_eq!(listed["resources"][0]["uri"], "notes://readme", "{listed}");
    assert_eq!(listed["resources"][0]["server"], "py");
    assert_eq!(
        listed["resourceTemplates"][0]["uriTemplate"],
        "notes://{topic}"
    );
    let read = project
        .run(&["mcp", "read", "py", "notes://readme", "--json"])
        .json();
    assert_eq!(read["contents"][0]["text"], "Hello from the Python SDK");
    let templated = project
        .run(&["mcp", "read", "py", "notes://rust", "--json"])
        .json();
    assert_eq!(templated["contents"][0]["text"], "Note about rust");
    let prompts = project.run(&["mcp", "prompts", "py", "--json"]).json();
    assert_eq!(prompts[0]["name"], "review");
    assert_eq!(prompts[0]["arguments"][0]["name"], "language");
    let prompt = project.run(&["mcp", "prompt", "py", "review", "Rust"]);
    assert_eq!(prompt.code, 0, "{prompt:?}");
    assert_eq!(prompt.stdout.trim(), "Please review this Rust code.");
    let call = project.run(&["mcp", "call", "py", "shout", r#"{"text": "hi"}"#]);
    assert!(call.stdout.contains("HI"), "{call:?}");
}
