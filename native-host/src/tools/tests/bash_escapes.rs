//! bash: the environment it gets, and jobs that try to outlive the call (`setsid`, double
//! forks, `nohup`).

use super::bash::wait_dead;
use super::Fixture;
use serde_json::json;
use std::time::{Duration, Instant};

/// Starts one job of each escaping kind, each writing its pid to a file.
const ESCAPES: &str = "setsid sleep 30 >/dev/null 2>&1 & echo $! > setsid.pid; \
     ( setsid sleep 31 >/dev/null 2>&1 & echo $! > double.pid ); \
     nohup sleep 32 >/dev/null 2>&1 & echo $! > nohup.pid; \
     setsid sleep 33 & echo $! > holds-stdout.pid";

async fn assert_all_dead(fx: &Fixture) {
    for name in ["setsid", "double", "nohup", "holds-stdout"] {
        let pid = fx.read(&format!("{name}.pid"));
        assert!(
            wait_dead(&pid).await,
            "the {name} job ({}) survived",
            pid.trim()
        );
    }
}

#[tokio::test]
async fn escaped_jobs_end_with_the_command() {
    let fx = Fixture::new();
    let start = Instant::now();
    let out = fx
        .ok("bash", json!({"command": format!("{ESCAPES}; echo done")}))
        .await;
    assert_eq!(out, "done");
    // The job that kept stdout open must not hold the call until its timeout.
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert_all_dead(&fx).await;
}

#[tokio::test]
async fn escaped_jobs_end_on_a_timeout_and_the_message_says_so_truly() {
    let fx = Fixture::new();
    let cmd = format!("{ESCAPES}; echo started; sleep 30");
    let out = fx
        .call("bash", json!({"command": cmd, "timeout_ms": 1500}))
        .await;
    let text = out.to_model_text();
    assert!(
        text.ends_with("[timed out after 1500 ms; the command and its children were killed]"),
        "{text}"
    );
    assert_all_dead(&fx).await;
}

#[tokio::test]
async fn escaped_jobs_end_when_the_call_is_cancelled() {
    let fx = Fixture::new();
    let cmd = format!("{ESCAPES}; echo x > ready; sleep 30");
    let ready = fx.root().join("ready");
    let started = async {
        while !ready.exists() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        out = fx.call("bash", json!({"command": cmd})) => panic!("finished: {out:?}"),
        _ = started => {}
    }
    assert_all_dead(&fx).await;
}

#[tokio::test]
async fn bash_gets_a_clean_environment_and_only_the_names_passed_on_purpose() {
    // A name no other test uses: the variable is set in this test process for the duration.
    const NAME: &str = "AGENTWIRE_TEST_BASH_SECRET";
    std::env::set_var(NAME, "sk-test-not-for-bash");
    let mut fx = Fixture::new();
    let cmd = format!("echo \"[${NAME}]\"; echo \"path=${{PATH:+set}}\"");
    let out = fx.ok("bash", json!({"command": cmd})).await;
    assert_eq!(out, "[]\npath=set", "the secret reached bash");
    fx.ctx.bash_env = vec![NAME.to_owned(), "AGENTWIRE_TEST_UNSET_NAME".to_owned()];
    let out = fx.ok("bash", json!({"command": cmd})).await;
    assert_eq!(out, "[sk-test-not-for-bash]\npath=set");
    std::env::remove_var(NAME);
}
