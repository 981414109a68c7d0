//! The sandbox policy: the rules each mode builds, checked on real folders; and what the
//! kernel makes of each part of a plan (`os::sandbox::landlock_rules`), applied to a real bash.

use crate::os::reaper;
use crate::os::sandbox::{Mode, Plan, Prepared};
use crate::tools::sandbox_policy::{default_deny, plan, SandboxSettings, WORKSPACE_PROTECTED};
use crate::tools::Workspace;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tempfile::TempDir;
use tokio::process::Command;

fn settings(mode: Mode, deny: &[&Path]) -> SandboxSettings {
    SandboxSettings {
        mode,
        network: false,
        deny_read: deny.iter().map(|p| p.to_path_buf()).collect(),
        grants: Vec::new(),
        allow: Vec::new(),
    }
}

#[test]
fn reads_are_split_around_a_denied_path_and_never_granted_through_a_symlink() {
    let home = TempDir::new().unwrap();
    let home = home.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join("code")).unwrap();
    std::fs::write(home.join("notes.txt"), "n").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), home.join("link")).unwrap();
    let ws = Workspace::new(home.join("code")).unwrap();
    let p = plan(
        &settings(Mode::ReadOnly, &[&home.join(".ssh")]),
        &ws,
        Path::new("/tmp"),
    );
    assert!(p.read.contains(&home.join("code")), "{:?}", p.read);
    assert!(p.read.contains(&home.join("notes.txt")));
    assert!(!p.read.iter().any(|r| r.starts_with(home.join(".ssh"))));
    assert!(!p.read.contains(&home.join("link")), "a symlink got a rule");
    assert!(!p.read.contains(&PathBuf::from("/")));
    // Every ancestor may be listed, and only those.
    for dir in home.ancestors() {
        assert!(
            p.list_only.contains(&dir.to_path_buf()),
            "{dir:?} {:?}",
            p.list_only
        );
    }
    assert!(!p.list_only.contains(&home.join(".ssh")));
    assert!(!p.list_only.contains(&home.join("code")));
    // Folders off the path are granted whole, not walked.
    assert!(p.read.contains(&PathBuf::from("/usr")));
    assert!(!p.list_only.contains(&PathBuf::from("/usr")));
}

#[test]
fn a_denied_file_is_left_out_and_its_siblings_kept() {
    let dir = TempDir::new().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    std::fs::write(dir.join("mcp.json"), "{}").unwrap();
    std::fs::write(dir.join("other"), "").unwrap();
    let ws = Workspace::new(&dir).unwrap();
    let p = plan(
        &settings(Mode::ReadOnly, &[&dir.join("mcp.json")]),
        &ws,
        Path::new("/tmp"),
    );
    assert!(!p.read.contains(&dir.join("mcp.json")));
    assert!(p.read.contains(&dir.join("other")));
    assert!(p.list_only.contains(&dir));
}

#[test]
fn with_nothing_denied_everything_is_readable_from_the_root() {
    let ws = TempDir::new().unwrap();
    let ws = Workspace::new(ws.path()).unwrap();
    let missing = PathBuf::from("/nonexistent-agentwire-test/secret");
    let p = plan(
        &settings(Mode::ReadOnly, &[&missing]),
        &ws,
        Path::new("/tmp"),
    );
    assert_eq!(p.read, [PathBuf::from("/")]);
    assert!(p.list_only.is_empty());
}

#[test]
fn each_mode_writes_only_what_it_says() {
    let dir = TempDir::new().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let tmp = Path::new("/tmp/private");
    let ro = plan(&settings(Mode::ReadOnly, &[]), &ws, tmp);
    assert_eq!(ro.write, [tmp.to_path_buf()]);
    assert!(ro.read_only_mounts.is_empty() && ro.pinned.is_empty());
    assert!(ro.write_files.contains(&PathBuf::from("/dev/null")));
    assert!(!ro.network);
    let rw = plan(&settings(Mode::WorkspaceWrite, &[]), &ws, tmp);
    assert_eq!(rw.write, [tmp.to_path_buf(), ws.root().to_path_buf()]);
    let protected: Vec<PathBuf> = WORKSPACE_PROTECTED
        .iter()
        .map(|p| ws.root().join(p))
        .collect();
    assert_eq!(rw.read_only_mounts, protected);
    for name in [
        ".git/hooks",
        ".git/config",
        ".mcp.json",
        ".claude",
        ".agentwire",
    ] {
        assert!(
            rw.read_only_mounts.contains(&ws.root().join(name)),
            "{name}"
        );
    }
    assert_eq!(rw.pinned, [ws.root().join(".git")]);
    let mut net = settings(Mode::WorkspaceWrite, &[]);
    net.network = true;
    assert!(plan(&net, &ws, tmp).network);
}

#[test]
fn the_default_deny_list_covers_the_users_keys_and_the_state_directory() {
    let lookup = |name: &str| -> Option<OsString> {
        match name {
            "HOME" => Some("/home/u".into()),
            "AGENTWIRE_STATE_DIR" => Some("/state".into()),
            _ => None,
        }
    };
    let deny = default_deny(&lookup);
    for p in [
        "/home/u/.ssh",
        "/home/u/.aws",
        "/home/u/.gnupg",
        "/home/u/.config/gcloud",
    ] {
        assert!(deny.contains(&PathBuf::from(p)), "{p}: {deny:?}");
    }
    let state = crate::os::private_file::state_dir_from(&lookup).unwrap();
    assert!(deny.contains(&state), "{deny:?}");
    assert!(default_deny(&|_| None).is_empty());
    assert!(default_deny(&|n| (n == "HOME").then(|| "".into())).is_empty());
}

#[test]
fn modes_parse_and_order_by_strictness() {
    for mode in [Mode::ReadOnly, Mode::WorkspaceWrite, Mode::Off] {
        assert_eq!(Mode::parse(mode.as_str()), Ok(mode));
    }
    assert!(Mode::parse("full").unwrap_err().contains("\"full\""));
    assert!(Mode::ReadOnly.at_least_as_strict_as(Mode::WorkspaceWrite));
    assert!(Mode::WorkspaceWrite.at_least_as_strict_as(Mode::WorkspaceWrite));
    assert!(!Mode::Off.at_least_as_strict_as(Mode::WorkspaceWrite));
    assert!(!Mode::WorkspaceWrite.at_least_as_strict_as(Mode::ReadOnly));
}

#[test]
fn only_a_plugins_own_existing_data_folder_is_granted_and_only_to_its_snippets() {
    let state = TempDir::new().unwrap();
    let plugins = state.path().join("plugins");
    std::fs::create_dir_all(plugins.join("kit")).unwrap();
    std::fs::create_dir_all(plugins.join("a-b2")).unwrap();
    std::os::unix::fs::symlink(state.path(), plugins.join("linked")).unwrap();
    let lookup = |name: &str| match name {
        "AGENTWIRE_STATE_DIR" => Some(state.path().as_os_str().to_owned()),
        _ => None,
    };
    let grant = |source: &str| crate::tools::sandbox_policy::plugin_data_grant(source, &lookup);
    assert_eq!(grant("plugin:kit"), Some(plugins.join("kit")));
    assert_eq!(grant("plugin:a-b2"), Some(plugins.join("a-b2")));
    for source in [
        "project",
        "user",
        "kit",
        "plugin:",
        "plugin:missing",
        "plugin:linked",
        "plugin:../plugins/kit",
        "plugin:Kit",
        "plugin:-kit",
        "plugin:k/it",
        "plugin:k_it",
    ] {
        assert_eq!(grant(source), None, "{source}");
    }
    let none = |_: &str| None;
    assert_eq!(
        crate::tools::sandbox_policy::plugin_data_grant("plugin:kit", &none),
        None
    );
    // A grant adds the folder to what the plan reads and writes.
    let ws = Workspace::new(state.path()).unwrap();
    let mut s = settings(Mode::ReadOnly, &[state.path()]);
    s.grants = vec![plugins.join("kit")];
    let p = plan(&s, &ws, Path::new("/tmp/t"));
    assert!(p.read.contains(&plugins.join("kit")));
    assert!(p.write.contains(&plugins.join("kit")));
}

#[test]
fn the_allow_list_becomes_each_port_once_and_the_network_flag_is_kept() {
    let dir = TempDir::new().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let mut s = settings(Mode::WorkspaceWrite, &[]);
    s.allow = ["b:443", "a:80", "c:443"]
        .iter()
        .map(|e| crate::os::sandbox::HostPort::parse(e).unwrap())
        .collect();
    let p = plan(&s, &ws, Path::new("/tmp/t"));
    assert_eq!(p.tcp_ports, [80, 443]);
    assert!(!p.network);
    s.network = true;
    assert!(plan(&s, &ws, Path::new("/tmp/t")).network);
}

/// Runs `script` in `bash` confined by `plan` (its Landlock rules, and the seccomp filter
/// and dropped capabilities that come with them); returns its stdout. Started tracked, as
/// every child of this process must be: the `bash` tool's tests running beside these sweep
/// (kill and reap) untracked children as orphans.
async fn confined(plan: &Plan, script: &str) -> String {
    assert!(
        crate::os::sandbox::Capabilities::probe().landlock_abi >= 6,
        "these tests need Landlock ABI 6 or later"
    );
    let mut prepared = Prepared::new(plan).expect("the rules");
    let mut bash = Command::new("/bin/bash");
    bash.arg("-c").arg(script).stdout(Stdio::piped());
    // SAFETY: apply_in_child only makes system calls on what Prepared::new made.
    unsafe {
        bash.pre_exec(move || prepared.apply_in_child());
    }
    let (child, _tracked) = reaper::spawn_tracked(&mut bash).expect("bash starts");
    let out = child.wait_with_output().await.expect("bash runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A read-only plan with `outside/secret` denied (so `outside` is split, its files get
/// rules of their own), plus `extra`'s changes.
fn base(outside: &Path, ws: &Path, extra: impl FnOnce(&mut Plan)) -> Plan {
    let settings = SandboxSettings {
        mode: Mode::ReadOnly,
        network: false,
        deny_read: vec![outside.join("secret")],
        grants: Vec::new(),
        allow: Vec::new(),
    };
    let workspace = Workspace::new(ws).unwrap();
    let mut plan = plan(&settings, &workspace, &outside.join("tmp"));
    extra(&mut plan);
    plan
}

/// `name=0` or `name=1` (failed) per check.
fn checks(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(name, cmd)| format!("{{ {cmd}; }} 2>/dev/null; echo {name}=$?; "))
        .collect()
}

#[tokio::test]
async fn reads_lists_writes_and_single_files_are_what_the_plan_grants() {
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let ws = ws.path().canonicalize().unwrap();
    std::fs::create_dir_all(outside.join("secret")).unwrap();
    std::fs::create_dir_all(outside.join("tmp")).unwrap();
    std::fs::write(outside.join("secret/k"), "KEY").unwrap();
    std::fs::write(outside.join("public.txt"), "PUBLIC").unwrap();
    std::fs::write(outside.join("log.txt"), "old").unwrap();
    let plan = base(&outside, &ws, |p| {
        p.write.push(ws.clone());
        p.write_files.push(outside.join("log.txt"));
    });
    let (o, w) = (outside.display(), ws.display());
    let script = checks(&[
        ("read_file", &format!("grep -q PUBLIC {o}/public.txt")),
        ("read_denied", &format!("cat {o}/secret/k")),
        ("list_split", &format!("ls {o} > /dev/null")),
        // Listing is inherited down from the split folder: names, never contents.
        ("list_denied", &format!("ls {o}/secret > /dev/null")),
        ("run", "/bin/true"),
        ("write_ws", &format!("mkdir {w}/d && echo x > {w}/d/f")),
        ("write_tmp", &format!("echo x > {o}/tmp/f")),
        ("write_out", &format!("echo x > {o}/new")),
        ("write_file", &format!("echo new > {o}/log.txt")),
        // A file read through its own rule (beside the denied folder) is not writable by it.
        ("write_read_file", &format!("echo x >> {o}/public.txt")),
        ("make_beside_file", &format!("echo x > {o}/log2.txt")),
        ("dev_null", "echo x > /dev/null"),
    ]);
    let out = confined(&plan, &script).await;
    let want = "read_file=0 read_denied=1 list_split=0 list_denied=0 run=0 write_ws=0 \
                write_tmp=0 write_out=1 write_file=0 write_read_file=1 make_beside_file=1 \
                dev_null=0";
    let got: Vec<&str> = out.lines().filter(|l| l.contains('=')).collect();
    assert_eq!(got.join(" "), want, "{out}");
    assert!(!out.contains("KEY"), "{out}");
    assert_eq!(
        std::fs::read_to_string(outside.join("log.txt")).unwrap(),
        "new\n"
    );
    assert!(!outside.join("new").exists());
    assert_eq!(
        std::fs::read_to_string(outside.join("public.txt")).unwrap(),
        "PUBLIC"
    );
}

#[tokio::test]
async fn tcp_is_refused_with_the_network_off_but_for_the_allowed_ports() {
    let outside = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let allowed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (a, b) = (
        allowed.local_addr().unwrap().port(),
        other.local_addr().unwrap().port(),
    );
    let script = checks(&[
        ("allowed", &format!("exec 3<>/dev/tcp/127.0.0.1/{a}")),
        ("other", &format!("exec 4<>/dev/tcp/127.0.0.1/{b}")),
    ]);
    let cases = [
        (false, vec![a], "allowed=0 other=1"),
        (false, Vec::new(), "allowed=1 other=1"),
        // With the network on nothing is checked, whatever the list says.
        (true, Vec::new(), "allowed=0 other=0"),
        (true, vec![a], "allowed=0 other=0"),
    ];
    for (network, ports, want) in cases {
        let plan = base(outside.path(), ws.path(), |p| {
            p.network = network;
            p.tcp_ports = ports.clone();
        });
        let out = confined(&plan, &script).await;
        let got = out.lines().collect::<Vec<_>>().join(" ");
        assert_eq!(got, want, "network {network}, ports {ports:?}");
    }
}

#[tokio::test]
async fn signals_reach_only_processes_inside_the_sandbox() {
    let outside = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let (mut sleeper, _tracked) = reaper::spawn_tracked(Command::new("sleep").arg("30")).unwrap();
    let plan = base(outside.path(), ws.path(), |_| {});
    let script = checks(&[
        ("outside", &format!("kill -0 {}", sleeper.id().unwrap())),
        ("inside", "sleep 5 & kill $!"),
    ]);
    let out = confined(&plan, &script).await;
    let _ = sleeper.kill().await;
    assert_eq!(
        out.lines().collect::<Vec<_>>().join(" "),
        "outside=1 inside=0"
    );
}

#[test]
fn off_confines_nothing_and_is_what_a_default_tool_context_runs_under() {
    let off = SandboxSettings::off();
    assert_eq!(off.mode, Mode::Off);
    assert!(off.network, "off keeps today's network");
    assert!(off.deny_read.is_empty() && off.allow.is_empty() && off.grants.is_empty());
    assert_eq!(crate::tools::ToolContext::default().sandbox, off);
}
