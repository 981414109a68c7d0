//! Skill, command and plugin files are confined like the file tools' files: a symlink out of
//! the project (or out of a user's skill folder, or a plugin's root) is refused and its target
//! never read, a FIFO is refused without blocking, and what is dropped at a bound is named.

mod common;

use common::{run_cli, CliOutput};
use std::os::unix::fs::symlink;
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
}

/// What a secret outside the project looks like when it is read as a skill: its first
/// paragraph would become the description, its body the activation.
const SECRET: &str =
    "---\nname: leak\ndescription: SECRET-DESCRIPTION-4242\n---\n# leak\n\nSECRET-BODY-4242\n";

/// A home, a project (a git root) and a folder outside both holding secrets.
struct Setup {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let setup = Setup {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(setup.project.path().join(".git")).unwrap();
        write(&setup.outside.path().join("secret.md"), SECRET);
        write(&setup.outside.path().join("skill/SKILL.md"), SECRET);
        write(&setup.outside.path().join("cmds/leak.md"), SECRET);
        setup
    }

    fn secret(&self) -> std::path::PathBuf {
        self.outside.path().join("secret.md")
    }

    fn run(&self, args: &[&str]) -> CliOutput {
        let home = self.home.path().to_str().unwrap();
        run_cli(self.project.path(), args, &[("HOME", home)])
    }
}

fn assert_no_secret(out: &CliOutput) {
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !text.contains("SECRET-DESCRIPTION") && !text.contains("SECRET-BODY"),
            "text from outside the project was shown: {out:?}"
        );
    }
}

#[test]
fn project_skills_and_commands_linked_outside_the_project_are_refused_unread() {
    let setup = Setup::new();
    let project = setup.project.path();
    // Each way out: the SKILL.md, the skill folder, a command file, a commands subfolder, the
    // whole commands folder of a nested project directory.
    write(
        &project.join(".claude/skills/fine/SKILL.md"),
        "---\ndescription: stays\n---\nbody\n",
    );
    std::fs::create_dir_all(project.join(".claude/skills/leak")).unwrap();
    symlink(setup.secret(), project.join(".claude/skills/leak/SKILL.md")).unwrap();
    symlink(
        setup.outside.path().join("skill"),
        project.join(".claude/skills/leakdir"),
    )
    .unwrap();
    symlink(
        setup.outside.path().join("skill"),
        project.join(".claude/skills/fine/linked"),
    )
    .unwrap();
    std::fs::create_dir_all(project.join(".claude/commands")).unwrap();
    symlink(setup.secret(), project.join(".claude/commands/leak.md")).unwrap();
    symlink(
        setup.outside.path().join("cmds"),
        project.join(".claude/commands/sub"),
    )
    .unwrap();
    std::fs::create_dir_all(project.join("pkg/.claude")).unwrap();
    symlink(
        setup.outside.path().join("cmds"),
        project.join("pkg/.claude/commands"),
    )
    .unwrap();
    let list = run_cli(
        &project.join("pkg"),
        &["--json", "skills", "list"],
        &[("HOME", setup.home.path().to_str().unwrap())],
    );
    assert_eq!(list.code, 0, "{list:?}");
    assert_no_secret(&list);
    let names: Vec<String> = list.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["qualified"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["fine"], "{list:?}");
    let errors = list.json()["errors"].to_string();
    for culprit in [
        "skills/leak/SKILL.md",
        "skills/leakdir",
        "commands/leak.md",
        "commands/sub",
        "pkg/.claude/commands",
    ] {
        assert!(
            errors.contains(culprit) && errors.contains("outside the project"),
            "{culprit} not named: {errors}"
        );
    }
    // Neither activation nor the skill tool's description carries it.
    for prompt in ["use the leak skill", "use the leakdir skill", "/leak"] {
        let run = setup.run(&["--json", "run", prompt]);
        assert_no_secret(&run);
    }
    let show = setup.run(&["skills", "show", "leak"]);
    assert_no_secret(&show);
    assert_ne!(show.code, 0, "{show:?}");
}

#[test]
fn a_user_skill_file_linked_out_of_its_folder_is_refused_but_a_linked_folder_loads() {
    let setup = Setup::new();
    let home = setup.home.path();
    std::fs::create_dir_all(home.join(".claude/skills/leak")).unwrap();
    symlink(setup.secret(), home.join(".claude/skills/leak/SKILL.md")).unwrap();
    // A folder the user linked in (dotfiles) is the user's choice and loads.
    write(
        &setup.outside.path().join("dotfiles/mine/SKILL.md"),
        "---\ndescription: my own\n---\nmine\n",
    );
    symlink(
        setup.outside.path().join("dotfiles/mine"),
        home.join(".claude/skills/mine"),
    )
    .unwrap();
    let list = setup.run(&["--json", "skills", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert_no_secret(&list);
    let json = list.json();
    let names: Vec<&str> = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["qualified"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mine"], "{list:?}");
    let errors = json["errors"].to_string();
    assert!(
        errors.contains("leak/SKILL.md") && errors.contains("outside the skill folder"),
        "{errors}"
    );
}

#[test]
fn fifos_among_extension_files_are_refused_without_blocking() {
    let setup = Setup::new();
    let project = setup.project.path();
    mkfifo(&project.join(".claude/skills/pipe/SKILL.md"));
    mkfifo(&project.join(".claude/commands/pipe.md"));
    // A plugin whose `.mcp.json` and declared hooks file are FIFOs: reading either blocked
    // the whole process before.
    let plugin = setup.home.path().join("plug");
    write(
        &plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "plug", "hooks": "./hooks/hooks.json"}"#,
    );
    mkfifo(&plugin.join(".mcp.json"));
    mkfifo(&plugin.join("hooks/hooks.json"));
    let dir = plugin.to_str().unwrap();
    let list = setup.run(&["--plugin-dir", dir, "--json", "skills", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    let errors = list.json()["errors"].to_string();
    assert!(
        errors.contains("pipe/SKILL.md") && errors.contains("FIFO"),
        "{errors}"
    );
    assert!(
        errors.contains("commands/pipe.md") && errors.contains("FIFO"),
        "{errors}"
    );
    let plugins = setup.run(&["--plugin-dir", dir, "--json", "plugins", "list"]);
    assert_eq!(plugins.code, 0, "{plugins:?}");
    let warnings = plugins.json()["plugins"][0]["warnings"].to_string();
    assert!(
        warnings.contains(".mcp.json") && warnings.contains("FIFO"),
        "{plugins:?}"
    );
}

#[test]
fn skills_past_the_folder_bound_are_the_last_by_name_and_are_reported() {
    let setup = Setup::new();
    let skills = setup.project.path().join(".claude/skills");
    // Created in reverse so directory order is unlikely to be name order.
    for n in (0..2_003).rev() {
        write(
            &skills.join(format!("s{n:05}/SKILL.md")),
            &format!("---\ndescription: skill {n}\n---\nbody\n"),
        );
    }
    let list = setup.run(&["--json", "skills", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    let json = list.json();
    let names: Vec<&str> = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["qualified"].as_str().unwrap())
        .collect();
    // The first 2,000 by name, whatever the directory order: s00000 … s01999.
    let expected: Vec<String> = (0..2_000).map(|n| format!("s{n:05}")).collect();
    assert!(
        names == expected,
        "{} loaded, not s00000…s01999",
        names.len()
    );
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains(".claude/skills") && warnings.contains("3 not loaded"),
        "{warnings}"
    );
    let human = setup.run(&["skills", "list"]);
    assert!(human.stdout.contains("3 not loaded"), "{human:?}");
}

#[test]
fn a_user_plugin_servers_own_read_only_claim_does_not_run_it_unasked() {
    let setup = Setup::new();
    let calls = setup.home.path().join("calls.txt");
    let root = setup.home.path().join(".claude/skills/helper");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "helper"}"#,
    );
    let servers = serde_json::json!({"srv": {
        "command": "node",
        "args": [common::fixture("hostile.mjs"), "--calls", calls.to_str().unwrap()],
    }});
    write(&root.join(".mcp.json"), &servers.to_string());
    // `tidy` says nothing in its name; only its own annotation claims it is read-only.
    // No session to pause in: the question nobody can answer is a no.
    let out = setup.run(&[
        "--no-session-persistence",
        "run",
        "call mcp__plugin_helper_srv__tidy {}",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!calls.exists(), "a plugin tool ran unasked: {out:?}");
    // The user's own rule runs it: the check above can see a call.
    let allowed = setup.run(&[
        "--allow",
        "mcp__plugin_helper_srv__tidy",
        "run",
        "call mcp__plugin_helper_srv__tidy {}",
    ]);
    assert_eq!(allowed.code, 0, "{allowed:?}");
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap_or_default(),
        "tidy\n"
    );
}
