//! Skills, commands and plugins as a user meets them in the CLI: discovery from a temporary
//! `$HOME` and project, `--bare`, `--plugin-dir`, trust for a project's plugins, and errors that
//! name the file.

mod common;

use common::{run_cli, CliOutput};
use serde_json::Value;
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo the thing.\n")
}

/// A temporary home and project (a git root), each with its own skills and commands.
struct Setup {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let setup = Setup {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(setup.project.path().join(".git")).unwrap();
        setup
    }

    fn home(&self, relative: &str, text: &str) {
        write(&self.home.path().join(relative), text);
    }

    fn project(&self, relative: &str, text: &str) {
        write(&self.project.path().join(relative), text);
    }

    fn run(&self, args: &[&str]) -> CliOutput {
        let home = self.home.path().to_str().unwrap();
        run_cli(self.project.path(), args, &[("HOME", home)])
    }
}

fn listed(out: &CliOutput) -> Vec<(String, String, String)> {
    let json = out.json();
    json["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("no skills array: {out:?}"))
        .iter()
        .map(|s| {
            let text = |key: &str| s[key].as_str().unwrap_or_default().to_owned();
            (text("qualified"), text("kind"), text("source"))
        })
        .collect()
}

#[test]
fn skills_list_finds_user_and_project_skills_and_commands() {
    let setup = Setup::new();
    setup.home(".claude/skills/pdf/SKILL.md", &skill_md("pdf", "Read PDFs"));
    setup.home(".claude/commands/standup.md", "Write my standup.");
    setup.project(
        ".claude/skills/deploy/SKILL.md",
        &skill_md("deploy", "Ship it"),
    );
    setup.project(".claude/commands/frontend/component.md", "Make $0");
    let out = setup.run(&["--json", "skills", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let names = listed(&out);
    let owned = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        names,
        [
            owned("pdf", "skill", "user"),
            owned("deploy", "skill", "project"),
            owned("standup", "command", "user"),
            owned("frontend:component", "command", "project"),
        ]
    );
}

#[test]
fn bare_discovers_nothing_and_says_nothing() {
    let setup = Setup::new();
    setup.home(".claude/skills/pdf/SKILL.md", &skill_md("pdf", "Read PDFs"));
    setup.project(".claude/commands/review.md", "Review");
    let out = setup.run(&["--bare", "--json", "skills", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(listed(&out).is_empty(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}

#[test]
fn a_file_too_large_is_an_error_naming_it_and_the_others_load() {
    let setup = Setup::new();
    setup.home(".claude/skills/pdf/SKILL.md", &skill_md("pdf", "Read PDFs"));
    setup.home(".claude/skills/huge/SKILL.md", &"x".repeat(1024 * 1024 + 1));
    let out = setup.run(&["--json", "skills", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(listed(&out).len(), 1);
    let errors = out.json()["errors"].clone();
    let error = errors[0].as_str().unwrap_or_default();
    assert!(
        error.contains("huge/SKILL.md") && error.contains("larger than"),
        "{errors}"
    );
}

fn plugin_entries(out: &CliOutput) -> Vec<Value> {
    out.json()["plugins"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_project_plugin_waits_for_trust() {
    let setup = Setup::new();
    setup.project(
        ".claude/skills/acme/.claude-plugin/plugin.json",
        r#"{"name": "acme"}"#,
    );
    let out = setup.run(&["--json", "plugins", "list"]);
    let plugins = plugin_entries(&out);
    assert_eq!(plugins.len(), 1, "{out:?}");
    assert_eq!(plugins[0]["loaded"], false);
    let reason = plugins[0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("not trusted") && reason.contains("--trust-workspace"),
        "{reason}"
    );
    let trusted = setup.run(&["--trust-workspace", "--json", "plugins", "list"]);
    assert_eq!(plugin_entries(&trusted)[0]["loaded"], true, "{trusted:?}");
}

#[test]
fn the_startup_summary_counts_what_was_found() {
    let setup = Setup::new();
    setup.home(".claude/skills/pdf/SKILL.md", &skill_md("pdf", "Read PDFs"));
    setup.project(
        ".claude/skills/deploy/SKILL.md",
        &skill_md("deploy", "Ship it"),
    );
    setup.project(".claude/commands/review.md", "Review");
    let out = setup.run(&["run", "hello"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("skills: 2 (1 user, 1 project), commands: 1, plugins: 0"),
        "{out:?}"
    );
    let bare = setup.run(&["--bare", "run", "hello"]);
    assert!(!bare.stderr.contains("skills:"), "{bare:?}");
}
