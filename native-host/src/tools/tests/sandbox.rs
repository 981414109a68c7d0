//! bash under the kernel sandbox: escapes refused by the kernel under each mode, real work
//! still working inside. Real processes, real files, a real loopback listener.

use super::{find_tool, Fixture, ToolContext};
use crate::os::sandbox::{Capabilities, Mode};
use crate::tools::sandbox_policy::SandboxSettings;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A fixture whose bash runs under `mode`, with `outside/secret` on the deny list.
fn sandboxed(mode: Mode, network: bool) -> Fixture {
    assert!(
        Capabilities::probe().landlock_abi >= 4,
        "these tests need Landlock ABI 4 or later: {}",
        Capabilities::probe().summary()
    );
    let mut fx = Fixture::new();
    let secret = fx.outside.path().join("secret");
    std::fs::create_dir(&secret).unwrap();
    std::fs::write(secret.join("id_key"), "SECRET-KEY-MATERIAL").unwrap();
    std::fs::write(fx.outside.path().join("public.txt"), "public").unwrap();
    fx.ctx.sandbox = SandboxSettings {
        mode,
        network,
        deny_read: vec![secret],
        grants: Vec::new(),
        allow: Vec::new(),
    };
    fx
}

/// Runs `command` (with `$OUT` the outside folder) and returns its text and whether it failed.
async fn sh(fx: &Fixture, command: &str) -> (String, bool) {
    let command = format!("OUT={}; {command}", fx.outside.path().display());
    let out = fx.call("bash", json!({ "command": command })).await;
    (out.to_model_text(), out.is_error)
}

/// [`sh`] with a long timeout, for real work (a venv, a build) on a loaded machine.
async fn sh_long(fx: &Fixture, command: &str) -> (String, bool) {
    let out = fx
        .call("bash", json!({ "command": command, "timeout_ms": 300_000 }))
        .await;
    (out.to_model_text(), out.is_error)
}

fn outside(fx: &Fixture, name: &str) -> PathBuf {
    fx.outside.path().join(name)
}

fn absent(path: &Path) -> bool {
    path.symlink_metadata().is_err()
}

/// Write attempts that must fail under both confining modes, each with the file it would make.
const WRITES_OUTSIDE: &[(&str, &str)] = &[
    ("echo x > $OUT/abs", "abs"),
    ("echo x > ../$(basename $OUT)/dotdot", "dotdot"),
    (
        "ln -s $OUT link && echo x > link/via-symlink",
        "via-symlink",
    ),
    (
        "echo x > /proc/self/root$OUT/via-proc-root",
        "via-proc-root",
    ),
    ("cp /etc/hostname $OUT/copied", "copied"),
    ("python3 -c \"open('$OUT/py', 'w').write('x')\"", "py"),
    ("mkdir $OUT/newdir", "newdir"),
];

async fn assert_no_write_outside(fx: &Fixture) {
    for (command, made) in WRITES_OUTSIDE {
        let (text, failed) = sh(fx, command).await;
        assert!(failed, "{command} should fail: {text}");
        assert!(
            absent(&outside(fx, made)),
            "{command} wrote outside: {text}"
        );
    }
    // A hard link to an outside file, then a write through it.
    std::fs::write(outside(fx, "target"), "original").unwrap();
    let (text, failed) = sh(fx, "ln $OUT/target hl && echo changed > hl").await;
    assert!(failed, "{text}");
    assert_eq!(
        std::fs::read_to_string(outside(fx, "target")).unwrap(),
        "original"
    );
    // A symlink planted before the call, pointing out.
    std::os::unix::fs::symlink(fx.outside.path(), fx.root().join("planted")).unwrap();
    let (text, failed) = sh(fx, "echo x > planted/through-planted").await;
    assert!(failed, "{text}");
    assert!(absent(&outside(fx, "through-planted")));
}

#[tokio::test]
async fn workspace_write_writes_inside_and_nowhere_else() {
    let fx = sandboxed(Mode::WorkspaceWrite, false);
    let (text, failed) = sh(
        &fx,
        "echo hi > inside.txt && mkdir -p a/b && echo t > $TMPDIR/t && cat inside.txt",
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(fx.read("inside.txt"), "hi\n");
    assert_no_write_outside(&fx).await;
}

#[tokio::test]
async fn read_only_writes_only_its_private_temporary_folder() {
    let fx = sandboxed(Mode::ReadOnly, false);
    let (text, failed) = sh(
        &fx,
        "echo t > $TMPDIR/t && cat $TMPDIR/t && cat $OUT/public.txt",
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(text, "t\npublic");
    let (text, failed) = sh(&fx, "echo hi > inside.txt").await;
    assert!(failed && text.contains("Permission denied"), "{text}");
    assert!(absent(&fx.root().join("inside.txt")));
    assert_no_write_outside(&fx).await;
}

#[tokio::test]
async fn the_deny_list_is_unreadable_by_any_program_and_its_siblings_stay_readable() {
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let fx = sandboxed(mode, false);
        for command in [
            "cat $OUT/secret/id_key",
            "cp $OUT/secret/id_key copy; cat copy",
            "python3 -c \"print(open('$OUT/secret/id_key').read())\"",
            "dd if=$OUT/secret/id_key status=none",
            "tar cf - -C $OUT secret | tar xOf -",
            "cat /proc/self/root$OUT/secret/id_key",
            "ln -s $OUT/secret s; cat s/id_key",
        ] {
            let (text, _) = sh(&fx, command).await;
            assert!(
                !text.contains("SECRET-KEY-MATERIAL"),
                "{mode:?} {command}: {text}"
            );
        }
        let (text, failed) = sh(&fx, "cat $OUT/public.txt").await;
        assert!(!failed && text == "public", "{text}");
    }
}

#[tokio::test]
async fn the_network_is_off_by_default_and_on_with_the_flag() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let fx = sandboxed(Mode::WorkspaceWrite, false);
    let unix_path = outside(&fx, "daemon.sock");
    let _unix = std::os::unix::net::UnixListener::bind(&unix_path).unwrap();
    let tcp = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let py_tcp = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port})); print('connected')\""
    );
    let py_udp = format!(
        "python3 -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', {udp_port})); print('connected')\""
    );
    let py_unix = format!(
        "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); print('connected')\"",
        unix_path.display()
    );
    let py_bind = "python3 -c \"import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print('connected')\"";
    for command in [&tcp, &py_tcp, &py_udp, &py_unix, &py_bind.to_string()] {
        let (text, failed) = sh(&fx, command).await;
        assert!(failed && !text.contains("connected"), "{command}: {text}");
    }
    udp.set_nonblocking(true).unwrap();
    assert!(udp.recv(&mut [0u8; 4]).is_err(), "a datagram got through");
    let fx = sandboxed(Mode::WorkspaceWrite, true);
    for command in [&tcp, &py_tcp, &py_udp] {
        let (text, failed) = sh(&fx, command).await;
        assert!(!failed && text.contains("connected"), "{command}: {text}");
    }
}

#[tokio::test]
async fn ptrace_namespaces_mounts_and_the_hosts_environment_are_refused() {
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let fx = sandboxed(mode, true);
        let host = std::process::id();
        for command in [
            "unshare -r true".to_string(),
            "unshare -m true".to_string(),
            "unshare -n true".to_string(),
            "mkdir -p $TMPDIR/m && mount -t tmpfs none $TMPDIR/m".to_string(),
            "chroot / true".to_string(),
            format!("strace -p {host} -o /dev/null"),
            format!("python3 -c \"import ctypes; l=ctypes.CDLL(None, use_errno=True); r=l.ptrace(16, {host}, 0, 0); exit(0 if r==0 else 1)\""),
            format!("kill -0 {host}"),
        ] {
            let (text, failed) = sh(&fx, &command).await;
            assert!(failed, "{mode:?} {command} should fail: {text}");
        }
    }
}

/// Makes a git repository in the fixture (outside the sandbox) with a hook and an `.mcp.json`.
async fn git_repo(fx: &Fixture) {
    // Through an unconfined bash: agentwire reaps any child as subreaper, so a
    // `std::process::Command` of the test itself could lose its exit status.
    let setup = "git init -q && git config user.email t@example.com && git config user.name T";
    let bash = find_tool(&fx.tools, "bash").unwrap();
    let out = bash
        .execute(json!({ "command": setup }), &ToolContext::default())
        .await;
    assert!(!out.is_error, "{}", out.to_model_text());
    fx.write(".mcp.json", "{}");
    fx.write(".claude/settings.json", "{}");
}

#[tokio::test]
async fn workspace_write_keeps_hooks_git_config_and_agent_settings_read_only() {
    let fx = sandboxed(Mode::WorkspaceWrite, false);
    git_repo(&fx).await;
    for command in [
        "echo 'touch pwned' > .git/hooks/pre-commit",
        "echo '{\"mcpServers\":{}}' > .mcp.json",
        "rm .mcp.json",
        "echo x > .claude/settings.json",
        "mkdir .claude/commands",
        "git config core.hooksPath hooks2",
        "mv .git .git2",
        "mv .claude .claude2",
        "rm -rf .git/hooks",
    ] {
        let (text, failed) = sh(&fx, command).await;
        assert!(failed, "{command} should fail: {text}");
    }
    assert!(absent(&fx.root().join(".git/hooks/pre-commit")));
    assert_eq!(fx.read(".mcp.json"), "{}");
    assert_eq!(fx.read(".claude/settings.json"), "{}");
    assert!(!fx.read(".git/config").contains("hooksPath"));
    assert!(absent(&fx.root().join(".git2")));
}

#[tokio::test]
async fn real_work_runs_under_workspace_write() {
    let fx = sandboxed(Mode::WorkspaceWrite, false);
    git_repo(&fx).await;
    let (text, failed) = sh(
        &fx,
        "echo hello > a.txt && git add a.txt && git commit -qm first && git log --format=%s",
    )
    .await;
    assert!(!failed && text == "first", "{text}");
    let (text, failed) = sh_long(
        &fx,
        "python3 -m venv .venv && .venv/bin/python -c 'import sys; print(sys.prefix != sys.base_prefix)'",
    )
    .await;
    assert!(!failed && text == "True", "{text}");
}

#[tokio::test]
async fn the_result_records_the_mode_the_call_ran_under() {
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite, Mode::Off] {
        let mut fx = sandboxed(mode, false);
        if mode == Mode::Off {
            fx.ctx.sandbox = SandboxSettings::off();
        }
        let out = fx.call("bash", json!({"command": "true"})).await;
        let meta = out.structured_content.unwrap();
        assert_eq!(meta["sandbox"], mode.as_str());
    }
}

#[tokio::test]
async fn off_is_todays_behaviour() {
    let mut fx = sandboxed(Mode::Off, false);
    fx.ctx.sandbox = SandboxSettings::off();
    let (text, failed) = sh(&fx, "echo x > $OUT/abs && cat $OUT/secret/id_key").await;
    assert!(!failed && text == "SECRET-KEY-MATERIAL", "{text}");
}

/// Starts `sleep` with `dir` as its working folder, outside the sandbox; killed on drop.
/// Tracked, so the sweep of orphans after each `bash` call leaves it alone.
struct OutsideProcess {
    child: tokio::process::Child,
    _tracked: crate::os::reaper::Tracked,
}

impl OutsideProcess {
    fn start(dir: &Path) -> OutsideProcess {
        let mut command = tokio::process::Command::new("sleep");
        command.arg("30").current_dir(dir).kill_on_drop(true);
        let (child, tracked) = crate::os::reaper::spawn_tracked(&mut command).unwrap();
        OutsideProcess {
            child,
            _tracked: tracked,
        }
    }

    fn id(&self) -> u32 {
        self.child.id().unwrap()
    }
}

#[tokio::test]
async fn another_process_s_working_folder_is_no_way_out() {
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let fx = sandboxed(mode, false);
        let outside_process = OutsideProcess::start(fx.outside.path());
        let pid = outside_process.id();
        let (text, failed) = sh(&fx, &format!("echo x > /proc/{pid}/cwd/via-cwd")).await;
        assert!(failed, "{mode:?}: {text}");
        let (text, failed) = sh(&fx, &format!("cat /proc/{pid}/cwd/secret/id_key")).await;
        assert!(failed && !text.contains("SECRET"), "{mode:?}: {text}");
        assert!(absent(&outside(&fx, "via-cwd")), "{mode:?}");
        // The process was there all along: unconfined, the same path leads out.
        let link = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap();
        assert_eq!(link, fx.outside.path().canonicalize().unwrap());
        // Nor is its environment readable (a server's token would be there).
        let (text, failed) = sh(&fx, &format!("cat /proc/{pid}/environ")).await;
        assert!(
            failed && text.contains("Permission denied"),
            "{mode:?}: {text}"
        );
    }
}

#[tokio::test]
async fn setsid_and_double_forks_stay_confined() {
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let fx = sandboxed(mode, false);
        for (command, made) in [
            (
                "setsid bash -c 'echo x > $OUT/setsid' ; sleep 0.2",
                "setsid",
            ),
            ("( bash -c 'echo x > $OUT/double' & ) ; sleep 0.2", "double"),
            (
                "nohup bash -c 'cat $OUT/secret/id_key > $OUT/nohup' >/dev/null 2>&1 & sleep 0.2",
                "nohup",
            ),
        ] {
            sh(&fx, command).await;
            assert!(absent(&outside(&fx, made)), "{mode:?} {command}");
        }
    }
}

#[tokio::test]
async fn an_ld_preload_library_reads_no_denied_file() {
    let fx = sandboxed(Mode::WorkspaceWrite, false);
    // Built outside the sandbox: a library whose constructor prints the denied key.
    let source = outside(&fx, "steal.c");
    let library = outside(&fx, "steal.so");
    let key = outside(&fx, "secret/id_key");
    std::fs::write(
        &source,
        format!(
            "#include <stdio.h>\n__attribute__((constructor)) static void steal(void) {{\n\
             FILE *f = fopen(\"{}\", \"r\"); char b[64] = {{0}};\n\
             if (f) {{ fread(b, 1, 63, f); printf(\"stolen: %s\\n\", b); }}\n\
             else perror(\"fopen\"); }}\n",
            key.display()
        ),
    )
    .unwrap();
    // Through an unconfined bash, as in `git_repo`.
    let build = format!(
        "cc -shared -fPIC -o {} {}",
        library.display(),
        source.display()
    );
    let bash = find_tool(&fx.tools, "bash").unwrap();
    let out = bash
        .execute(json!({ "command": build }), &ToolContext::default())
        .await;
    assert!(!out.is_error, "{}", out.to_model_text());
    // The library does steal the key where nothing confines it.
    let command = format!("LD_PRELOAD={} cat /dev/null", library.display());
    let out = bash
        .execute(json!({ "command": &command }), &ToolContext::default())
        .await;
    assert!(out.to_model_text().contains("stolen: SECRET-KEY-MATERIAL"));
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let mut fx2 = sandboxed(mode, false);
        fx2.ctx.sandbox.deny_read = fx.ctx.sandbox.deny_read.clone();
        let (text, _) = sh(&fx2, &command).await;
        assert!(!text.contains("SECRET-KEY-MATERIAL"), "{mode:?}: {text}");
        assert!(text.contains("Permission denied"), "{mode:?}: {text}");
    }
}

#[tokio::test]
async fn the_host_s_environment_and_memory_are_unreadable() {
    // As agentwire's main does: without it, a process of the same user that is not root may
    // read a dumpable host's environment.
    nix::sys::prctl::set_dumpable(false).unwrap();
    let host = std::process::id();
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let fx = sandboxed(mode, true);
        for command in [
            format!("cat /proc/{host}/environ"),
            format!("head -c 100 /proc/{host}/maps"),
            format!("dd if=/proc/{host}/mem bs=1 count=1 skip=4096 status=none"),
            format!("readlink /proc/{host}/exe"),
            format!("readlink /proc/{host}/fd/1"),
            format!("readlink /proc/{host}/cwd"),
            format!("python3 -c \"import os; os.open('/proc/{host}/mem', os.O_RDONLY)\""),
        ] {
            let (text, failed) = sh(&fx, &command).await;
            assert!(failed, "{mode:?} {command} should fail: {text}");
        }
        // Root's command has no capability left (it would get them all back at exec).
        let (text, failed) = sh(&fx, "grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status").await;
        assert!(!failed, "{text}");
        for line in text.lines() {
            assert!(line.ends_with("0000000000000000"), "{mode:?}: {text}");
        }
    }
}

#[tokio::test]
async fn cargo_builds_and_npm_installs_offline_under_workspace_write() {
    let fx = sandboxed(Mode::WorkspaceWrite, false);
    fx.write(
        "tiny/Cargo.toml",
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    fx.write(
        "tiny/src/main.rs",
        "fn main() { println!(\"built inside\"); }\n",
    );
    let (text, failed) = sh_long(
        &fx,
        "cd tiny && CARGO_TARGET_DIR=target cargo build --offline -q 2>&1 && ./target/debug/tiny",
    )
    .await;
    assert!(!failed && text.ends_with("built inside"), "{text}");
    // A package packed outside, its tarball put in a cache in the workspace (npm's own cache
    // in `~/.npm` is outside: not writable); installed offline inside.
    fx.write(
        "pkgsrc/package.json",
        r#"{"name": "left-local", "version": "1.0.0", "main": "index.js"}"#,
    );
    fx.write(
        "pkgsrc/index.js",
        "module.exports = () => 'from the cache';\n",
    );
    let setup = "cd pkgsrc && npm pack -q --pack-destination .. >/dev/null && cd .. && \
                 npm cache add ./left-local-1.0.0.tgz --cache ./npm-cache -q";
    let bash = find_tool(&fx.tools, "bash").unwrap();
    let out = bash
        .execute(json!({ "command": setup }), &ToolContext::default())
        .await;
    assert!(!out.is_error, "{}", out.to_model_text());
    fx.write("app/package.json", r#"{"name": "app", "version": "1.0.0"}"#);
    let (text, failed) = sh_long(
        &fx,
        "cd app && npm install --offline --cache ../npm-cache --no-audit --no-fund -q ../left-local-1.0.0.tgz \
         && node -e \"console.log(require('left-local')())\"",
    )
    .await;
    assert!(!failed && text.ends_with("from the cache"), "{text}");
}

#[tokio::test]
async fn the_allow_list_opens_its_tcp_ports_and_nothing_else() {
    let allowed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let allowed_port = allowed.local_addr().unwrap().port();
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite] {
        let mut fx = sandboxed(mode, false);
        fx.ctx.sandbox.allow =
            vec![
                crate::os::sandbox::HostPort::parse(&format!("localhost:{allowed_port}")).unwrap(),
            ];
        let unix_path = outside(&fx, "daemon.sock");
        let _unix = std::os::unix::net::UnixListener::bind(&unix_path).unwrap();
        let connect = |port: u16| format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
        let (text, failed) = sh(&fx, &connect(allowed_port)).await;
        assert!(!failed && text == "connected", "{mode:?}: {text}");
        for command in [
            connect(other_port),
            format!(
                "python3 -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
                 s.sendto(b'x', ('127.0.0.1', {udp_port})); print('connected')\""
            ),
            format!(
                "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); \
                 print('connected')\"",
                unix_path.display()
            ),
            "python3 -c \"import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); \
             print('connected')\""
                .to_string(),
            "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1); \
             print('connected')\""
                .to_string(),
            "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); \
             print('connected')\""
                .to_string(),
        ] {
            let (text, failed) = sh(&fx, &command).await;
            assert!(
                failed && !text.contains("connected"),
                "{mode:?} {command}: {text}"
            );
        }
    }
    udp.set_nonblocking(true).unwrap();
    assert!(udp.recv(&mut [0u8; 4]).is_err(), "a datagram got through");
}
