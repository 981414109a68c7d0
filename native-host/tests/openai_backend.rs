//! `OpenAiBackend` against a local OpenAI-compatible server replaying scripted answers.

#[path = "fixtures/openai/replay.rs"]
mod replay;

use agentwire::driver::{ModelBackend, ModelStream};
use agentwire::model::openai::DecodeError;
use agentwire::model::{ModelRequest, ModelResponse, ToolCall, ToolDefinition};
use agentwire_host::model::{ApiKey, ModelError, ModelSettings, OpenAiBackend, RetryPolicy};
use replay::{ReplayServer, TEST_KEY};
use serde_json::json;
use std::cell::RefCell;
use std::time::{Duration, Instant};

fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        system: "Answer briefly.".into(),
        messages: vec![agentwire::model::ChatMessage::User {
            content: prompt.into(),
        }],
        tools: vec![ToolDefinition {
            name: "get_weather".into(),
            description: "Current weather in a city".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }],
    }
}

/// What one completion produced.
struct Outcome {
    result: Result<ModelResponse, ModelError>,
    /// Streamed answer text, piece by piece.
    deltas: Vec<String>,
    /// Streamed reasoning, piece by piece.
    reasoning: Vec<String>,
    elapsed: Duration,
}

async fn complete(settings: ModelSettings, prompt: &str) -> Outcome {
    let backend = OpenAiBackend::new(settings).expect("backend");
    let deltas = RefCell::new(Vec::new());
    let reasoning = RefCell::new(Vec::new());
    let on_stream = |piece: ModelStream<'_>| match piece {
        ModelStream::Text(text) => deltas.borrow_mut().push(text.to_owned()),
        ModelStream::Reasoning(text) => reasoning.borrow_mut().push(text.to_owned()),
        _ => {}
    };
    let started = Instant::now();
    let result = backend
        .complete_detailed(&request(prompt), &on_stream)
        .await;
    Outcome {
        result,
        elapsed: started.elapsed(),
        deltas: deltas.into_inner(),
        reasoning: reasoning.into_inner(),
    }
}

#[tokio::test]
async fn a_plain_answer_without_streaming() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(false), "What is the capital of France?").await;
    let answer = out.result.unwrap();
    assert_eq!(
        answer.text.as_deref(),
        Some("Paris is the capital of France.")
    );
    assert!(answer.tool_calls.is_empty());
    let usage = answer.usage.expect("the JSON body's usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (31, 9));
    assert_eq!(usage.cache_read_tokens, None, "not reported, not invented");
    // The whole text still reaches on_stream, once, so a CLI can always print from there.
    assert_eq!(out.deltas, ["Paris is the capital of France."]);

    let requests = server.requests().await;
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent["path"], "/v1/chat/completions");
    assert_eq!(
        sent["headers"]["authorization"],
        format!("Bearer {TEST_KEY}")
    );
    assert_eq!(sent["headers"]["accept"], "application/json");
    assert_eq!(sent["body"]["model"], "gpt-4o-mini");
    assert_eq!(sent["body"]["stream"], false);
    assert!(sent["body"].get("stream_options").is_none());
    assert_eq!(sent["body"]["messages"][0]["role"], "system");
    assert_eq!(
        sent["body"]["messages"][1]["content"],
        "What is the capital of France?"
    );
    assert_eq!(sent["body"]["tools"][0]["function"]["name"], "get_weather");
}

#[tokio::test]
async fn streamed_text_reaches_on_text_piece_by_piece() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "Say hello, slowly.").await;
    let answer = out.result.unwrap();
    assert_eq!(out.deltas, ["Hel", "lo, ", "wor", "ld! 你好"]);
    assert_eq!(answer.text.as_deref(), Some("Hello, world! 你好"));
    let sent = &server.requests().await[0];
    assert_eq!(sent["body"]["stream"], true);
    assert_eq!(sent["body"]["stream_options"]["include_usage"], true);
    assert_eq!(sent["headers"]["accept"], "text/event-stream");
    assert!(answer.usage.is_some(), "usage from the last chunk");
}

#[tokio::test]
async fn two_parallel_tool_calls_are_assembled_from_split_fragments() {
    let server = ReplayServer::start().await;
    // The server writes 7 bytes at a time, so events are cut mid-JSON across reads.
    let out = complete(server.settings(true), "Weather and time in Paris?").await;
    let answer = out.result.unwrap();
    assert_eq!(answer.text, None);
    assert_eq!(answer.usage, None, "this stream reports no usage");
    assert!(out.deltas.is_empty(), "{:?}", out.deltas);
    assert_eq!(
        answer.tool_calls,
        [
            ToolCall {
                id: "call_weather_1".into(),
                name: "get_weather".into(),
                arguments: json!({"city": "Paris", "unit": "c"}),
            },
            ToolCall {
                id: "call_time_2".into(),
                name: "get_time".into(),
                arguments: json!({"timezone": "Europe/Paris"}),
            },
        ]
    );
}

#[tokio::test]
async fn a_server_that_ignores_stream_is_still_understood() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "What is the capital of France?").await;
    assert_eq!(
        out.result.unwrap().text.as_deref(),
        Some("Paris is the capital of France.")
    );
    assert_eq!(out.deltas, ["Paris is the capital of France."]);
}

#[tokio::test]
async fn streamed_reasoning_is_reported_apart_from_the_answer() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "先想一想：17 乘 3 是多少？").await;
    assert_eq!(out.reasoning, ["17 乘 3，", "等于 51。"]);
    assert_eq!(out.deltas, ["17 × 3 = 51。"]);
    assert_eq!(out.result.unwrap().text.as_deref(), Some("17 × 3 = 51。"));
}

#[tokio::test]
async fn a_dashscope_shaped_stream_in_chinese() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "用一句话介绍杭州。").await;
    assert_eq!(out.deltas, ["杭州是", "浙江省的省会，", "以西湖闻名。"]);
    assert_eq!(
        out.result.unwrap().text.as_deref(),
        Some("杭州是浙江省的省会，以西湖闻名。")
    );
}

#[tokio::test]
async fn a_wrong_key_names_its_variable_and_never_shows_the_key() {
    let server = ReplayServer::start().await;
    for source in ["OPENAI_API_KEY", "DASHSCOPE_API_KEY"] {
        let mut settings = server.settings(true);
        settings.api_key = ApiKey::new(TEST_KEY, source);
        let backend = OpenAiBackend::new(settings).unwrap();
        // Through the trait, as the runtime calls it.
        let message = backend
            .complete(request("Use the wrong key."), &|_| {})
            .await
            .unwrap_err();
        assert!(
            message.contains(&format!("rejected the API key from {source}")),
            "{message}"
        );
        assert!(message.contains("HTTP 401"), "{message}");
        assert!(message.contains("Incorrect API key provided"), "{message}");
        assert!(!message.contains(TEST_KEY), "the key leaked: {message}");
        assert!(!format!("{backend:?}").contains(TEST_KEY));
    }
    assert_eq!(server.requests().await.len(), 2, "401 is never retried");
}

#[tokio::test]
async fn a_rate_limit_is_retried_after_the_servers_retry_after() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "Rate limited once.").await;
    assert_eq!(out.result.unwrap().text.as_deref(), Some("Worth the wait."));
    assert_eq!(server.requests().await.len(), 2);
    // The backoff alone would wait 20 ms; `Retry-After: 1` asked for a second.
    assert!(
        out.elapsed >= Duration::from_millis(950),
        "{:?}",
        out.elapsed
    );
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_until_success() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(false), "Overloaded twice.").await;
    assert_eq!(out.result.unwrap().text.as_deref(), Some("Back again."));
    assert_eq!(server.requests().await.len(), 3);
    assert!(
        out.elapsed >= Duration::from_millis(60),
        "20 + 40 ms of backoff"
    );
}

#[tokio::test]
async fn persistent_server_errors_give_up_after_bounded_retries() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "Server keeps failing.").await;
    let error = out.result.unwrap_err();
    assert!(
        matches!(
            error,
            ModelError::RetriesExhausted {
                status: 500,
                attempts: 4,
                ..
            }
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("HTTP 500 after 4 attempts"), "{message}");
    assert!(message.contains("The server had an error"), "{message}");
    assert_eq!(server.requests().await.len(), 4);
    assert!(out.elapsed >= Duration::from_millis(140), "20 + 40 + 80 ms");

    let mut settings = server.settings(true);
    settings.retry = RetryPolicy::none();
    let error = complete(settings, "Server keeps failing.")
        .await
        .result
        .unwrap_err();
    assert!(matches!(
        error,
        ModelError::RetriesExhausted { attempts: 1, .. }
    ));
    assert_eq!(server.requests().await.len(), 5);
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_fails_at_once() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "Rate limited for an hour.").await;
    let message = out.result.unwrap_err().to_string();
    assert!(message.contains("HTTP 429"), "{message}");
    assert!(message.contains("retry in 3600 s"), "{message}");
    assert!(message.contains("exceeded your current quota"), "{message}");
    assert_eq!(server.requests().await.len(), 1);
}

#[tokio::test]
async fn a_missing_model_is_not_retried_and_hints_at_the_settings() {
    let server = ReplayServer::start().await;
    let error = complete(server.settings(true), "Unknown model.")
        .await
        .result
        .unwrap_err();
    assert!(
        matches!(error, ModelError::Http { status: 404, .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("does not exist"), "{message}");
    assert!(message.contains("check the base URL"), "{message}");
    assert_eq!(server.requests().await.len(), 1);
}

#[tokio::test]
async fn malformed_answers_say_what_was_wrong() {
    let server = ReplayServer::start().await;
    for stream in [false, true] {
        let error = complete(server.settings(stream), "Send broken JSON.")
            .await
            .result
            .unwrap_err();
        assert!(
            matches!(error, ModelError::Decode(DecodeError::NotJson { .. })),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("not JSON"), "{message}");
        assert!(
            message.contains("chatcmpl-broken"),
            "shows the start: {message}"
        );

        let error = complete(server.settings(stream), "Send the wrong shape.")
            .await
            .result
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("no \"choices\" array"), "{message}");
    }
}

#[tokio::test]
async fn a_stream_cut_short_is_an_error_after_the_text_it_carried() {
    let server = ReplayServer::start().await;
    let out = complete(server.settings(true), "Cut off mid-answer.").await;
    assert_eq!(out.deltas, ["The answer is"]);
    let error = out.result.unwrap_err();
    assert!(
        matches!(error, ModelError::Decode(DecodeError::Incomplete(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let server = ReplayServer::start().await;
    let mut settings = server.settings(true);
    settings.first_byte_timeout = Duration::from_millis(300);
    let out = complete(settings, "Never answer.").await;
    let error = out.result.unwrap_err();
    assert!(
        matches!(
            error,
            ModelError::Timeout {
                waiting_for: "first byte of the answer",
                ..
            }
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("within 300 ms"), "{message}");
    assert!(
        message.contains("the time to first byte ran out"),
        "{message}"
    );
    assert!(
        message.contains("AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS"),
        "{message}"
    );
    assert!(out.elapsed >= Duration::from_millis(300));
    assert!(out.elapsed < Duration::from_secs(5), "{:?}", out.elapsed);
    assert_eq!(server.requests().await.len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn a_stream_that_stalls_times_out_after_its_text() {
    let server = ReplayServer::start().await;
    let mut settings = server.settings(true);
    settings.idle_timeout = Duration::from_millis(300);
    let out = complete(settings, "Stall mid-answer.").await;
    assert_eq!(out.deltas, ["I was saying"]);
    let error = out.result.unwrap_err();
    assert!(
        matches!(
            error,
            ModelError::Timeout {
                waiting_for: "further part of the answer",
                ..
            }
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("the idle timeout between two pieces of the answer ran out"),
        "{message}"
    );
    assert!(
        message.contains("AGENTWIRE_MODEL_IDLE_TIMEOUT_MS"),
        "{message}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_named() {
    // A port that was free a moment ago and has no listener now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let settings = ModelSettings::new(&base, "m", ApiKey::new(TEST_KEY, "OPENAI_API_KEY"));
    let out = complete(settings, "hello").await;
    let error = out.result.unwrap_err();
    assert!(matches!(error, ModelError::Connection { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(&base), "{message}");
    assert!(!message.contains(TEST_KEY));
}
