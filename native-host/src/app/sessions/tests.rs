//! Session files on a real file system: permissions, torn lines, hostile files, secrets.

use super::*;
use agentwire::audit::REDACTED;
use agentwire::model::ToolCall;
use agentwire::transcript::hide_secrets;
use std::os::unix::fs::PermissionsExt;

fn store(state: &Path) -> SessionStore {
    let root = state.join("ws");
    std::fs::create_dir_all(&root).unwrap();
    SessionStore::new(state, &root, vec!["hunter2-very-secret-value".into()])
}

fn user(text: &str) -> Entry {
    Entry::User {
        content: text.into(),
    }
}

#[test]
fn sessions_are_private_append_only_files() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store(tmp.path());
    let mut session = store.create().unwrap();
    session.append(&user("hello")).unwrap();
    session
        .append(&Entry::Assistant {
            content: Some("hi".into()),
            tool_calls: vec![],
            usage: None,
        })
        .unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&session.path), 0o600);
    assert_eq!(mode(store.dir()), 0o700);
    assert_eq!(mode(&tmp.path().join("sessions")), 0o700);
    let parsed = store.load(&session.id).unwrap();
    assert_eq!(parsed.transcript.entries().len(), 2);
    assert_eq!(
        store.latest().unwrap().as_deref(),
        Some(session.id.as_str())
    );
    let listed = store.list().unwrap();
    assert_eq!(listed.len(), 1);
    let info = info_json(&store, &listed[0]);
    assert_eq!(info["entries"], 2);
    assert_eq!(info["title"], "hello");
    store.remove(&session.id).unwrap();
    assert!(store.list().unwrap().is_empty());
    assert!(store
        .remove(&session.id)
        .unwrap_err()
        .contains("no session"));
}

#[test]
fn a_torn_last_line_is_skipped_and_cut_before_the_next_append() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store(tmp.path());
    let mut session = store.create().unwrap();
    session.append(&user("one")).unwrap();
    // A crash in the middle of a line, inside a multi-byte character.
    let mut bytes = std::fs::read(&session.path).unwrap();
    bytes.extend_from_slice(&"{\"type\":\"user\",\"content\":\"zwei ü".as_bytes()[..31]);
    std::fs::write(&session.path, &bytes).unwrap();
    let (mut resumed, parsed) = store.resume(&session.id).unwrap();
    assert_eq!(parsed.transcript.entries(), &[user("one")]);
    assert_eq!(parsed.warnings.len(), 1);
    assert!(parsed.warnings[0].contains(&session.path.display().to_string()));
    resumed.append(&user("two")).unwrap();
    let parsed = store.load(&session.id).unwrap();
    assert_eq!(parsed.transcript.entries(), &[user("one"), user("two")]);
    assert!(parsed.warnings.is_empty());
}

#[test]
fn corrupt_and_hostile_files_name_the_file_and_line_and_load_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store(tmp.path());
    let mut session = store.create().unwrap();
    session.append(&user("one")).unwrap();
    let path = session.path.clone();
    let good = std::fs::read_to_string(&path).unwrap();
    for (bad, line, says) in [
        (format!("{good}not json\n{{\"type\":\"user\",\"content\":\"x\"}}\n"), 3, "not JSON"),
        (format!("{good}{{\"type\":\"fork\"}}\n"), 3, "unknown entry type"),
        (
            good.replace("\"version\":1", "\"version\":2"),
            1,
            "newer agentwire",
        ),
        (
            format!("{good}{{\"type\":\"tool_result\",\"call_id\":\"x\",\"name\":\"t\",\"content\":\"\",\"is_error\":false}}\n"),
            3,
            "did not call",
        ),
    ] {
        std::fs::write(&path, &bad).unwrap();
        let e = store.load(&session.id).unwrap_err();
        assert!(
            e.starts_with(&format!("{}:{line}: ", path.display())),
            "{e}"
        );
        assert!(e.contains(says) && e.ends_with("the session was not loaded"), "{e}");
        assert!(store.resume(&session.id).is_err());
        // The file is left as it was.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), bad);
    }
}

#[test]
fn ids_never_leave_the_store_and_planted_links_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store(tmp.path());
    for id in ["../x", "a/b", "", ".hidden", "x y"] {
        assert!(
            store.load(id).unwrap_err().contains("is not a session id"),
            "{id}"
        );
        assert!(store.remove(id).is_err());
    }
    // A symlink where a session file is: reading refuses it.
    std::fs::create_dir_all(store.dir()).unwrap();
    let target = tmp.path().join("elsewhere.jsonl");
    std::fs::write(&target, Transcript::new("evil").to_jsonl()).unwrap();
    std::os::unix::fs::symlink(&target, store.dir().join("evil.jsonl")).unwrap();
    assert!(store.load("evil").is_err());
    assert!(store.list().unwrap().is_empty(), "links are not listed");
    // A FIFO does not block the reader.
    let fifo = store.dir().join("fifo.jsonl");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert!(store.load("fifo").is_err());
}

#[test]
fn secrets_never_reach_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store(tmp.path());
    let mut session = store.create().unwrap();
    session
        .append(&user("the password is hunter2-very-secret-value, ok"))
        .unwrap();
    session
        .append(&Entry::Assistant {
            content: None,
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "bash".into(),
                arguments: json!({"command": "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'"}),
            }],
            usage: None,
        })
        .unwrap();
    let text = std::fs::read_to_string(&session.path).unwrap();
    assert!(!text.contains("hunter2-very-secret-value"), "{text}");
    assert!(
        !text.contains("abcdefghijklmnopqrstuvwxyz0123456789"),
        "{text}"
    );
    assert!(text.contains(REDACTED));
    assert!(store.load(&session.id).is_ok());
    let secrets = environment_secrets(&["short".into(), "a-model-key-0123456789".into()]);
    assert!(secrets.contains(&"a-model-key-0123456789".to_string()));
    assert!(!secrets.contains(&"short".to_string()));
}

#[test]
fn secrets_with_json_escapes_are_hidden_too() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let secret = "pa\"ss\\word-9876".to_owned();
    let store = SessionStore::new(tmp.path(), &root, vec![secret.clone()]);
    let mut session = store.create().unwrap();
    session
        .append(&user(&format!("use {secret} here")))
        .unwrap();
    let text = std::fs::read_to_string(&session.path).unwrap();
    assert!(!text.contains("ss\\\\word-9876"), "{text}");
    assert!(text.contains(&format!("use {REDACTED} here")), "{text}");
    assert_eq!(hide_secrets("plain", &[]), "plain");
}

/// A line the file cannot take whole (here the file-size limit, as a full disk would) is an
/// error the caller sees, never a half line reported as written. The append runs in a child
/// process of this test binary with `ulimit -f` set, so no other test shares the limit.
#[test]
fn a_line_cut_short_by_the_file_size_limit_is_an_error() {
    const CHILD: &str = "AW_TEST_SHORT_WRITE_DIR";
    const NAME: &str = "app::sessions::tests::a_line_cut_short_by_the_file_size_limit_is_an_error";
    if let Some(dir) = std::env::var_os(CHILD) {
        let store = store(Path::new(&dir));
        let mut session = store.create().unwrap();
        let result = session.append(&user(&"x".repeat(4000)));
        println!("append said: {result:?}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // An ignored signal stays ignored across `exec`: SIGXFSZ would kill the child at the limit.
    let script = format!(
        "trap '' XFSZ; ulimit -f 2; exec \"$0\" --exact {NAME} --nocapture --test-threads 1"
    );
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .arg(std::env::current_exe().unwrap())
        .env(CHILD, tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.contains("append said: Err(\"cannot write "),
        "{stdout}"
    );
    assert!(stdout.contains("File too large"), "{stdout}");
}
