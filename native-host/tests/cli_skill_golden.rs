//! `agentwire skills show NAME --json` on real SKILL.md files (anthropics/skills, Apache-2.0;
//! obra/superpowers, MIT) equals the golden records in `tests/fixtures/ext/golden/`, which the
//! npm package's `parseSkill` is checked against too (pkg-tests/test/extensions.test.mjs): one
//! parser, the same view in both homes. `AW_UPDATE_GOLDEN=1` rewrites the files.

mod common;

use common::run_cli;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The fixture skills: (folder under tests/fixtures/ext, skill name).
const SKILLS: &[(&str, &str)] = &[
    ("anthropics-skills/skills", "mcp-builder"),
    ("anthropics-skills/skills", "skill-creator"),
    ("superpowers/skills", "brainstorming"),
    ("superpowers/skills", "systematic-debugging"),
    ("superpowers/skills", "writing-skills"),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ext")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn skills_show_json_on_real_files_equals_the_golden_records() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".git")).unwrap();
    let update = std::env::var_os("AW_UPDATE_GOLDEN").is_some();
    for (folder, name) in SKILLS {
        let dir = home.path().join(".claude/skills").join(name);
        copy_dir(&fixtures().join(folder).join(name), &dir);
        let out = run_cli(
            project.path(),
            &["--json", "skills", "show", name],
            &[("HOME", home.path().to_str().unwrap())],
        );
        assert_eq!(out.code, 0, "{out:?}");
        let mut shown = out.json();
        // Where the copy lives changes per run; the golden file names it `<dir>`.
        let shown_dir = dir.canonicalize().unwrap();
        for key in ["location", "dir"] {
            let text = shown[key]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no {key}"));
            let text = text
                .replace(shown_dir.to_str().unwrap(), "<dir>")
                .replace(dir.to_str().unwrap(), "<dir>");
            shown[key] = Value::from(text);
        }
        let golden = fixtures().join("golden").join(format!("{name}.json"));
        if update {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&shown).unwrap();
            std::fs::write(&golden, text + "\n").unwrap();
            continue;
        }
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&golden).unwrap_or_else(|e| {
                panic!("{}: {e} (AW_UPDATE_GOLDEN=1 writes it)", golden.display())
            }))
            .unwrap();
        assert_eq!(shown, expected, "{name}: the CLI's record changed");
        assert_eq!(shown["location"], "<dir>/SKILL.md");
        assert!(
            shown["body"].as_str().unwrap().len() > 500,
            "{name}: whole body"
        );
    }
}
