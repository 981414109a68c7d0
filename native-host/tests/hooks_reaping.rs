//! What a hook leaves behind ends with it, and never holds the call: a background job in its
//! group, a `setsid` daemon holding its pipes, and both when the run is dropped (Ctrl-C).
//!
//! One test in a binary of its own, its cases in sequence: in a binary shared with other
//! tests, another test's orphan sweep would kill these processes too and hide a guard that
//! does not work.

#[path = "hooks/harness.rs"]
mod harness;

use agentwire::policy::Policy;
use harness::{alive, call, command, local, settings, World};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

fn pid_in(dir: &Path, file: &str) -> i32 {
    std::fs::read_to_string(dir.join(file))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn gone_soon(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive(pid)
}

/// Runs one call with `hook` on PostToolUse (30 s timeout); how long the run took, and notices.
fn run_with(hook: &str) -> (World, Duration, Vec<String>) {
    let world = World::new(
        Policy::new(),
        settings("PostToolUse", "", &[command(hook, Some(30.0))]),
        vec![call(1, "peek", json!({}))],
    );
    let observer = harness::Observer::default();
    let started = Instant::now();
    local(world.runtime.run("go", &observer)).unwrap();
    let took = started.elapsed();
    (world, took, observer.notices())
}

#[test]
fn what_a_hook_leaves_behind_is_killed_and_never_holds_the_call() {
    // A background job in the hook's group, holding its stdout: killed with the group when the
    // hook exits, so the call does not wait for the hook's timeout.
    let (world, took, notices) = run_with("sleep 300 & echo $! > bg.pid; exit 0");
    assert!(took < Duration::from_secs(10), "the call waited {took:?}");
    assert!(
        notices.iter().all(|n| !n.contains("timed out")),
        "{notices:?}"
    );
    let pid = pid_in(world.path(), "bg.pid");
    assert!(gone_soon(pid), "background job {pid} survived its hook");

    // A daemon in a session of its own, holding the pipes: found as an orphan at the hook's
    // exit, not at its timeout.
    let (world, took, notices) = run_with("(setsid sleep 300 & echo $! > daemon.pid); exit 0");
    assert!(took < Duration::from_secs(10), "the call waited {took:?}");
    assert!(
        notices.iter().all(|n| !n.contains("timed out")),
        "{notices:?}"
    );
    let pid = pid_in(world.path(), "daemon.pid");
    assert!(gone_soon(pid), "daemon {pid} survived its hook");

    // The run dropped while the hook runs (Ctrl-C): its whole tree goes.
    let hook = command("sleep 300 & echo $! > child.pid; wait", None);
    let world = World::new(
        Policy::from_lists(&["*"], &[] as &[&str], &[] as &[&str]).unwrap(),
        settings("PreToolUse", "", &[hook]),
        vec![call(1, "touch_marker", json!({"n": 1}))],
    );
    let observer = harness::Observer::default();
    let dir = world.path().to_path_buf();
    local(async {
        let run = world.runtime.run("go", &observer);
        let started = async {
            while !dir.join("child.pid").exists() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::select! {
            _ = run => panic!("the run ended while its hook waits"),
            () = started => {}
        }
    });
    let pid = pid_in(world.path(), "child.pid");
    assert!(gone_soon(pid), "{pid} outlived the dropped run");
    assert!(!world.ran(1));
}
