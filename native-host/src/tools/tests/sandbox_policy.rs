//! The sandbox policy: the rules each mode builds, checked on real folders.

use crate::os::sandbox::Mode;
use crate::tools::sandbox_policy::{default_deny, plan, SandboxSettings, WORKSPACE_PROTECTED};
use crate::tools::Workspace;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

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
