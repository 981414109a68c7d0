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
            "step_start",
            "reasoning_delta",
            "reasoning_delta",
            "text_delta",
            "model_text",
            "done"
        ]
    );
}
