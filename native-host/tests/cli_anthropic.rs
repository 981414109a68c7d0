//! The CLI on Claude through the replayed Messages API: a tool call, the answer, the start-up
//! line, usage with cache writes in `done` and in the one-line summary, and the key nowhere in
//! output or audit.

mod common;
#[path = "fixtures/openai/replay.rs"]
mod replay;

use common::{CliOutput, Project};
use replay::{ReplayServer, ANTHROPIC_TEST_KEY};
use serde_json::{json, Value};

const PROMPT: &str = "What is 6 times 7?";

async fn run_cli(args: &[&str]) -> (CliOutput, String, Vec<Value>) {
    let server = ReplayServer::start_anthropic().await;
    let base_url = server.base_url.clone();
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let (out, audit) = tokio::task::spawn_blocking(move || {
        let project = Project::new();
        let audit_file = project.path().join("audit.jsonl");
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        let audit_arg = audit_file.display().to_string();
        args.extend(["--audit", &audit_arg]);
        let out = project.run_with_env(
            &args,
            &[
                ("ANTHROPIC_API_KEY", ANTHROPIC_TEST_KEY),
                ("ANTHROPIC_BASE_URL", &base_url),
            ],
        );
        (
            out,
            std::fs::read_to_string(&audit_file).unwrap_or_default(),
        )
    })
    .await
    .expect("the CLI ran");
    (out, audit, server.requests().await)
}

#[tokio::test]
async fn a_claude_run_calls_the_tool_and_reports_cache_reads_and_writes() {
    let (out, audit, requests) = run_cli(&["run", PROMPT]).await;
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(
        out.stderr
            .contains("(Anthropic Messages, key from ANTHROPIC_API_KEY)"),
        "stderr: {}",
        out.stderr
    );
    assert!(out.stdout.contains("6 × 7 = 42."), "stdout: {}", out.stdout);
    // 1,840 + 1,915 prompt tokens; 1,800 read from the cache, 1,890 written; 60 + 9 out.
    assert!(
        out.stdout
            .ends_with("tokens: 3,755 in (1,800 cached, 1,890 written to cache), 69 out\n"),
        "stdout: {}",
        out.stdout
    );
    for text in [&out.stdout, &out.stderr, &audit] {
        assert!(!text.contains(ANTHROPIC_TEST_KEY));
    }
    // The second request re-sends the first byte for byte up to its message breakpoint.
    assert_eq!(requests.len(), 2);
    let first = requests[0]["body"].to_string();
    let second = requests[1]["body"].to_string();
    let marker = first.rfind(",\"cache_control\"").unwrap();
    assert!(second.starts_with(&first[..marker]), "{first}\n{second}");
    let results = &requests[1]["body"]["messages"][2]["content"][0];
    assert_eq!(results["type"], "tool_result");
    assert_eq!(results["tool_use_id"], "toolu_replay1");
}

#[tokio::test]
async fn json_done_carries_the_run_totals_with_cache_writes() {
    let (out, _, _) = run_cli(&["run", "--json", PROMPT]).await;
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let events = out.ndjson();
    assert!(events.iter().any(|e| e["type"] == "reasoning_delta"));
    let done = events.last().unwrap();
    assert_eq!(done["type"], "done");
    assert_eq!(
        done["usage"],
        json!({"input_tokens": 3755, "output_tokens": 69, "cache_read_tokens": 1800,
               "cache_write_tokens": 1890})
    );
}
