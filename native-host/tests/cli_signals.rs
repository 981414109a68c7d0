//! The CLI under Ctrl-C and SIGTERM (real process, real signals), and its process hygiene:
//! interrupted runs are audited and end with a terminal event, `bash` trees and servers that
//! ignore stdin EOF are stopped, a server's grandchild does not outlive it, `bash` gets a clean
//! environment, and the audit log is private.

mod common;

use common::{agentwire_bin, assert_process_gone, assert_process_not_running, fixture};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A temporary project whose `.mcp.json` has at most the one `stubborn.mjs` server.
struct Scene {
    dir: tempfile::TempDir,
}

impl Scene {
    fn new(server_args: Option<&[&str]>) -> Scene {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut servers = serde_json::Map::new();
        if let Some(args) = server_args {
            let pid_file = dir.path().join("stub.pid").display().to_string();
            let mut argv = vec![fixture("stubborn.mjs")];
            argv.extend(args.iter().map(|a| (*a).to_owned()));
            argv.extend(["--pid-file".to_owned(), pid_file]);
            servers.insert("stub".into(), json!({"command": "node", "args": argv}));
        }
        let config = json!({ "mcpServers": servers });
        std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
        Scene { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    fn pid(&self, name: &str) -> i32 {
        read_pid(&self.path(name))
    }

    /// Starts the CLI in the background with `args`; stdout lines arrive on the channel.
    fn spawn(&self, args: &[&str], env: &[(&str, &str)]) -> Running {
        let mut child = Command::new(agentwire_bin())
            // The project's own `.mcp.json`, named: the test trusts what it wrote.
            .args(["--config", ".mcp.json"])
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("AGENTWIRE_MODEL")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start agentwire");
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
            stderr: Some(stderr),
        }
    }

    fn audit(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.path("audit.jsonl")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).expect("audit lines are JSON"))
            .collect()
    }
}

/// Waits until the file exists (a marker written by the fixture).
fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn read_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .filter(|t| t.ends_with('\n'))
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Running {
    /// Waits for a stdout line containing `needle`.
    fn wait_for(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.seen.iter().any(|l| l.contains(needle)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no line with {needle:?} on stdout; saw {:?}", self.seen);
                }
            }
        }
    }

    fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.child.id() as i32), signal).expect("signal agentwire");
    }

    /// Waits for the exit (at most `within`): exit code, all stdout lines, stderr.
    fn finish(mut self, within: Duration) -> (i32, Vec<String>, String) {
        let deadline = Instant::now() + within;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                let stderr = self.stderr.take().unwrap().join().unwrap();
                panic!("agentwire did not exit within {within:?}; stderr: {stderr}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stderr = self.stderr.take().unwrap().join().unwrap();
        self.seen.extend(self.lines.iter());
        (status.code().unwrap_or(-1), self.seen, stderr)
    }
}

fn events(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
        .collect()
}

fn assert_ends_interrupted(lines: &[String], reason: &str) {
    let events = events(lines);
    let last = events.last().expect("some events");
    assert_eq!(last["type"], "error", "terminal event: {events:?}");
    assert_eq!(
        last["message"],
        format!("interrupted: {reason} stopped the run")
    );
}

#[test]
fn ctrl_c_interrupts_a_bash_run_kills_its_tree_and_audits_it() {
    let scene = Scene::new(None);
    let command = "setsid sleep 30 >/dev/null 2>&1 & echo $! > bg.pid; echo $$ > sh.pid; wait";
    let prompt = format!("call bash {}", json!({ "command": command }));
    let started = Instant::now();
    let mut cli = scene.spawn(
        &["run", &prompt, "--yes", "--json", "--audit", "audit.jsonl"],
        &[],
    );
    cli.wait_for("\"tool_start\"");
    let (bash, job) = (scene.pid("sh.pid"), scene.pid("bg.pid"));
    cli.signal(Signal::SIGINT);
    let (code, lines, stderr) = cli.finish(Duration::from_secs(10));
    assert_eq!(code, 130, "stderr: {stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_ends_interrupted(&lines, "Ctrl-C");
    assert_process_not_running(bash, "the bash command");
    assert_process_not_running(job, "its setsid job");
    let audit = scene.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["tool"], "bash");
    assert_eq!(audit[0]["outcome"], "interrupted");
}

#[test]
fn sigterm_cancels_an_mcp_call_and_stops_a_server_that_ignores_eof() {
    let scene = Scene::new(Some(&["--ignore-eof", "--cancel-log", "CANCELS"]));
    // The fixture resolves its log path relative to its working directory: the project.
    let mut cli = scene.spawn(
        &[
            "run",
            "call mcp__stub__wait {}",
            "--yes",
            "--json",
            "--audit",
            "audit.jsonl",
        ],
        &[],
    );
    cli.wait_for("\"tool_start\"");
    let server = scene.pid("stub.pid");
    let started = Instant::now();
    cli.signal(Signal::SIGTERM);
    let (code, lines, stderr) = cli.finish(Duration::from_secs(15));
    assert_eq!(code, 143, "stderr: {stderr}");
    // Close stdin, 2 s, SIGTERM: the server ignores EOF but not SIGTERM.
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert_ends_interrupted(&lines, "SIGTERM");
    assert_process_gone(server, "stub");
    let cancels = std::fs::read_to_string(scene.path("CANCELS")).unwrap_or_default();
    assert!(
        cancels.contains("\"notifications/cancelled\""),
        "the server was told: {cancels:?}"
    );
    let audit = scene.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["tool"], "mcp__stub__wait");
    assert_eq!(audit[0]["outcome"], "interrupted");
}

#[test]
fn a_second_ctrl_c_exits_without_waiting_for_a_polite_shutdown() {
    // The server ignores both EOF and SIGTERM: a polite shutdown would take 4 s.
    let scene = Scene::new(Some(&[
        "--ignore-eof",
        "--ignore-term",
        "--called-file",
        "called",
    ]));
    let cli = scene.spawn(
        &[
            "mcp",
            "call",
            "stub",
            "wait",
            "--json",
            "--audit",
            "audit.jsonl",
        ],
        &[],
    );
    let server = scene.pid("stub.pid");
    wait_for_file(&scene.path("called"));
    let started = Instant::now();
    cli.signal(Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    cli.signal(Signal::SIGINT);
    let (code, _, stderr) = cli.finish(Duration::from_secs(10));
    assert_eq!(code, 130, "stderr: {stderr}");
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
    assert_process_gone(server, "stub");
    let audit = scene.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["outcome"], "interrupted");
}

#[test]
fn a_grandchild_left_in_the_server_group_is_stopped_after_the_server_exits() {
    let scene = Scene::new(Some(&["--grandchild-pid-file", "grandchild.pid"]));
    let cli = scene.spawn(&["tools", "--json"], &[]);
    let (code, _, stderr) = cli.finish(Duration::from_secs(15));
    assert_eq!(code, 0, "stderr: {stderr}");
    let grandchild = scene.pid("grandchild.pid");
    assert_process_gone(scene.pid("stub.pid"), "stub");
    assert_process_not_running(grandchild, "the server's grandchild (ignores SIGTERM)");
}

#[test]
fn bash_does_not_see_api_keys_unless_passed_by_name() {
    let scene = Scene::new(None);
    let prompt = format!(
        "call bash {}",
        json!({"command": "echo \"key=[$OPENAI_API_KEY] token=[$GITHUB_TOKEN]\""})
    );
    let env = [
        ("OPENAI_API_KEY", "sk-fake-do-not-leak"),
        ("GITHUB_TOKEN", "ghp_fakefakefake"),
    ];
    let output_of = |args: &[&str], env: &[(&str, &str)]| {
        let mut all = vec!["run", &prompt, "--yes", "--json", "--model", "mock"];
        all.extend_from_slice(args);
        let (code, lines, stderr) = scene.spawn(&all, env).finish(Duration::from_secs(20));
        assert_eq!(code, 0, "stderr: {stderr}");
        events(&lines)
            .into_iter()
            .find(|e| e["type"] == "tool_end")
            .map(|e| e["output"].as_str().unwrap_or_default().to_owned())
            .expect("a tool_end event")
    };
    assert_eq!(output_of(&[], &env), "key=[] token=[]");
    assert_eq!(
        output_of(&["--bash-env", "OPENAI_API_KEY"], &env),
        "key=[sk-fake-do-not-leak] token=[]"
    );
    let mut with_list = env.to_vec();
    with_list.push(("AGENTWIRE_BASH_ENV", "OPENAI_API_KEY,GITHUB_TOKEN"));
    assert_eq!(
        output_of(&[], &with_list),
        "key=[sk-fake-do-not-leak] token=[ghp_fakefakefake]"
    );
}

#[test]
fn the_audit_log_is_created_private_and_an_existing_one_keeps_its_mode() {
    let scene = Scene::new(None);
    let (code, _, stderr) = scene
        .spawn(&["tools", "--json", "--audit", "new.jsonl"], &[])
        .finish(Duration::from_secs(20));
    assert_eq!(code, 0, "stderr: {stderr}");
    let mode = |name: &str| {
        std::fs::metadata(scene.path(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("new.jsonl"), 0o600);
    std::fs::write(scene.path("shared.jsonl"), "").unwrap();
    std::fs::set_permissions(scene.path("shared.jsonl"), PermissionsExt::from_mode(0o640)).unwrap();
    let shared = scene.arg("shared.jsonl");
    let (code, _, _) = scene
        .spawn(&["tools", "--json", "--audit", &shared], &[])
        .finish(Duration::from_secs(20));
    assert_eq!(code, 0);
    assert_eq!(
        mode("shared.jsonl"),
        0o640,
        "an existing file is not loosened nor changed"
    );
}

/// A user-scope command `/slow` in a fresh home whose snippet runs a shell that records its
/// pid in `snippet.pid` and its background job's in `job.pid`, then waits 30 s.
fn slow_command_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let commands = home.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("slow.md"),
        "---\ndescription: Slow\n---\nOut: !`sleep 30 & echo $! > job.pid; echo $$ > snippet.pid; wait`\n",
    )
    .unwrap();
    home
}

#[test]
fn ctrl_c_stops_a_command_snippet_audits_it_and_ends_the_run() {
    for (signal, code, reason) in [
        (Signal::SIGINT, 130, "Ctrl-C"),
        (Signal::SIGTERM, 143, "SIGTERM"),
    ] {
        let scene = Scene::new(None);
        let home = slow_command_home();
        let started = Instant::now();
        let cli = scene.spawn(
            &["--yes", "--json", "--audit", "audit.jsonl", "run", "/slow"],
            &[("HOME", home.path().to_str().unwrap())],
        );
        let (shell, job) = (scene.pid("snippet.pid"), scene.pid("job.pid"));
        cli.signal(signal);
        let (status, lines, stderr) = cli.finish(Duration::from_secs(10));
        assert_eq!(status, code, "stderr: {stderr}");
        assert!(started.elapsed() < Duration::from_secs(15));
        assert_ends_interrupted(&lines, reason);
        let errors = events(&lines)
            .iter()
            .filter(|e| e["type"] == "error" || e["type"] == "done")
            .count();
        assert_eq!(errors, 1, "one terminal event: {lines:?}");
        assert_process_not_running(shell, "the snippet's shell");
        assert_process_not_running(job, "its background job");
        let audit = scene.audit();
        assert_eq!(audit.len(), 1, "{audit:?}");
        assert_eq!(audit[0]["tool"], "bash");
        assert_eq!(audit[0]["outcome"], "interrupted", "{audit:?}");
        assert_eq!(audit[0]["origin"], "command:/slow");
    }
}
