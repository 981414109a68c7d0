//! The Anthropic Messages backend against the local replay server: headers, endpoint and
//! caching in the request; streamed text, thinking and fragmented tool input; usage with cache
//! writes; mid-stream errors, 529/429 retries honouring `retry-after`, 401, cut connections,
//! invalid UTF-8 and `max_tokens`.

#[path = "fixtures/openai/replay.rs"]
mod replay;

use agentwire::driver::ModelStream;
use agentwire::model::{ChatMessage, DecodeError, ModelRequest, ModelResponse, ToolDefinition};
use agentwire_host::model::{ModelError, ModelSettings, OpenAiBackend, ANTHROPIC_VERSION};
use replay::{ReplayServer, ANTHROPIC_TEST_KEY};
use serde_json::json;
use std::cell::RefCell;
use std::time::{Duration, Instant};

fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        system: "Answer briefly.".into(),
        messages: vec![ChatMessage::User {
            content: prompt.into(),
        }],
        tools: vec![ToolDefinition {
            name: "calculator".into(),
            description: "Evaluates arithmetic".into(),
            input_schema: json!({"type": "object", "properties": {"expression": {"type": "string"}}}),
        }],
    }
}

struct Outcome {
    result: Result<ModelResponse, ModelError>,
    text: Vec<String>,
    reasoning: Vec<String>,
    elapsed: Duration,
}

async fn complete(settings: ModelSettings, prompt: &str) -> Outcome {
    let backend = OpenAiBackend::new(settings).expect("backend");
    let text = RefCell::new(Vec::new());
    let reasoning = RefCell::new(Vec::new());
    let on_stream = |piece: ModelStream<'_>| match piece {
        ModelStream::Text(t) => text.borrow_mut().push(t.to_owned()),
        ModelStream::Reasoning(t) => reasoning.borrow_mut().push(t.to_owned()),
        _ => {}
    };
    let started = Instant::now();
    let result = backend
        .complete_detailed(&request(prompt), &on_stream)
        .await;
    Outcome {
        result,
        elapsed: started.elapsed(),
        text: text.into_inner(),
        reasoning: reasoning.into_inner(),
    }
}

#[tokio::test]
async fn a_streamed_tool_call_with_thinking_and_cache_usage() {
    let server = ReplayServer::start_anthropic().await;
    let out = complete(server.anthropic_settings(true), "What is 6 times 7?").await;
    let answer = out.result.unwrap();
    assert_eq!(answer.text.as_deref(), Some("Let me compute."));
    assert_eq!(answer.tool_calls.len(), 1);
    assert_eq!(answer.tool_calls[0].id, "toolu_replay1");
    assert_eq!(answer.tool_calls[0].arguments, json!({"expression": "6*7"}));
    assert_eq!(out.text, ["Let me compute."]);
    assert_eq!(out.reasoning.concat(), "Arithmetic: use the calculator.");
    let usage = answer.usage.unwrap();
    assert_eq!(usage.input_tokens, 1840);
    assert_eq!(usage.output_tokens, 60);
    assert_eq!(usage.cache_write_tokens, Some(1800));
    assert_eq!(usage.cache_read_tokens, Some(0));

    let requests = server.requests().await;
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent["path"], "/v1/messages");
    assert_eq!(sent["headers"]["x-api-key"], ANTHROPIC_TEST_KEY);
    assert_eq!(sent["headers"]["anthropic-version"], ANTHROPIC_VERSION);
    assert!(sent["headers"].get("authorization").is_none());
    let body = &sent["body"];
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["stream"], true);
    assert_eq!(body["system"], "Answer briefly.");
    assert_eq!(
        body["tools"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert_eq!(
        body["messages"][0]["content"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
}

#[tokio::test]
async fn a_plain_json_answer_without_streaming() {
    let server = ReplayServer::start_anthropic().await;
    let out = complete(
        server.anthropic_settings(false),
        "What is the capital of France?",
    )
    .await;
    let answer = out.result.unwrap();
    assert_eq!(
        answer.text.as_deref(),
        Some("Paris is the capital of France.")
    );
    assert_eq!(out.text, ["Paris is the capital of France."]);
    assert_eq!(server.requests().await[0]["body"]["stream"], false);
}

#[tokio::test]
async fn overloaded_529_is_retried_after_retry_after_then_succeeds() {
    let server = ReplayServer::start_anthropic().await;
    let out = complete(server.anthropic_settings(true), "Overloaded first.").await;
    assert_eq!(out.result.unwrap().text.as_deref(), Some("Back now."));
    assert!(
        out.elapsed >= Duration::from_millis(950),
        "{:?}",
        out.elapsed
    );
    assert_eq!(server.requests().await.len(), 2);

    let out = complete(server.anthropic_settings(true), "Rate limited first.").await;
    assert_eq!(out.result.unwrap().text.as_deref(), Some("Fine now."));
}

#[tokio::test]
async fn a_401_names_the_variable_and_never_shows_the_key() {
    let server = ReplayServer::start_anthropic().await;
    let err = complete(server.anthropic_settings(true), "Wrong key.")
        .await
        .result
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ModelError::Unauthorized { .. }), "{err:?}");
    assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
    assert!(!text.contains(ANTHROPIC_TEST_KEY), "{text}");
    assert!(!format!("{err:?}").contains(ANTHROPIC_TEST_KEY));
}

#[tokio::test]
async fn broken_streams_end_in_named_errors() {
    let server = ReplayServer::start_anthropic().await;
    let settings = || server.anthropic_settings(true);

    let out = complete(settings(), "Fail mid-stream.").await;
    assert_eq!(out.text, ["Partial"]);
    let err = out.result.unwrap_err().to_string();
    assert!(
        err.contains("Overloaded") && err.contains("overloaded_error"),
        "{err}"
    );

    let err = complete(settings(), "Cut off.").await.result.unwrap_err();
    assert!(
        matches!(err, ModelError::Decode(DecodeError::Incomplete(_))),
        "{err:?}"
    );

    let err = complete(settings(), "Too long.").await.result.unwrap_err();
    assert!(err.to_string().contains("max_tokens"), "{err}");

    let out = complete(settings(), "Bad bytes.").await;
    assert_eq!(out.result.unwrap().text.as_deref(), Some("caf\u{fffd} ok"));
}
