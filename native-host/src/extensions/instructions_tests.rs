//! Instructions from real folders on disk: the order and bytes, and hostile files.

use super::*;
use std::os::unix::fs::symlink;

/// A home folder and a git project inside a temporary folder.
struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let root = base.join("repo");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        Fixture {
            _dir: dir,
            home,
            root,
        }
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn lookup(&self, cwd: &Path, trusted: bool) -> Lookup {
        Lookup {
            cwd: cwd.to_path_buf(),
            home: Some(self.home.clone()),
            config_home: Some(self.home.join(".config")),
            trust_flag: trusted,
            budget_bytes: DEFAULT_BUDGET_BYTES,
        }
    }

    fn load(&self, cwd: &Path, trusted: bool) -> Instructions {
        SessionInstructions::load(self.lookup(cwd, trusted)).found
    }
}

/// Runs `f` on a thread and fails (instead of hanging the suite) if it blocks.
fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || send.send(f()));
    receive
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the read blocked")
}

#[test]
fn a_nested_tree_with_imports_resolves_to_the_same_bytes_in_order_every_time() {
    let f = Fixture::new();
    f.write(&f.home.join(".claude/CLAUDE.md"), "USER-CLAUDE");
    f.write(
        &f.home.join(".config/agentwire/AGENTWIRE.md"),
        "USER-AGENTWIRE",
    );
    f.write(&f.root.join("CLAUDE.md"), "ROOT @docs/style.md");
    f.write(&f.root.join("docs/style.md"), "STYLE @../shared/names.md");
    f.write(&f.root.join("shared/names.md"), "NAMES");
    f.write(&f.root.join("pkg/AGENTS.md"), "PKG");
    f.write(&f.root.join("pkg/CLAUDE.local.md"), "PKG-LOCAL");
    f.write(&f.root.join("pkg/sub/.claude/CLAUDE.md"), "SUB");
    f.write(&f.root.join(".claude/rules/testing.md"), "RULE");
    let cwd = f.root.join("pkg/sub");
    let first = f.load(&cwd, false);
    let order = [
        "USER-CLAUDE",
        "USER-AGENTWIRE",
        "ROOT",
        "STYLE",
        "NAMES",
        "PKG",
        "PKG-LOCAL",
        "SUB",
        "RULE",
    ];
    let mut at = 0;
    for text in order {
        at += first.text[at..]
            .find(text)
            .unwrap_or_else(|| panic!("{text}: {}", first.text));
    }
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let shown: Vec<&str> = first.files.iter().map(|f| f.shown.as_str()).collect();
    assert_eq!(
        shown,
        [
            "~/.claude/CLAUDE.md",
            "~/.config/agentwire/AGENTWIRE.md",
            "CLAUDE.md",
            "docs/style.md",
            "shared/names.md",
            "pkg/AGENTS.md",
            "pkg/CLAUDE.local.md",
            "pkg/sub/.claude/CLAUDE.md",
            ".claude/rules/testing.md"
        ]
    );
    for _ in 0..3 {
        assert_eq!(f.load(&cwd, false).text.as_bytes(), first.text.as_bytes());
    }
    // The text names no temporary folder: the same tree elsewhere gives the same bytes.
    assert!(!first.text.contains(&f.root.display().to_string()));
}

#[test]
fn a_symlink_to_the_process_environment_is_refused_wherever_it_appears() {
    let f = Fixture::new();
    symlink("/proc/self/environ", f.root.join("CLAUDE.md")).unwrap();
    symlink("/proc/self/environ", f.home.join(".claude/CLAUDE.md")).unwrap();
    f.write(
        &f.root.join("CLAUDE.local.md"),
        "@env.md @/proc/self/environ",
    );
    symlink("/proc/self/environ", f.root.join("env.md")).unwrap();
    for trusted in [false, true] {
        let found = f.load(&f.root, trusted);
        assert!(!found.text.contains("PATH="), "{}", found.text);
        assert_eq!(found.files.len(), 1, "{:?}", found.files);
        let refusals = found
            .warnings
            .iter()
            .filter(|w| w.contains("refused") || w.contains("not read"))
            .count();
        assert_eq!(refusals, 4, "{:?}", found.warnings);
        assert!(
            found
                .warnings
                .iter()
                .any(|w| w.contains("CLAUDE.md leads outside the project")),
            "{:?}",
            found.warnings
        );
    }
}

#[test]
fn a_fifo_and_a_huge_file_are_refused_without_blocking_and_the_rest_loads() {
    let f = Fixture::new();
    nix::unistd::mkfifo(
        &f.root.join("AGENTS.md"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    f.write(
        &f.root.join("CLAUDE.local.md"),
        &"x".repeat(2 * 1024 * 1024),
    );
    f.write(&f.root.join(".claude/rules/ok.md"), "STILL LOADED");
    let lookup = f.lookup(&f.root, false);
    let found = within_seconds(move || SessionInstructions::load(lookup).found);
    assert!(found.text.contains("STILL LOADED"));
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("AGENTS.md") && w.contains("a FIFO")),
        "{:?}",
        found.warnings
    );
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("CLAUDE.local.md") && w.contains("larger than")),
        "{:?}",
        found.warnings
    );
    // Under the file limit but over the budget: loaded, then cut with a note.
    f.write(&f.root.join("CLAUDE.local.md"), &"y".repeat(100 * 1024));
    let found = f.load(&f.root, false);
    assert!(found.text.len() <= DEFAULT_BUDGET_BYTES);
    assert!(found.text.contains("[Instructions truncated:"));
}

#[test]
fn an_import_cycle_on_disk_is_cut_and_each_file_loads_once() {
    let f = Fixture::new();
    f.write(&f.root.join("AGENTS.md"), "A @a.md");
    f.write(&f.root.join("a.md"), "B @b.md");
    f.write(&f.root.join("b.md"), "C @a.md @AGENTS.md");
    let found = f.load(&f.root, false);
    assert_eq!(found.files.len(), 3);
    assert_eq!(found.warnings.len(), 2, "{:?}", found.warnings);
    assert!(found.warnings.iter().all(|w| w.contains("cycle")));
}

#[test]
fn the_users_keys_are_never_read_from_an_untrusted_workspace_nor_a_trusted_one() {
    let f = Fixture::new();
    f.write(
        &f.home.join(".ssh/id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    );
    f.write(&f.home.join("notes.md"), "HOME NOTES");
    let relative = "../home/.ssh/id_rsa";
    f.write(
        &f.root.join("AGENTS.md"),
        &format!("@~/.ssh/id_rsa @{relative} @~/notes.md @link.md"),
    );
    symlink(f.home.join(".ssh/id_rsa"), f.root.join("link.md")).unwrap();
    let found = f.load(&f.root, false);
    assert!(!found.text.contains("PRIVATE KEY") && !found.text.contains("HOME NOTES"));
    let untrusted = found
        .warnings
        .iter()
        .filter(|w| w.contains("which is not trusted"))
        .count();
    assert_eq!(untrusted, 3, "{:?}", found.warnings);
    assert!(found
        .warnings
        .iter()
        .any(|w| w.contains("link.md leads outside the project")));
    // Trusted: the notes may be imported; the keys never.
    let found = f.load(&f.root, true);
    assert!(found.text.contains("HOME NOTES"), "{:?}", found);
    assert!(!found.text.contains("PRIVATE KEY"));
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("never read as instructions")),
        "{:?}",
        found.warnings
    );
    // A user file importing its own keys is refused too.
    f.write(&f.home.join(".claude/CLAUDE.md"), "@~/.ssh/id_rsa");
    let found = f.load(&f.root, false);
    assert!(!found.text.contains("PRIVATE KEY"));
}

#[test]
fn rules_under_linked_folders_are_not_followed_out_of_the_project() {
    let f = Fixture::new();
    let outside = f.home.join("elsewhere");
    f.write(&outside.join("evil.md"), "EVIL");
    std::fs::create_dir_all(f.root.join(".claude/rules")).unwrap();
    symlink(&outside, f.root.join(".claude/rules/linked")).unwrap();
    symlink(
        outside.join("evil.md"),
        f.root.join(".claude/rules/file.md"),
    )
    .unwrap();
    f.write(
        &f.root.join(".claude/rules/deep/a/b.md"),
        "---\npaths: src/*.rs\n---\nRUST",
    );
    let found = f.load(&f.root, false);
    assert!(!found.text.contains("EVIL"));
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("file.md leads outside the project")),
        "{:?}",
        found.warnings
    );
    assert_eq!(found.path_rules.rules()[0].globs, ["src/*.rs"]);
}

#[test]
fn rules_are_listed_eight_folders_deep_and_no_deeper() {
    let f = Fixture::new();
    let rules = f.root.join(".claude/rules");
    let eight: PathBuf = (1..=8).map(|i| i.to_string()).collect();
    f.write(&rules.join(&eight).join("in.md"), "EIGHT DEEP");
    f.write(&rules.join(&eight).join("9/out.md"), "NINE DEEP");
    let found = f.load(&f.root, false);
    assert!(found.text.contains("EIGHT DEEP"), "{}", found.text);
    assert!(!found.text.contains("NINE DEEP"), "{}", found.text);
}

#[test]
fn a_name_that_cannot_exist_is_an_error_not_a_missing_file() {
    let f = Fixture::new();
    let long = "x".repeat(300);
    f.write(&f.root.join("AGENTS.md"), &format!("@{long}.md @absent.md"));
    let found = f.load(&f.root, false);
    assert_eq!(found.warnings.len(), 2, "{:?}", found.warnings);
    assert!(
        found.warnings[0].contains("cannot be resolved"),
        "{:?}",
        found.warnings
    );
    assert!(
        found.warnings[1].contains("@absent.md not found"),
        "{:?}",
        found.warnings
    );
}
