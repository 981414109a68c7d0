//! `type: "http"` hooks against a real loopback HTTP server: the POST carries the event JSON
//! and the configured headers; a 2xx body is the hook's stdout (bounded), anything else is a
//! non-blocking error naming the status; a redirect is never followed; a server that does not
//! answer in time is a timeout; an answer cut short or an unreachable URL is a failure.

mod common;

use agentwire::hooks::{HookEvent, HookExit, HookRun, HookSet, HookSource};
use agentwire_host::extensions::hook_runner::{HookProcesses, MAX_OUTPUT_BYTES};
use common::lib_host::local;
use common::loopback;
use serde_json::{json, Value};
use std::io::Write;
use std::time::Duration;

/// Runs one `PreToolUse` http hook (`hook` is its settings entry) on `input`; the run, and
/// the audit line it left.
fn run_http(hook: Value, input: &Value) -> (HookRun, Value) {
    let mut set = HookSet::new();
    let source = HookSource {
        label: "test settings".into(),
        plugin_root: None,
        blocked: None,
    };
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}});
    let warnings = set.add_settings(&settings, &source);
    assert!(warnings.is_empty(), "{warnings:?}");
    let specs = set.matching(HookEvent::PreToolUse, "bash");
    assert_eq!(specs.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    let audit_path = dir.path().join("audit.jsonl");
    let audit = std::fs::File::create(&audit_path).unwrap();
    let processes = HookProcesses::new(dir.path().to_path_buf(), Some(audit));
    let mut runs = local(processes.run_all(HookEvent::PreToolUse, input, &specs));
    assert_eq!(runs.len(), 1);
    let line = std::fs::read_to_string(&audit_path).unwrap();
    let audit: Value = serde_json::from_str(line.trim()).expect("one audit line");
    (runs.remove(0), audit)
}

fn input() -> Value {
    json!({"hook_event_name": "PreToolUse", "tool_name": "bash", "tool_input": {"cmd": "ls"}})
}

fn answer(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The body of a recorded request (after the blank line).
fn body_of(request: &str) -> &str {
    request.split_once("\r\n\r\n").map_or("", |(_, body)| body)
}

#[test]
fn a_2xx_answer_is_the_hooks_stdout_and_the_post_carries_the_event_and_headers() {
    let verdict = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "not over http"}});
    let reply = verdict.to_string();
    let (origin, requests) = loopback::answering(move |_| answer("200 OK", &reply));
    let url = format!("{origin}/pre");
    let hook = json!({"type": "http", "url": url, "headers": {"X-Token": "abc 123"}});
    let (run, audit) = run_http(hook, &input());
    assert_eq!(run.exit, HookExit::Code(0), "{run:?}");
    assert_eq!(serde_json::from_str::<Value>(&run.stdout).unwrap(), verdict);
    assert_eq!(run.stderr, "");
    let request = requests.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(request.starts_with("POST /pre HTTP/1.1\r\n"), "{request}");
    let head = request.to_ascii_lowercase();
    assert!(
        head.contains("content-type: application/json\r\n"),
        "{request}"
    );
    assert!(head.contains("x-token: abc 123\r\n"), "{request}");
    let sent: Value = serde_json::from_str(body_of(&request)).unwrap();
    assert_eq!(sent, input());
    // The audit line reads the answer as the core does: the hook denied.
    assert_eq!(audit["exit"], 0);
    assert_eq!(audit["decision"], "deny");
    assert_eq!(audit["hook"], url);
}

#[test]
fn a_non_2xx_answer_is_a_failure_naming_the_status_and_its_body_is_not_output() {
    let (origin, _requests) = loopback::answering(|_| {
        answer(
            "500 Internal Server Error",
            r#"{"decision": "block", "reason": "from an error page"}"#,
        )
    });
    let url = format!("{origin}/pre");
    let (run, audit) = run_http(json!({"type": "http", "url": url}), &input());
    match &run.exit {
        HookExit::Failed(why) => {
            assert!(why.contains(&format!("POST {url}")), "{why}");
            assert!(why.contains("500"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        run.stdout, "",
        "an error page is never read as the hook's verdict"
    );
    assert_eq!(audit["exit"], "failed");
    assert_eq!(audit["decision"], "error");
}

#[test]
fn a_redirect_is_not_followed() {
    let (target, followed) = loopback::answering(|_| answer("200 OK", "{}"));
    let location = format!("{target}/elsewhere");
    let (origin, _requests) = loopback::answering(move |_| {
        format!("HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
    });
    let (run, _) = run_http(
        json!({"type": "http", "url": format!("{origin}/pre")}),
        &input(),
    );
    match &run.exit {
        HookExit::Failed(why) => assert!(why.contains("307"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(
        followed.recv_timeout(Duration::from_millis(300)).is_err(),
        "the redirect's target got no request"
    );
}

#[test]
fn a_server_that_does_not_answer_in_time_is_a_timeout() {
    let (origin, _requests) = loopback::server(|_, _stream| {
        std::thread::sleep(Duration::from_secs(5));
    });
    let hook = json!({"type": "http", "url": format!("{origin}/slow"), "timeout": 1});
    let started = std::time::Instant::now();
    let (run, audit) = run_http(hook, &input());
    assert_eq!(run.exit, HookExit::TimedOut(Duration::from_secs(1)));
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(audit["exit"], "timeout");
}

#[test]
fn an_unreachable_url_and_an_answer_cut_short_are_failures_naming_the_url() {
    // A port nobody listens on: bound, then closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/pre");
    let (run, _) = run_http(json!({"type": "http", "url": url}), &input());
    match &run.exit {
        HookExit::Failed(why) => assert!(why.starts_with(&format!("POST {url}: ")), "{why}"),
        other => panic!("{other:?}"),
    }
    // A body shorter than its Content-Length: the answer is not taken, even with a 200.
    let (origin, _requests) = loopback::server(|_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-length: 1000\r\nconnection: close\r\n\r\n{\"continue\": false",
        );
    });
    let url = format!("{origin}/cut");
    let (run, _) = run_http(json!({"type": "http", "url": url}), &input());
    match &run.exit {
        HookExit::Failed(why) => {
            assert!(
                why.starts_with(&format!("POST {url}: reading the answer")),
                "{why}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(run.stdout, "");
}

#[test]
fn a_huge_answer_is_bounded_and_the_rest_counted() {
    let extra = 4096;
    let (origin, _requests) = loopback::server(move |_, stream| {
        let total = MAX_OUTPUT_BYTES + extra;
        let head =
            format!("HTTP/1.1 200 OK\r\ncontent-length: {total}\r\nconnection: close\r\n\r\n");
        let _ = stream.write_all(head.as_bytes());
        let chunk = vec![b'x'; 64 * 1024];
        let mut left = total;
        while left > 0 {
            let n = left.min(chunk.len());
            if stream.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n;
        }
    });
    let (run, _) = run_http(
        json!({"type": "http", "url": format!("{origin}/big")}),
        &input(),
    );
    assert_eq!(run.exit, HookExit::Code(0));
    let kept = run.stdout.bytes().take_while(|b| *b == b'x').count();
    assert_eq!(kept, MAX_OUTPUT_BYTES);
    assert!(
        run.stdout
            .ends_with(&format!("[hook output cut: {extra} more bytes]")),
        "{}",
        &run.stdout[run.stdout.len() - 80..]
    );
}
