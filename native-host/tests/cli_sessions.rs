//! Sessions through the real binary: announced, continued, paused and resumed, listed,
//! refused when corrupt, never holding a secret.

mod common;

use common::agentwire_bin;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

struct Env {
    state: tempfile::TempDir,
    work: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            state: tempfile::tempdir().unwrap(),
            work: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(agentwire_bin())
            .args(args)
            .current_dir(self.work.path())
            .env("AGENTWIRE_STATE_DIR", self.state.path())
            .env("AGENTWIRE_MODEL", "mock")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn files(&self) -> Vec<std::path::PathBuf> {
        let Ok(dirs) = std::fs::read_dir(self.state.path().join("sessions")) else {
            return Vec::new();
        };
        dirs.flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
            .map(|f| f.unwrap().path())
            .collect()
    }
}

fn events(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_run_announces_its_session_and_continue_picks_it_up() {
    let env = Env::new();
    let out = env.run(&["run", "--json", "calculate 2+3"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = events(&out);
    assert_eq!(first[0]["type"], "session");
    assert_eq!(first[0]["resumed"], false);
    let id = first[0]["id"].as_str().unwrap().to_owned();
    let out = env.run(&["run", "--json", "--continue", "calculate 4*5"], &[]);
    let second = events(&out);
    assert_eq!(second[0]["id"], id.as_str());
    assert_eq!(second[0]["resumed"], true);
    let out = env.run(&["run", "--json", "--resume", &id, "calculate 1+1"], &[]);
    assert_eq!(events(&out)[0]["id"], id.as_str());
    // One file, holding all three requests.
    assert_eq!(env.files().len(), 1);
    let out = env.run(&["sessions", "show", &id, "--json"], &[]);
    let users = events(&out).iter().filter(|e| e["type"] == "user").count();
    assert_eq!(users, 3);
    let out = env.run(&["sessions", "list", "--json"], &[]);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["title"], "calculate 2+3");
    // A new run without --continue starts a new session.
    env.run(&["run", "hi"], &[]);
    assert_eq!(env.files().len(), 2);
    let out = env.run(&["sessions", "rm", &id], &[]);
    assert!(out.status.success());
    assert_eq!(env.files().len(), 1);
}

#[test]
fn a_run_nobody_can_approve_pauses_and_continues_elsewhere() {
    let env = Env::new();
    let out = env.run(
        &["--ask", "calculator", "run", "--json", "calculate 6*7"],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let paused = events(&out);
    let last = paused.last().unwrap();
    assert_eq!(last["type"], "paused");
    let call = last["pending"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(last["pending"][0]["awaiting_approval"], true);
    assert!(
        !paused.iter().any(|e| e["type"] == "tool_end"),
        "nothing ran"
    );
    // Another process approves it: it runs once, and the run finishes.
    let out = env.run(
        &[
            "--ask",
            "calculator",
            "run",
            "--json",
            "--continue",
            "--approve",
            &call,
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let resumed = events(&out);
    let ends: Vec<&Value> = resumed.iter().filter(|e| e["type"] == "tool_end").collect();
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0]["ok"], true);
    assert_eq!(resumed.last().unwrap()["type"], "done");
    assert!(resumed.last().unwrap()["answer"]
        .as_str()
        .unwrap()
        .contains("42"));
    // Nothing is paused any more.
    let out = env.run(&["run", "--continue", "--approve", &call], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no paused run"), "{}", stderr(&out));

    // A rejection reaches the model as declined.
    let out = env.run(
        &["--ask", "calculator", "run", "--json", "calculate 1+2"],
        &[],
    );
    let call = events(&out).last().unwrap()["pending"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = env.run(&["run", "--json", "--continue", "--reject", &call], &[]);
    let resumed = events(&out);
    let end = resumed.iter().find(|e| e["type"] == "tool_end").unwrap();
    assert_eq!(end["ok"], false);
    assert!(end["output"]
        .as_str()
        .unwrap()
        .starts_with("denied: the user declined"));
    // --approve needs a session to continue.
    let out = env.run(&["run", "--approve", "x"], &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_corrupt_session_is_refused_naming_the_file_and_line() {
    let env = Env::new();
    env.run(&["run", "calculate 2+3"], &[]);
    let file = env.files().pop().unwrap();
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"type\":\"tool_result\",\"call_id\":\"nope\",\"name\":\"x\",\"content\":\"\",\"is_error\":false}\n");
    std::fs::write(&file, &text).unwrap();
    let lines = text.lines().count();
    let out = env.run(&["run", "--continue", "hello"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}:{lines}:", file.display())) && err.contains("not loaded"),
        "{err}"
    );
    // Left as it was.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn no_persistence_keeps_nothing_and_secrets_never_reach_a_transcript() {
    let env = Env::new();
    let out = env.run(&["run", "--json", "--no-session-persistence", "hi"], &[]);
    assert!(out.status.success());
    assert_ne!(events(&out)[0]["type"], "session");
    assert!(env.files().is_empty());

    let secret = "s3cr3t-value-of-the-deploy-token";
    let out = env.run(
        &[
            "run",
            &format!("remember {secret} and sk-proj-abcdefghijklmnopqrstuvwxyz012345"),
        ],
        &[("DEPLOY_TOKEN", secret)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let file = env.files().pop().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(secret), "{text}");
    assert!(!text.contains("abcdefghijklmnopqrstuvwxyz012345"), "{text}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let dir_mode = std::fs::metadata(file.parent().unwrap())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(dir_mode, 0o700);
    let _ = Path::new("");
}
