//! bash: exit codes, streams, working directory, timeouts, output cap, cleanup.

use super::Fixture;
use serde_json::json;
use std::time::{Duration, Instant};

/// Whether a process is gone (or only a zombie waiting for whoever adopted it).
fn is_dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

pub(super) async fn wait_dead(pid: &str) -> bool {
    for _ in 0..50 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn reports_stdout_stderr_and_exit_code() {
    let fx = Fixture::new();
    let out = fx
        .call(
            "bash",
            json!({"command": "echo hello; echo oops >&2; exit 3"}),
        )
        .await;
    assert!(out.is_error);
    assert_eq!(out.to_model_text(), "hello\n[stderr]\noops\n[exit code 3]");
    let s = out.structured_content.unwrap();
    assert_eq!(s["exit_code"], 3);
    assert_eq!(s["timed_out"], false);
    assert_eq!(s["stdout_bytes"], 6);

    let ok = fx.ok("bash", json!({"command": "printf 'a\\nb'"})).await;
    assert_eq!(ok, "a\nb");
    assert_eq!(
        fx.ok("bash", json!({"command": "true"})).await,
        "(no output)"
    );
    let killed = fx.err("bash", json!({"command": "kill -9 $$"})).await;
    assert!(killed.ends_with("[killed by signal 9]"), "{killed}");
}

#[tokio::test]
async fn runs_in_the_workspace_with_no_stdin() {
    let fx = Fixture::new();
    let pwd = fx.ok("bash", json!({"command": "pwd"})).await;
    assert_eq!(pwd, fx.root().canonicalize().unwrap().display().to_string());
    // stdin is /dev/null, so a reader gets EOF instead of hanging.
    assert_eq!(
        fx.ok("bash", json!({"command": "cat; echo eof"})).await,
        "eof"
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let fx = Fixture::new();
    let start = Instant::now();
    let cmd = "sleep 30 & echo $! > bg.pid; echo $$ > sh.pid; echo started; wait";
    let out = fx
        .call("bash", json!({"command": cmd, "timeout_ms": 1000}))
        .await;
    let elapsed = start.elapsed();
    assert!(out.is_error);
    let text = out.to_model_text();
    assert!(text.starts_with("started\n"), "partial output kept: {text}");
    assert!(
        text.ends_with("[timed out after 1000 ms; the command and its children were killed]"),
        "{text}"
    );
    assert_eq!(out.structured_content.unwrap()["timed_out"], true);
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(
        wait_dead(&fx.read("bg.pid")).await,
        "background sleep survived"
    );
    assert!(wait_dead(&fx.read("sh.pid")).await, "bash survived");
}

#[tokio::test]
async fn timeout_is_capped_by_the_context() {
    let mut fx = Fixture::new();
    fx.ctx.bash_max_timeout = Duration::from_millis(200);
    let msg = fx
        .err(
            "bash",
            json!({"command": "sleep 10", "timeout_ms": 100_000}),
        )
        .await;
    assert!(msg.contains("timed out after 200 ms"), "{msg}");
    fx.ctx.bash_default_timeout = Duration::from_millis(150);
    let msg = fx.err("bash", json!({"command": "sleep 10"})).await;
    assert!(msg.contains("timed out after 150 ms"), "{msg}");
    let msg = fx
        .err("bash", json!({"command": "true", "timeout_ms": 0}))
        .await;
    assert!(msg.contains("\"timeout_ms\" must be at least 1"), "{msg}");
}

#[tokio::test]
async fn background_jobs_do_not_hold_the_call_open() {
    let fx = Fixture::new();
    let start = Instant::now();
    let out = fx
        .ok(
            "bash",
            json!({"command": "sleep 20 & echo $! > bg.pid; echo done"}),
        )
        .await;
    assert_eq!(out, "done");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(wait_dead(&fx.read("bg.pid")).await);
}

#[tokio::test]
async fn output_is_capped_with_a_note() {
    let fx = Fixture::new();
    let cmd = "head -c 100000 /dev/zero | tr '\\0' a; printf END";
    let text = fx.ok("bash", json!({"command": cmd})).await;
    let budget = fx.ctx.max_output_bytes;
    let cut = 100_003 - budget;
    assert!(
        text.contains(&format!("\n[... {cut} bytes cut ...]\n")),
        "{}",
        &text[..64]
    );
    assert!(text.ends_with("aaaEND"), "tail kept");
    assert!(text.len() < budget + 100, "{}", text.len());

    // stderr keeps a share even when stdout floods.
    let cmd = "head -c 100000 /dev/zero | tr '\\0' o; head -c 50000 /dev/zero | tr '\\0' e >&2";
    let text = fx.ok("bash", json!({"command": cmd})).await;
    let (out, err) = text.split_once("[stderr]\n").unwrap();
    assert!(
        err.len() >= budget / 4 && err.len() < budget / 4 + 100,
        "{}",
        err.len()
    );
    assert!(out.len() <= budget - budget / 4 + 100);
}

#[tokio::test]
async fn cancelling_the_call_kills_the_group() {
    let fx = Fixture::new();
    let cmd = "sleep 30 & echo $! > bg.pid; wait";
    let pid_file = fx.root().join("bg.pid");
    let started = async {
        while !std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n')) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        out = fx.call("bash", json!({"command": cmd})) => panic!("finished: {out:?}"),
        _ = started => {}
    }
    // The call's future has been dropped here: that is the cancellation.
    assert!(
        wait_dead(&fx.read("bg.pid")).await,
        "background sleep survived cancellation"
    );
}

#[tokio::test]
async fn bad_arguments_are_errors() {
    let fx = Fixture::new();
    assert!(fx
        .err("bash", json!({}))
        .await
        .contains("missing required argument \"command\""));
    assert!(fx
        .err("bash", json!({"command": "  "}))
        .await
        .contains("the command is empty"));
    let msg = fx
        .err("bash", json!({"command": "true", "timeout_ms": -5}))
        .await;
    assert!(msg.contains("non-negative integer"), "{msg}");
}
