//! agentwire is not dumpable: another process of the same user (a `bash` call, an MCP server)
//! can read neither its environment (`/proc/<pid>/environ`, where the model's key is) nor its
//! memory. Tested as a user that is not root (root may read any process): when the tests run as
//! root, agentwire and the reader both run as `nobody` (uid 65534); otherwise both run as the
//! current user.

#![cfg(target_os = "linux")]

mod common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The uid and gid the processes of the test run as: `nobody` under root, else unchanged.
fn test_user() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { nix::libc::geteuid() } == 0;
    root.then_some((65_534, 65_534))
}

/// `command`, run as `user` when given (std drops the supplementary groups of root too).
fn as_user(command: &mut Command, user: Option<(u32, u32)>) -> &mut Command {
    if let Some((uid, gid)) = user {
        command.uid(uid).gid(gid);
    }
    command
}

/// The pids whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let after = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if ppid == Some(parent) {
            children.push(pid);
        }
    }
    children
}

/// Reads `/proc/<pid>/environ` as `user`, in a process of its own: the output, or the error.
fn read_environ_as(user: Option<(u32, u32)>, pid: u32) -> Result<String, String> {
    let out = as_user(
        Command::new("cat").arg(format!("/proc/{pid}/environ")),
        user,
    )
    .output()
    .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).replace('\0', "\n"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_same_user_cannot_read_agentwires_environment() {
    let user = test_user();
    match user {
        Some((uid, _)) => eprintln!("running as root: agentwire and the reader run as uid {uid}"),
        None => eprintln!("not root: agentwire and the reader run as this user"),
    }
    let dir = tempfile::tempdir().unwrap();
    // Readable by the test user, who is its own HOME there.
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let config = dir.path().join("servers.json");
    // A server that never answers keeps agentwire waiting (30 s) with its child running.
    std::fs::write(
        &config,
        r#"{"mcpServers": {"quiet": {"command": "sleep", "args": ["60"]}}}"#,
    )
    .unwrap();
    let canary = "sk-canary-4b1d0e5a7f";
    // A copy the test user can run wherever the build is (a checkout under /root is not).
    let bin = dir.path().join("agentwire");
    std::fs::copy(common::agentwire_bin(), &bin).unwrap();
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut command = Command::new(&bin);
    command
        .args(["--config", config.to_str().unwrap(), "mcp", "list"])
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("OPENAI_API_KEY", canary)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let agentwire = match as_user(&mut command, user).spawn() {
        Ok(child) => Killed(child),
        Err(e) if user.is_some() => {
            // Root that may not change its uid (a restricted container): no second user.
            eprintln!("SKIPPED: cannot start agentwire as uid 65534 here: {e}");
            return;
        }
        Err(e) => panic!("cannot start agentwire: {e}"),
    };
    let pid = agentwire.0.id();
    // The server started: agentwire is well past its first instruction.
    let started = Instant::now();
    let server = loop {
        if let Some(&child) = children_of(pid).first() {
            break child;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "agentwire never started its server"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // The reader works: a process of the same user that is dumpable (the server) is readable.
    let server_environ = read_environ_as(user, server);
    assert!(
        server_environ
            .as_ref()
            .is_ok_and(|text| text.contains("PATH=")),
        "the reader cannot read a same-user process, so the test proves nothing: \
         {server_environ:?}"
    );
    let environ = read_environ_as(user, pid);
    match environ {
        Ok(text) => panic!(
            "a process of the same user read agentwire's environment{}",
            if text.contains(canary) {
                ", model key included"
            } else {
                ""
            }
        ),
        Err(error) => assert!(error.contains("Permission denied"), "{error}"),
    }
    // Nor its memory: opening `mem` needs the same permission (reading offset 0 of a readable
    // one fails with an I/O error instead, nothing is mapped there).
    let open_mem = |pid: u32| {
        let out = as_user(
            Command::new("head").args(["-c", "1", &format!("/proc/{pid}/mem")]),
            user,
        )
        .output()
        .unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(!open_mem(server).contains("Permission denied"));
    let error = open_mem(pid);
    assert!(error.contains("Permission denied"), "{error}");
    assert!(Path::new(&format!("/proc/{pid}")).exists(), "still running");
}
