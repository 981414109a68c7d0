//! Hooks through the CLI: a project's hooks never start a process in an untrusted workspace
//! (a marker file proves it), are said once at start and listed by `agentwire hooks list`;
//! trusted, they run; `--settings FILE` is the user's own.

mod common;

use common::run_cli;
use serde_json::json;
use std::path::Path;

/// A project whose `.claude/settings.json` touches `marker` at SessionStart and on every tool
/// call, with a HOME of its own (the real one's settings stay out of the test).
fn project() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let touch = |name: &str| json!({"type": "command", "command": format!("touch \"$CLAUDE_PROJECT_DIR/{name}\"")});
    let settings = json!({"hooks": {
        "SessionStart": [{"hooks": [touch("marker-start")]}],
        "UserPromptSubmit": [{"hooks": [touch("marker-prompt")]}],
        "PreToolUse": [{"matcher": "*", "hooks": [touch("marker-tool")]}]
    }});
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    (dir, home)
}

fn markers(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("marker"))
        .collect();
    found.sort();
    found
}

#[test]
fn an_untrusted_workspace_never_starts_a_hook_and_says_so_once() {
    let (dir, home) = project();
    let home_env = home.path().display().to_string();
    let out = run_cli(dir.path(), &["run", "hello"], &[("HOME", &home_env)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        markers(dir.path()).is_empty(),
        "a hook ran: {:?}",
        markers(dir.path())
    );
    let said = out.stderr.matches("hook(s) of the project").count();
    assert_eq!(said, 1, "{out:?}");
    assert!(
        out.stderr.contains("3 hook(s)") && out.stderr.contains("not trusted"),
        "{out:?}"
    );
    let list = run_cli(
        dir.path(),
        &["hooks", "list", "--json"],
        &[("HOME", &home_env)],
    );
    let listed = list.json();
    let hooks = listed["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 3, "{listed}");
    assert!(hooks
        .iter()
        .all(|h| h["runs"] == false && h["why"].as_str().unwrap().contains("not trusted")));
    assert!(markers(dir.path()).is_empty());
    let human = run_cli(dir.path(), &["hooks", "list"], &[("HOME", &home_env)]);
    assert!(human.stdout.contains("SessionStart: touch"), "{human:?}");
    assert!(human.stdout.contains("does not run"), "{human:?}");
}

#[test]
fn a_trusted_workspace_runs_its_hooks() {
    let (dir, home) = project();
    let home_env = home.path().display().to_string();
    let out = run_cli(
        dir.path(),
        &["--trust-workspace", "run", "hello"],
        &[("HOME", &home_env)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        markers(dir.path()),
        ["marker-prompt", "marker-start"],
        "{out:?}"
    );
    assert!(!out.stderr.contains("hook(s) of the project"), "{out:?}");
    let list = run_cli(
        dir.path(),
        &["--trust-workspace", "hooks", "list", "--json"],
        &[("HOME", &home_env)],
    );
    assert!(list.json()["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["runs"] == true));
}

#[test]
fn settings_files_are_the_users_own_and_user_settings_run_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    let user = json!({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/marker-user\""}]}]}});
    std::fs::write(home.path().join(".claude/settings.json"), user.to_string()).unwrap();
    let extra = dir.path().join("extra.json");
    let blocking = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo 'prompts are paused' >&2; exit 2"}]}]}});
    std::fs::write(&extra, blocking.to_string()).unwrap();
    let home_env = home.path().display().to_string();
    let audit = dir.path().join("audit.jsonl");
    let args = [
        "--settings",
        extra.to_str().unwrap(),
        "--audit",
        audit.to_str().unwrap(),
        "run",
        "hello",
    ];
    let out = run_cli(dir.path(), &args, &[("HOME", &home_env)]);
    assert_eq!(out.code, 1, "the blocked prompt fails the run: {out:?}");
    assert!(
        out.stdout.contains("the prompt was not sent") && out.stdout.contains("prompts are paused"),
        "{out:?}"
    );
    assert_eq!(markers(dir.path()), ["marker-user"]);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "hook")
        .collect();
    let events: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["SessionStart", "UserPromptSubmit"], "{lines:?}");
    assert_eq!(lines[1]["decision"], "block");
    assert_eq!(lines[1]["exit"], 2);
}

#[test]
fn a_continued_session_starts_with_source_resume() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    let record =
        "cat >> \"$CLAUDE_PROJECT_DIR/starts.jsonl\"; echo >> \"$CLAUDE_PROJECT_DIR/starts.jsonl\"";
    let user =
        json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": record}]}]}});
    std::fs::write(home.path().join(".claude/settings.json"), user.to_string()).unwrap();
    let home_env = home.path().display().to_string();
    let state_env = state.path().display().to_string();
    let env = [
        ("HOME", home_env.as_str()),
        ("AGENTWIRE_STATE_DIR", state_env.as_str()),
    ];
    let first = run_cli(dir.path(), &["run", "hello"], &env);
    assert_eq!(first.code, 0, "{first:?}");
    let again = run_cli(dir.path(), &["run", "--continue", "hello again"], &env);
    assert_eq!(again.code, 0, "{again:?}");
    let resumed = run_cli(
        dir.path(),
        &["run", "--resume", "no-such-session", "x"],
        &env,
    );
    assert_ne!(
        resumed.code, 0,
        "an unknown session is refused before any hook"
    );
    let sources: Vec<String> = std::fs::read_to_string(dir.path().join("starts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| v["source"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(sources, ["startup", "resume"]);
}

/// The interactive session on a pseudo-terminal (util-linux `script`), each of `lines` typed
/// once the prompt shows; everything the terminal showed.
fn repl(dir: &Path, env: &[(&str, &str)], lines: &[&str]) -> String {
    use std::io::{Read, Write};
    let bin = common::agentwire_bin().display().to_string();
    let mut child = std::process::Command::new("script")
        .args(["-qec", &format!("'{bin}'"), "/dev/null"])
        .current_dir(dir)
        .env("TERM", "xterm")
        .env_remove("AGENTWIRE_MODEL")
        .env_remove("ANTHROPIC_API_KEY")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run `script` (util-linux) for a pseudo-terminal");
    let shown = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = shown.clone();
    let reader = std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buffer) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
    });
    let mut keys = child.stdin.take().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    for (n, line) in lines.iter().enumerate() {
        while shown.lock().unwrap().matches("you ›").count() <= n {
            assert!(
                std::time::Instant::now() < deadline,
                "no prompt; the terminal showed:\n{}",
                shown.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        keys.write_all(format!("{line}\n").as_bytes()).unwrap();
        keys.flush().unwrap();
    }
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let shown = shown.lock().unwrap().clone();
    assert!(status.success(), "{status:?}: {shown}");
    shown
}

#[test]
fn the_repl_resume_command_starts_the_session_again_with_source_resume() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    let record =
        "cat >> \"$CLAUDE_PROJECT_DIR/starts.jsonl\"; echo >> \"$CLAUDE_PROJECT_DIR/starts.jsonl\"";
    let user =
        json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": record}]}]}});
    std::fs::write(home.path().join(".claude/settings.json"), user.to_string()).unwrap();
    let home_env = home.path().display().to_string();
    let state_env = state.path().display().to_string();
    let env = [
        ("HOME", home_env.as_str()),
        ("AGENTWIRE_STATE_DIR", state_env.as_str()),
    ];
    let first = run_cli(dir.path(), &["run", "--json", "hello"], &env);
    assert_eq!(first.code, 0, "{first:?}");
    let session = first.ndjson()[0]["id"].as_str().unwrap().to_owned();
    // An unknown session is refused and fires nothing; the stored one is continued.
    let resume = format!("/resume {session}");
    let shown = repl(
        dir.path(),
        &env,
        &["/resume no-such-session", &resume, "/quit"],
    );
    assert!(shown.contains("cannot resume"), "{shown}");
    assert!(
        shown.contains(&format!("continuing session {session}")),
        "{shown}"
    );
    let sources: Vec<String> = std::fs::read_to_string(dir.path().join("starts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| v["source"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(sources, ["startup", "startup", "resume"]);
}

#[test]
fn a_stop_hook_that_blocks_once_continues_a_cli_run_on_the_mock_model() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // Exit 2 with an instruction the mock model acts on, then exit 0 once it is told the run
    // already continued.
    let script = "input=$(cat)\n\
        if printf '%s' \"$input\" | grep -q '\"stop_hook_active\": *true'; then exit 0; fi\n\
        echo 'now calculate 2+3*4' >&2\nexit 2\n";
    std::fs::write(dir.path().join("stop.sh"), script).unwrap();
    let settings = dir.path().join("stop.json");
    let hooks = json!({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/stop.sh\""}]}]}});
    std::fs::write(&settings, hooks.to_string()).unwrap();
    let home_env = home.path().display().to_string();
    let args = [
        "--json",
        "--settings",
        settings.to_str().unwrap(),
        "run",
        "hello",
    ];
    let out = run_cli(dir.path(), &args, &[("HOME", &home_env)]);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let dones: Vec<&serde_json::Value> = events.iter().filter(|e| e["type"] == "done").collect();
    assert_eq!(dones.len(), 1, "{}", out.stdout);
    // The continuation's request carried the hook's reason: the model acted on it.
    let tools: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_start")
        .map(|e| &e["name"])
        .collect();
    assert_eq!(tools, ["calculator"], "{}", out.stdout);
    assert!(
        dones[0]["answer"].as_str().unwrap().contains("14"),
        "{}",
        out.stdout
    );
    assert_eq!(events.last().unwrap()["type"], "done", "{}", out.stdout);
    let notices: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "hook_notice")
        .collect();
    assert!(
        notices.iter().any(|n| n["message"]
            .as_str()
            .unwrap()
            .contains("continued the run (1 of at most 8)")),
        "{}",
        out.stdout
    );
}
