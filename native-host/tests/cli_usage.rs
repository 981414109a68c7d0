//! Token usage at the CLI, against the replayed OpenAI-compatible model: the summary line, the
//! `--json` events and the audit lines; and nothing at all when the model reports no usage.

mod common;
#[path = "fixtures/openai/replay.rs"]
mod replay;

use common::{CliOutput, Project};
use replay::{ReplayServer, TEST_KEY};
use serde_json::{json, Value};

/// The replayed run answers in two steps; each step's last chunk carries usage.
const PROMPT: &str = "List the open issues in vercel/ai.";

async fn run_cli(args: &[&str], audit: bool) -> (CliOutput, Vec<Value>, Value) {
    let server = ReplayServer::start().await;
    let base_url = server.base_url.clone();
    let mut args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let (out, audit_lines) = tokio::task::spawn_blocking(move || {
        let mut project = Project::new();
        project.entry("github", json!({"type": "mock"}));
        let audit_file = project.path().join("audit.jsonl");
        if audit {
            args.extend(["--audit".to_owned(), audit_file.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = project.run_with_env(
            &args,
            &[("OPENAI_API_KEY", TEST_KEY), ("OPENAI_BASE_URL", &base_url)],
        );
        let lines = std::fs::read_to_string(&audit_file)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
            .collect::<Vec<Value>>();
        (out, lines)
    })
    .await
    .expect("the CLI ran");
    let requests = server.requests().await;
    (out, audit_lines, Value::Array(requests))
}

#[tokio::test]
async fn a_run_ends_with_one_line_of_token_usage() {
    let (out, _, requests) = run_cli(&["run", PROMPT], false).await;
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    // 2,006 + 3,214 prompt tokens, 1,920 of them from the cache, 31 + 24 generated.
    assert!(
        out.stdout
            .ends_with("── done in 2 steps\ntokens: 5,220 in (1,920 cached), 55 out\n"),
        "stdout: {}",
        out.stdout
    );
    assert_eq!(out.stdout.matches("tokens:").count(), 1);
    // Streaming requests ask for the usage chunk.
    for request in requests.as_array().unwrap() {
        assert_eq!(request["body"]["stream"], true);
        assert_eq!(
            request["body"]["stream_options"],
            json!({"include_usage": true})
        );
    }
}

#[tokio::test]
async fn json_events_and_the_audit_carry_usage_per_step_and_per_run() {
    let (out, audit, _) = run_cli(&["run", "--json", PROMPT], true).await;
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let events = out.ndjson();
    let step_ends: Vec<&Value> = events.iter().filter(|e| e["type"] == "step_end").collect();
    assert_eq!(
        step_ends,
        [
            &json!({"type": "step_end", "step": 1, "usage": {
                "input_tokens": 2006, "output_tokens": 31, "cache_read_tokens": 0}}),
            &json!({"type": "step_end", "step": 2, "usage": {
                "input_tokens": 3214, "output_tokens": 24, "cache_read_tokens": 1920}}),
        ]
    );
    let done = events.last().unwrap();
    assert_eq!(done["type"], "done");
    assert_eq!(
        done["usage"],
        json!({"input_tokens": 5220, "output_tokens": 55, "cache_read_tokens": 1920})
    );
    assert!(
        !out.stdout.contains("tokens:"),
        "JSON output has no human line"
    );

    // The audit keeps the tool call and, beside it, the model's usage.
    let kinds: Vec<String> = audit
        .iter()
        .map(|l| match l["type"].as_str() {
            Some(kind) => kind.to_owned(),
            None => format!("call {}", l["tool"].as_str().unwrap_or("?")),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "step_end",
            "call mcp__github__list_issues",
            "step_end",
            "run_usage"
        ]
    );
    assert_eq!(audit[3]["steps"], 2);
    assert_eq!(audit[3]["usage"], done["usage"]);
}

#[tokio::test]
async fn without_usage_from_the_model_nothing_is_printed_or_invented() {
    // This scenario's stream has no usage chunk.
    let (out, audit, _) = run_cli(&["run", "先想一想：17 乘 3 是多少？"], true).await;
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(!out.stdout.contains("tokens:"), "stdout: {}", out.stdout);
    assert!(audit.is_empty(), "{audit:?}");
    let (out, _, _) = run_cli(&["run", "--json", "先想一想：17 乘 3 是多少？"], false).await;
    let events = out.ndjson();
    assert!(events.iter().all(|e| e["type"] != "step_end"));
    assert_eq!(events.last().unwrap()["type"], "done");
    assert!(events.last().unwrap().get("usage").is_none());
}
