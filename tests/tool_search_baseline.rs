//! Below the tool-search threshold the requests stay what they were before deferred loading
//! existed: the default mock set-up (mock model, mock GitHub server as `github`) sends the bytes
//! captured before the feature, except for the lossless slimming that applies to every set-up
//! (no `[MCP:<server>] ` description prefix, no top-level `"$schema"` in input schemas).

mod support;

use agentwire::driver::MockGithubTransport;
use agentwire::model::{encode_request, MockModel, OpenAiOptions};
use agentwire::policy::Policy;
use serde_json::Value;
use support::host::{Host, Observer, RecordingModel};

/// The encoded requests of the Chinese issue-listing run, one JSON text per line.
fn encoded_requests() -> String {
    let model = RecordingModel::new(MockModel::new());
    let mut host = Host::with_policy(Policy::new(), model.clone());
    host.add_server("github", MockGithubTransport::default());
    host.run("查看 vercel/ai 的 issues", &Observer::default())
        .expect("the run answers");
    let options = OpenAiOptions::new("mock");
    let requests = model.requests.borrow();
    requests
        .iter()
        .map(|r| format!("{}\n", encode_request(r, &options)))
        .collect()
}

/// The capture taken before deferred loading, with item 5's slimming applied to it (no
/// `[MCP:github] ` description prefix, no top-level `"$schema"`): the only difference allowed
/// below the threshold.
fn expected() -> String {
    include_str!("fixtures/default_mock_requests.jsonl")
        .lines()
        .map(|line| {
            let mut body: Value = serde_json::from_str(line).expect("the capture is JSON");
            for tool in body["tools"].as_array_mut().expect("tools are sent") {
                let function = &mut tool["function"];
                let description = function["description"].as_str().unwrap();
                let slim = description
                    .strip_prefix("[MCP:github] ")
                    .unwrap()
                    .to_owned();
                function["description"] = Value::String(slim);
                function["parameters"]
                    .as_object_mut()
                    .unwrap()
                    .remove("$schema");
            }
            format!("{body}\n")
        })
        .collect()
}

/// The requests without the two resource tools, which lead the list since the mock GitHub
/// server offers resources (they came after the capture); checks that they lead it.
fn without_resource_tools(requests: &str) -> String {
    requests
        .lines()
        .map(|line| {
            let mut body: Value = serde_json::from_str(line).expect("a request is JSON");
            let tools = body["tools"].as_array_mut().expect("tools are sent");
            let names: Vec<Value> = tools
                .drain(..2)
                .map(|t| t["function"]["name"].clone())
                .collect();
            assert_eq!(names, ["list_mcp_resources", "read_mcp_resource"]);
            format!("{body}\n")
        })
        .collect()
}

#[test]
fn default_mock_setup_sends_the_pre_feature_bytes_minus_the_slimming() {
    let actual = without_resource_tools(&encoded_requests());
    assert_eq!(actual.lines().count(), 2, "two model steps");
    assert_eq!(actual, expected());
}
