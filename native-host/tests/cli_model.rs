//! The CLI with a real (replayed) OpenAI-compatible model: what a terminal shows.

mod common;
#[path = "fixtures/openai/replay.rs"]
mod replay;

use common::Project;
use replay::{ReplayServer, TEST_KEY};

#[tokio::test]
async fn streamed_reasoning_is_shown_as_a_thinking_line_before_the_answer() {
    let server = ReplayServer::start().await;
    let base_url = server.base_url.clone();
    let out = tokio::task::spawn_blocking(move || {
        Project::new().run_with_env(
            &["run", "先想一想：17 乘 3 是多少？"],
            &[("OPENAI_API_KEY", TEST_KEY), ("OPENAI_BASE_URL", &base_url)],
        )
    })
    .await
    .expect("the CLI ran");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    // Not a terminal: labelled, undimmed, on a line of its own, then the streamed answer.
    assert!(
        out.stdout
            .contains("── step 1\nthinking: 17 乘 3，等于 51。\n17 × 3 = 51。\n"),
        "stdout: {}",
        out.stdout
    );
    assert!(
        !out.stdout.contains('\x1b'),
        "no colour codes off a terminal"
    );
    assert_eq!(
        out.stdout.matches("17 × 3 = 51。").count(),
        1,
        "the answer is printed once"
    );
}

#[tokio::test]
async fn json_output_carries_the_streamed_reasoning_and_text_as_events() {
    let server = ReplayServer::start().await;
    let base_url = server.base_url.clone();
    let out = tokio::task::spawn_blocking(move || {
        Project::new().run_with_env(
            &["run", "--json", "先想一想：17 乘 3 是多少？"],
            &[("OPENAI_API_KEY", TEST_KEY), ("OPENAI_BASE_URL", &base_url)],
        )
    })
    .await
    .expect("the CLI ran");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let events = out.ndjson();
    let pieces = |kind: &str| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["type"] == kind)
            .map(|e| e["text"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(pieces("reasoning_delta"), ["17 乘 3，", "等于 51。"]);
    assert_eq!(pieces("text_delta"), ["17 × 3 = 51。"]);
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(
        types,
        [
            "session",
            "step_start",
            "reasoning_delta",
            "reasoning_delta",
            "text_delta",
            "model_text",
            "done"
        ]
    );
}

#[tokio::test]
async fn tool_arguments_that_are_not_json_are_answered_and_the_model_retries() {
    let server = ReplayServer::start().await;
    let base_url = server.base_url.clone();
    let audit_dir = tempfile::tempdir().expect("a temporary directory");
    let audit = audit_dir.path().join("audit.jsonl");
    let audit_arg = audit.display().to_string();
    let out = tokio::task::spawn_blocking(move || {
        Project::new().run_with_env(
            &[
                "run",
                "--json",
                "--audit",
                &audit_arg,
                "Add 2 and 3, with a typo first.",
            ],
            &[("OPENAI_API_KEY", TEST_KEY), ("OPENAI_BASE_URL", &base_url)],
        )
    })
    .await
    .expect("the CLI ran");
    assert_eq!(out.code, 0, "the run goes on: {}", out.stderr);
    let events = out.ndjson();
    let ends: Vec<(bool, String)> = events
        .iter()
        .filter(|e| e["type"] == "tool_end")
        .map(|e| {
            (
                e["ok"].as_bool().unwrap_or_default(),
                e["output"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(ends.len(), 2, "{events:?}");
    assert!(!ends[0].0, "the broken call fails");
    assert!(
        ends[0].1.starts_with(
            "error: the arguments for calculator are not valid JSON (EOF while parsing an object"
        ),
        "{}",
        ends[0].1
    );
    assert_eq!(ends[1], (true, "2+3 = 5".to_owned()), "the retry runs");
    let done = events.last().expect("events");
    assert_eq!(done["type"], "done", "{done}");
    assert_eq!(done["answer"], "2 + 3 = 5.");

    // The model saw the parse error as the broken call's result.
    let requests = server.requests().await;
    let second = &requests[1]["body"]["messages"];
    let result = second
        .as_array()
        .and_then(|m| m.iter().find(|m| m["tool_call_id"] == "call_typo_1"))
        .expect("a result for the broken call");
    assert!(
        result["content"]
            .as_str()
            .unwrap_or_default()
            .contains("not valid JSON"),
        "{result}"
    );

    // Both calls are audited: the broken one as an error, with its text.
    let lines = std::fs::read_to_string(&audit).expect("the audit log");
    let records: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON audit line"))
        .collect();
    assert_eq!(records.len(), 2, "{lines}");
    assert_eq!(records[0]["outcome"], "error", "{}", records[0]);
    assert_eq!(records[1]["outcome"], "ok", "{}", records[1]);
}

#[tokio::test]
async fn streamed_text_and_reasoning_reach_the_terminal_escaped() {
    let server = ReplayServer::start().await;
    let base_url = server.base_url.clone();
    let out = tokio::task::spawn_blocking(move || {
        Project::new().run_with_env(
            &["run", "Stream terminal escapes."],
            &[("OPENAI_API_KEY", TEST_KEY), ("OPENAI_BASE_URL", &base_url)],
        )
    })
    .await
    .expect("the CLI ran");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let raw: Vec<char> = out
        .stdout
        .chars()
        .filter(|&c| {
            matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
                | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(raw.is_empty(), "raw controls {raw:?} in {:?}", out.stdout);
    assert!(
        out.stdout.contains("thinking: think \\u001b[2J\\u001b[H"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "Done.\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u000dAllow bash? [y]\\u009b31m\\u202e"
        ),
        "{}",
        out.stdout
    );
}
