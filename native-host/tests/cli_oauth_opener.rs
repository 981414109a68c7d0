//! `agentwire mcp login` and the browser it opens: a hostile authorization server's
//! `authorization_endpoint` (`file:`, `javascript:`, `smb:`, `vscode:`, `--manual`, plain http
//! to another host) never reaches the opener, and the refusal names the server; a login waiting
//! for the redirect stops on SIGINT (130) and SIGTERM (143). The "browser" is a stand-in
//! `xdg-open` first on PATH that records what it was given.
#![cfg(unix)]

mod common;

use common::agentwire_bin;
use common::oauth_server::OAuthServer;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::json;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A stand-in `xdg-open` in a fresh directory that appends its arguments to `opened.txt` there
/// and does nothing else (a user who never comes back). Returns the directory and a `PATH`.
fn recording_opener() -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("opened.txt");
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '{}'; done\n",
        log.display()
    );
    let opener = bin.path().join("xdg-open");
    std::fs::write(&opener, script).unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, path)
}

fn opened(bin: &Path) -> Option<String> {
    std::fs::read_to_string(bin.join("opened.txt")).ok()
}

fn project(server: &OAuthServer) -> common::Project {
    let mut project = common::Project::new();
    project.entry(
        "remote",
        json!({"type": "http", "url": server.url, "oauth": {"storeTokens": false}}),
    );
    project
}

#[test]
fn an_authorization_endpoint_that_is_not_https_is_never_opened() {
    for endpoint in [
        "file:///etc/passwd",
        "javascript:alert(document.cookie)",
        "smb://attacker.example/share",
        "vscode://vscode.git/clone?url=x",
        "--manual",
        "http://attacker.example/authorize",
    ] {
        let server = OAuthServer::start_with_env(&[("AUTHORIZATION_ENDPOINT", endpoint)]);
        let project = project(&server);
        let (bin, path) = recording_opener();
        let out = project.run_with_env(&["mcp", "login", "remote"], &[("PATH", path.as_str())]);
        assert_eq!(out.code, 1, "{endpoint}: {out:?}");
        assert!(
            out.stderr.contains("could not authorize remote")
                && out.stderr.contains("asks to open")
                && out.stderr.contains("refused"),
            "{endpoint}: {out:?}"
        );
        assert!(
            !out.stderr.contains("open this URL in a browser"),
            "{endpoint}: {out:?}"
        );
        assert_eq!(opened(bin.path()), None, "{endpoint} reached the opener");
    }
}

#[test]
fn the_opener_gets_an_https_or_loopback_url_and_nothing_else() {
    // The fixture's own endpoint is http on 127.0.0.1: opened, as one argument.
    let server = OAuthServer::start();
    let project = project(&server);
    let (bin, path) = recording_opener();
    let running = Login::start(&project, &path);
    let url = running.wait_opened(bin.path());
    let lines: Vec<&str> = url.lines().collect();
    assert_eq!(lines.len(), 1, "{url}");
    assert!(
        lines[0].starts_with(&server.url.replace("/mcp", "/authorize?")),
        "{url}"
    );
    let (code, stderr) = running.stop(Signal::SIGINT);
    assert_eq!(code, 130, "{stderr}");
}

#[test]
fn a_login_waiting_for_the_browser_stops_on_sigint_and_sigterm() {
    for (signal, status) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let server = OAuthServer::start();
        let project = project(&server);
        let (bin, path) = recording_opener();
        let running = Login::start(&project, &path);
        running.wait_opened(bin.path());
        let started = Instant::now();
        let (code, stderr) = running.stop(signal);
        assert_eq!(code, status, "{signal}: {stderr}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{signal}: took {:?}",
            started.elapsed()
        );
        assert!(stderr.contains("open this URL in a browser"), "{stderr}");
    }
}

/// `agentwire mcp login remote` running in the background.
struct Login {
    child: std::process::Child,
    stderr: std::thread::JoinHandle<String>,
    _state: tempfile::TempDir,
}

impl Login {
    fn start(project: &common::Project, path: &str) -> Login {
        project.write_config();
        let state = tempfile::tempdir().unwrap();
        let mut child = Command::new(agentwire_bin())
            .args(["--config", ".mcp.json", "mcp", "login", "remote"])
            .current_dir(project.path())
            .env("AGENTWIRE_STATE_DIR", state.path())
            .env("PATH", path)
            .env_remove("AGENTWIRE_MODEL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start agentwire");
        let mut pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        });
        Login {
            child,
            stderr,
            _state: state,
        }
    }

    /// Waits until the opener was called; what it was given.
    fn wait_opened(&self, bin: &Path) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(text) = opened(bin).filter(|t| t.ends_with('\n')) {
                return text;
            }
            assert!(Instant::now() < deadline, "the opener was never called");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` and waits (at most 10 s) for the exit: status and stderr.
    fn stop(mut self, signal: Signal) -> (i32, String) {
        kill(Pid::from_raw(self.child.id() as i32), signal).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("mcp login ignored {signal} for 10 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        (status.code().unwrap_or(-1), self.stderr.join().unwrap())
    }
}
