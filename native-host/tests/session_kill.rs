//! `kill -9` at a random moment of a run, 50 times, then `--continue`: the conversation is
//! intact up to the last complete entry, nothing is duplicated, and the next request is well
//! formed. Real child processes of the `agentwire` binary (mock model, built-in calculator)
//! over one session file.

mod common;

use agentwire::model::ChatMessage;
use agentwire::transcript::{parse_jsonl, pending_calls, Entry};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const KILLS: usize = 50;

fn agentwire(state: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(common::agentwire_bin());
    command
        .args(args)
        .current_dir(dir)
        .env("AGENTWIRE_STATE_DIR", state)
        .env("AGENTWIRE_MODEL", "mock")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

fn session_file(state: &Path) -> std::path::PathBuf {
    let dir = std::fs::read_dir(state.join("sessions"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        files.len(),
        1,
        "one session, continued every time: {files:?}"
    );
    files.pop().unwrap()
}

/// Every call answered right after its step, exactly once.
fn assert_well_formed(history: &[ChatMessage]) {
    let mut i = 0;
    while i < history.len() {
        if let ChatMessage::Assistant { tool_calls, .. } = &history[i] {
            for (k, call) in tool_calls.iter().enumerate() {
                match history.get(i + 1 + k) {
                    Some(ChatMessage::Tool { tool_call_id, .. }) => {
                        assert_eq!(tool_call_id, &call.id)
                    }
                    other => panic!("call {} unanswered: {other:?}", call.id),
                }
            }
            i += tool_calls.len();
        }
        i += 1;
    }
}

#[test]
fn kill_9_fifty_times_then_continue() {
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // The first run makes the session; its duration spreads the kills over a whole run.
    let started = std::time::Instant::now();
    let status = agentwire(state.path(), work.path(), &["run", "calculate 1+1"])
        .status()
        .unwrap();
    assert!(status.success());
    let run_micros = started.elapsed().as_micros() as u64;
    let path = session_file(state.path());
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut complete_runs = 1;
    let (mut torn, mut dangling) = (0, 0);
    for round in 0..KILLS {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_micros((seed >> 33) % (run_micros + run_micros / 5));
        let prompt = format!("round {round}: calculate {round}+1");
        let mut child = agentwire(state.path(), work.path(), &["run", "--continue", &prompt])
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let status = child.wait().unwrap();
        if status.success() {
            complete_runs += 1;
        }
        // After every kill the file loads (a torn last line at most), with unique call ids
        // (the reader refuses a duplicate) and each user request once.
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_jsonl(&text).unwrap_or_else(|e| panic!("round {round}: {e}\n{text}"));
        assert!(parsed.warnings.len() <= 1);
        torn += parsed.warnings.len();
        if !pending_calls(&parsed.transcript.history()).is_empty() {
            dangling += 1;
        }
        let users: Vec<&str> = parsed
            .transcript
            .entries()
            .iter()
            .filter_map(|e| match e {
                Entry::User { content } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        let mut unique = users.clone();
        unique.dedup();
        assert_eq!(users, unique, "round {round}: a request was written twice");
    }
    // The conversation continues: the next request is well formed and answered.
    let out = agentwire(
        state.path(),
        work.path(),
        &["run", "--continue", "calculate 6*7"],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let parsed = parse_jsonl(&text).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(parsed.complete_bytes, text.len());
    let history = parsed.transcript.history();
    assert!(pending_calls(&history).is_empty());
    assert_well_formed(&history);
    let Some(ChatMessage::Assistant {
        content: Some(last),
        ..
    }) = history.last()
    else {
        panic!("{:?}", history.last())
    };
    assert!(last.contains("42"), "{last}");
    let users = history
        .iter()
        .filter(|m| matches!(m, ChatMessage::User { .. }))
        .count();
    assert!(
        users > complete_runs,
        "{users} requests, {complete_runs} complete runs"
    );
    eprintln!(
        "{KILLS} kills: {complete_runs} runs finished before their kill, {torn} torn last \
         lines, {dangling} calls left open, {users} requests kept"
    );
}
