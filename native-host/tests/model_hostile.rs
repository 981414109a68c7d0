//! The model backends against hostile servers on loopback: redirects to another origin (two
//! ports are two origins), endless streams, keys quoted back inside streamed errors, slow
//! first bytes and silences. Each server is a thread per connection that writes raw HTTP.

mod common;

use agentwire::driver::ModelStream;
use agentwire::model::{ChatMessage, ModelRequest, ModelResponse};
use agentwire_host::model::{
    ApiKey, ModelError, ModelSettings, OpenAiBackend, Provider, RetryPolicy,
};
use common::loopback::server;
use std::io::Write;
use std::thread;
use std::time::{Duration, Instant};

/// A key with no known provider prefix: only redaction by value can hide it.
const PLAIN_KEY: &str = "plainkey7Q2x9Lm4Vb8Nz3Wc";

fn sse_head() -> &'static str {
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
}

fn json_response(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn redirect(status: &str, location: &str) -> String {
    format!("HTTP/1.1 {status}\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}

const OPENAI_ANSWER: &str = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}"#;
const ANTHROPIC_ANSWER: &str = r#"{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}"#;

fn settings(provider: Provider, base_url: &str, stream: bool) -> ModelSettings {
    let mut settings = ModelSettings::new(base_url, "m", ApiKey::new(PLAIN_KEY, "TEST_KEY"));
    settings.provider = provider;
    settings.stream = stream;
    settings.retry = RetryPolicy::none();
    settings
}

fn request() -> ModelRequest {
    ModelRequest {
        system: "s".into(),
        messages: vec![ChatMessage::User {
            content: "hello".into(),
        }],
        tools: vec![],
    }
}

fn complete(settings: ModelSettings) -> (Result<ModelResponse, ModelError>, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let text = std::cell::RefCell::new(String::new());
    let on_stream = |piece: ModelStream<'_>| {
        if let ModelStream::Text(t) = piece {
            text.borrow_mut().push_str(t);
        }
    };
    let backend = OpenAiBackend::new(settings).expect("backend");
    let result = runtime.block_on(backend.complete_detailed(&request(), &on_stream));
    (result, text.into_inner())
}

fn answer_for(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => ANTHROPIC_ANSWER,
        _ => OPENAI_ANSWER,
    }
}

const PROVIDERS: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

/// Every header that carries (or accompanies) a model key.
fn credential_headers(request: &str) -> Vec<String> {
    request
        .lines()
        .filter(|line| {
            let lower = line.to_ascii_lowercase();
            ["x-api-key:", "authorization:", "api-key:", "anthropic-"]
                .iter()
                .any(|h| lower.starts_with(h))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_key_follows_a_redirect_to_another_origin() {
    for provider in PROVIDERS {
        for status in [
            "307 Temporary Redirect",
            "302 Found",
            "308 Permanent Redirect",
            "301 Moved Permanently",
            "303 See Other",
        ] {
            let answer = answer_for(provider);
            let (elsewhere, elsewhere_seen) = server(move |_, s| {
                let _ = s.write_all(json_response(answer).as_bytes());
            });
            let target = format!("{elsewhere}/v1/steal");
            let (origin, _) = server(move |_, s| {
                let _ = s.write_all(redirect(status, &target).as_bytes());
            });
            let (result, _) = complete(settings(provider, &format!("{origin}/v1"), false));
            let leaked: Vec<String> = elsewhere_seen
                .try_iter()
                .flat_map(|r| credential_headers(&r))
                .collect();
            assert!(leaked.is_empty(), "{provider:?} {status}: {leaked:?}");
            let error = result
                .expect_err("a cross-origin redirect is refused")
                .to_string();
            assert!(error.contains("another origin"), "{error}");
            assert!(error.contains(&elsewhere), "{error}");
            assert!(!error.contains(PLAIN_KEY), "{error}");
        }
    }
}

#[test]
fn a_redirect_within_the_origin_is_followed_with_the_key() {
    for provider in PROVIDERS {
        let answer = answer_for(provider);
        let (origin, seen) = server(move |request, s| {
            let reply = if request.contains("/v2/") {
                json_response(answer)
            } else {
                let path = if provider == Provider::Anthropic {
                    "/v2/v1/messages"
                } else {
                    "/v2/chat/completions"
                };
                redirect("307 Temporary Redirect", path)
            };
            let _ = s.write_all(reply.as_bytes());
        });
        let (result, _) = complete(settings(provider, &format!("{origin}/v1"), false));
        assert_eq!(result.expect("followed").text.as_deref(), Some("hi"));
        let requests: Vec<String> = seen.try_iter().collect();
        assert_eq!(requests.len(), 2, "{requests:?}");
        assert!(
            requests[1].contains(PLAIN_KEY),
            "the same origin gets the key: {}",
            requests[1]
        );
    }
}

#[test]
fn a_key_quoted_in_a_streamed_error_event_is_never_shown() {
    let bodies = [
        (
            Provider::OpenAi,
            format!("data: {{\"error\":{{\"message\":\"bad key {PLAIN_KEY} for you\",\"type\":\"auth\"}}}}\n\n"),
        ),
        (
            Provider::OpenAi,
            format!("event: error\ndata: upstream said {PLAIN_KEY}\n\n"),
        ),
        (
            Provider::Anthropic,
            format!("event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"key {PLAIN_KEY} overloaded\"}}}}\n\n"),
        ),
        (
            Provider::Anthropic,
            format!("event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{}}}}\n\nevent: x\ndata: not json {PLAIN_KEY}\n\n"),
        ),
    ];
    for (provider, body) in bodies {
        let (origin, _) = server(move |_, s| {
            let _ = s.write_all(format!("{}{body}", sse_head()).as_bytes());
        });
        let (result, _) = complete(settings(provider, &format!("{origin}/v1"), true));
        let error = result.expect_err("an error event fails the answer");
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains(PLAIN_KEY), "{provider:?}: {shown}");
        assert!(shown.contains("<redacted>"), "{provider:?}: {shown}");
    }
}

#[test]
fn a_key_quoted_in_a_plain_answer_that_fails_to_decode_is_never_shown() {
    for provider in PROVIDERS {
        let (origin, _) = server(move |_, s| {
            let body = format!("{{\"error\":{{\"message\":\"bad {PLAIN_KEY}\"}}}}");
            let _ = s.write_all(json_response(&body).as_bytes());
        });
        let (result, _) = complete(settings(provider, &format!("{origin}/v1"), false));
        let error = result.expect_err("an error body");
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains(PLAIN_KEY), "{provider:?}: {shown}");
    }
}

/// One streamed event of `provider` that carries text (or, with `tool`, tool arguments).
fn delta(provider: Provider, tool: bool) -> String {
    match (provider, tool) {
        (Provider::Anthropic, false) => "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"aaaaaaaaaaaaaaaa\"}}\n\n".into(),
        (Provider::Anthropic, true) => "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"[1,1,1,1,1,1,\"}}\n\n".into(),
        (_, false) => "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"aaaaaaaaaaaaaaaa\"}}]}\n\n".into(),
        (_, true) => "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"x\",\"arguments\":\"[1,1,1,1,\"}}]}}]}\n\n".into(),
    }
}

/// The events that open an answer of `provider` (a text block, or a tool-use block).
fn opening(provider: Provider, tool: bool) -> String {
    match (provider, tool) {
        (Provider::Anthropic, false) => "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".into(),
        (Provider::Anthropic, true) => "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"x\",\"input\":{}}}\n\n".into(),
        _ => String::new(),
    }
}

/// A server that streams `opening` then `repeat` every `pause` until the client goes away.
fn endless(opening: String, repeat: String, pause: Duration) -> String {
    let (origin, _) = server(move |_, s| {
        if s.write_all(format!("{}{opening}", sse_head()).as_bytes())
            .is_err()
        {
            return;
        }
        while s.write_all(repeat.as_bytes()).is_ok() {
            if !pause.is_zero() {
                thread::sleep(pause);
            }
        }
    });
    origin
}

#[test]
fn an_endless_stream_of_text_or_tool_arguments_stops_at_the_size_bound() {
    for provider in PROVIDERS {
        for tool in [false, true] {
            let origin = endless(
                opening(provider, tool),
                delta(provider, tool),
                Duration::ZERO,
            );
            let mut settings = settings(provider, &format!("{origin}/v1"), true);
            settings.max_answer_bytes = 256 * 1024;
            let started = Instant::now();
            let (result, text) = complete(settings);
            let error = result.expect_err("stopped");
            assert!(
                matches!(error, ModelError::AnswerTooLarge { limit: 262_144, .. }),
                "{provider:?} {tool}: {error:?}"
            );
            let message = error.to_string();
            assert!(message.contains(provider.label()), "{message}");
            assert!(
                message.contains("AGENTWIRE_MODEL_MAX_ANSWER_BYTES"),
                "{message}"
            );
            assert!(text.len() <= 256 * 1024, "{}", text.len());
            assert!(started.elapsed() < Duration::from_secs(10));
        }
    }
}

#[test]
fn a_ping_every_few_milliseconds_no_longer_keeps_an_answer_alive_for_ever() {
    for provider in PROVIDERS {
        let ping = match provider {
            Provider::Anthropic => "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            _ => ": keep-alive\n\n",
        };
        let origin = endless(
            opening(provider, false),
            ping.into(),
            Duration::from_millis(20),
        );
        let mut settings = settings(provider, &format!("{origin}/v1"), true);
        settings.idle_timeout = Duration::from_millis(500);
        settings.max_answer_duration = Duration::from_millis(700);
        let started = Instant::now();
        let (result, _) = complete(settings);
        let elapsed = started.elapsed();
        let error = result.expect_err("stopped");
        assert!(
            matches!(error, ModelError::AnswerTooLong { .. }),
            "{provider:?}: {error:?}"
        );
        let message = error.to_string();
        assert!(message.contains(provider.label()), "{message}");
        assert!(message.contains("after 700 ms"), "{message}");
        assert!(
            message.contains("AGENTWIRE_MODEL_MAX_ANSWER_MS"),
            "{message}"
        );
        assert!(elapsed >= Duration::from_millis(700), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    }
}

#[test]
fn a_flood_with_no_pause_is_stopped_by_the_duration_bound_too() {
    let provider = Provider::OpenAi;
    let origin = endless(String::new(), ": x\n\n".into(), Duration::ZERO);
    let mut settings = settings(provider, &format!("{origin}/v1"), true);
    settings.max_answer_duration = Duration::from_millis(300);
    let started = Instant::now();
    let (result, _) = complete(settings);
    assert!(
        matches!(result, Err(ModelError::AnswerTooLong { .. })),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_plain_answer_past_the_size_bound_is_refused() {
    for provider in PROVIDERS {
        let (origin, _) = server(move |_, s| {
            let body = format!("{{\"pad\":\"{}\"}}", "x".repeat(10_000));
            let _ = s.write_all(json_response(&body).as_bytes());
        });
        let mut settings = settings(provider, &format!("{origin}/v1"), false);
        settings.max_answer_bytes = 4096;
        let (result, _) = complete(settings);
        assert!(
            matches!(result, Err(ModelError::AnswerTooLarge { limit: 4096, .. })),
            "{result:?}"
        );
    }
}

/// A local model: silent for `think` before anything (reading the prompt), then a short
/// streamed answer. With `head_first`, the response head comes at once and only the body
/// waits (llama.cpp's way), otherwise the head waits too.
fn slow_starter(provider: Provider, think: Duration, head_first: bool) -> String {
    let body = match provider {
        Provider::Anthropic => format!(
            "{}{}event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
            opening(provider, false),
            delta(provider, false)
        ),
        _ => format!(
            "{}data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n",
            delta(provider, false)
        ),
    };
    let (origin, _) = server(move |_, s| {
        if head_first {
            let _ = s.write_all(sse_head().as_bytes());
            let _ = s.flush();
        }
        thread::sleep(think);
        if !head_first {
            let _ = s.write_all(sse_head().as_bytes());
        }
        let _ = s.write_all(body.as_bytes());
    });
    origin
}

#[test]
fn a_slow_first_byte_is_waited_for_and_the_idle_timeout_starts_after_it() {
    for provider in PROVIDERS {
        for head_first in [false, true] {
            let origin = slow_starter(provider, Duration::from_millis(700), head_first);
            let mut settings = settings(provider, &format!("{origin}/v1"), true);
            settings.first_byte_timeout = Duration::from_secs(5);
            settings.idle_timeout = Duration::from_millis(200);
            let (result, text) = complete(settings);
            assert!(result.is_ok(), "{provider:?} {head_first}: {result:?}");
            assert_eq!(text, "aaaaaaaaaaaaaaaa");
        }
    }
}

#[test]
fn a_first_byte_too_slow_says_which_timeout_ran_out() {
    for head_first in [false, true] {
        let origin = slow_starter(Provider::OpenAi, Duration::from_millis(1500), head_first);
        let mut settings = settings(Provider::OpenAi, &format!("{origin}/v1"), true);
        settings.first_byte_timeout = Duration::from_millis(300);
        settings.idle_timeout = Duration::from_secs(10);
        let started = Instant::now();
        let (result, _) = complete(settings);
        let message = result.expect_err("timed out").to_string();
        assert!(message.contains("time to first byte"), "{message}");
        assert!(message.contains("within 300 ms"), "{message}");
        assert!(
            message.contains("AGENTWIRE_MODEL_FIRST_BYTE_TIMEOUT_MS"),
            "{message}"
        );
        assert!(started.elapsed() < Duration::from_millis(1400));
    }
}

#[test]
fn the_defaults_fit_a_local_model() {
    let settings = settings(Provider::OpenAi, "http://127.0.0.1:1/v1", true);
    // 132 s for a first request of 3,500 prompt tokens was seen with llama.cpp.
    assert!(settings.first_byte_timeout >= Duration::from_secs(600));
    assert!(settings.idle_timeout >= Duration::from_secs(120));
    assert!(settings.idle_timeout <= Duration::from_secs(300));
}

#[test]
fn a_key_quoted_back_never_reaches_the_terminal_json_events_or_the_audit_log() {
    let (origin, _) = server(move |_, s| {
        let body = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"partial \"}}}}]}}\n\nevent: error\ndata: {{\"error\":{{\"message\":\"key {PLAIN_KEY} revoked\"}}}}\n\n"
        );
        let _ = s.write_all(format!("{}{body}", sse_head()).as_bytes());
    });
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let base = format!("{origin}/v1");
    for json in [false, true] {
        let mut args = vec!["run", "--audit", audit.to_str().unwrap(), "hello"];
        if json {
            args.push("--json");
        }
        let out = common::run_cli(
            dir.path(),
            &args,
            &[
                ("OPENAI_API_KEY", PLAIN_KEY),
                ("OPENAI_BASE_URL", &base),
                ("AGENTWIRE_MODEL_RETRIES", "0"),
            ],
        );
        assert_eq!(out.code, 1, "{out:?}");
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(all.contains("revoked"), "{out:?}");
        assert!(!all.contains(PLAIN_KEY), "{out:?}");
    }
    let log = std::fs::read_to_string(&audit).unwrap_or_default();
    assert!(!log.contains(PLAIN_KEY), "{log}");
}

/// A server where `/hop/N/...` redirects to `/hop/N-1/...` and `/hop/0/...` answers.
fn hops() -> String {
    let (origin, _) = server(|request, s| {
        let path = request.split_whitespace().nth(1).unwrap_or("");
        let n: u32 = path
            .strip_prefix("/hop/")
            .and_then(|rest| rest.split('/').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let reply = if n == 0 {
            json_response(OPENAI_ANSWER)
        } else {
            redirect(
                "307 Temporary Redirect",
                &format!("/hop/{}/chat/completions", n - 1),
            )
        };
        let _ = s.write_all(reply.as_bytes());
    });
    origin
}

#[test]
fn ten_redirects_within_the_origin_are_followed_and_an_eleventh_is_refused() {
    let origin = hops();
    let (result, _) = complete(settings(
        Provider::OpenAi,
        &format!("{origin}/hop/10"),
        false,
    ));
    assert_eq!(result.expect("ten hops").text.as_deref(), Some("hi"));
    let (result, _) = complete(settings(
        Provider::OpenAi,
        &format!("{origin}/hop/11"),
        false,
    ));
    let error = result.expect_err("eleven hops").to_string();
    assert!(error.contains("more than 10 redirects"), "{error}");
}
