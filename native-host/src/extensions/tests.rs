//! Discovery on real temporary trees.

use super::discover::*;
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(root: &Path, name: &str) {
    write(
        &root.join(name).join("SKILL.md"),
        &format!("---\nname: {name}\ndescription: d\n---\nbody\n"),
    );
}

#[test]
fn user_then_project_skills_and_commands_are_found_in_order() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    skill(&home.path().join(".claude/skills"), "b");
    skill(&home.path().join(".claude/skills"), "a");
    skill(&home.path().join(".agents/skills"), "c");
    skill(&project.path().join(".claude/skills"), "p");
    write(&home.path().join(".claude/commands/review.md"), "Review $0");
    write(
        &project
            .path()
            .join(".claude/commands/frontend/component.md"),
        "x",
    );
    write(
        &project.path().join(".claude/commands/notes.txt"),
        "not a command",
    );
    let found = discover(&Places {
        home: Some(home.path().into()),
        project: vec![project.path().into()],
        ..Places::default()
    });
    let names: Vec<_> = found
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.scope))
        .collect();
    assert_eq!(
        names,
        [
            ("a", Scope::User),
            ("b", Scope::User),
            ("c", Scope::User),
            ("p", Scope::Project)
        ]
    );
    let commands: Vec<_> = found
        .commands
        .iter()
        .map(|c| (c.name.as_str(), c.group.as_deref(), c.scope))
        .collect();
    assert_eq!(
        commands,
        [
            ("review", None, Scope::User),
            ("component", Some("frontend"), Scope::Project)
        ]
    );
    assert!(found.errors.is_empty(), "{:?}", found.errors);
}

#[test]
fn bundled_files_skip_dot_dirs_and_stop_at_the_bound() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".claude/skills/big");
    write(&root.join("SKILL.md"), "---\ndescription: d\n---\n");
    write(&root.join("reference/guide.md"), "g");
    write(&root.join(".git/config"), "x");
    write(&root.join("node_modules/x/index.js"), "x");
    write(&root.join("a/b/c/d/too-deep/e.md"), "x");
    let found = discover(&Places {
        home: Some(home.path().into()),
        ..Places::default()
    });
    assert_eq!(found.skills[0].files, ["reference/guide.md"]);
    assert!(!found.skills[0].files_cut);
    for i in 0..MAX_BUNDLED_FILES + 5 {
        write(&root.join(format!("many/{i:04}.txt")), "x");
    }
    let found = discover(&Places {
        home: Some(home.path().into()),
        ..Places::default()
    });
    assert_eq!(found.skills[0].files.len(), MAX_BUNDLED_FILES);
    assert!(found.skills[0].files_cut);
}

#[test]
fn a_symlinked_skill_folder_loads_once() {
    let home = tempfile::tempdir().unwrap();
    skill(&home.path().join(".claude/skills"), "real");
    std::fs::create_dir_all(home.path().join(".agents")).unwrap();
    std::os::unix::fs::symlink(
        home.path().join(".claude/skills"),
        home.path().join(".agents/skills"),
    )
    .unwrap();
    let found = discover(&Places {
        home: Some(home.path().into()),
        ..Places::default()
    });
    assert_eq!(found.skills.len(), 1);
}

#[test]
fn project_plugins_wait_for_trust_and_bare_finds_only_plugin_dirs() {
    let project = tempfile::tempdir().unwrap();
    let plugin = project.path().join(".claude/skills/acme");
    write(
        &plugin.join(".claude-plugin/plugin.json"),
        "{\"name\":\"acme\"}",
    );
    write(&plugin.join("SKILL.md"), "---\ndescription: d\n---\n");
    let mut places = Places {
        project: vec![project.path().into()],
        ..Places::default()
    };
    let found = discover(&places);
    assert!(
        found.skills.is_empty(),
        "a plugin folder is not also a skill"
    );
    let reason = found.plugins[0].not_loaded.as_deref().unwrap();
    assert!(
        reason.contains("not trusted") && reason.contains("acme"),
        "{reason}"
    );
    places.trusted = true;
    assert_eq!(discover(&places).plugins[0].not_loaded, None);
    places.bare = true;
    places.plugin_dirs = vec!["/explicit".into()];
    let found = discover(&places);
    assert_eq!(found.plugins.len(), 1);
    assert_eq!(found.plugins[0].root, Path::new("/explicit"));
    assert!(found.skills.is_empty() && found.commands.is_empty());
}

#[test]
fn an_oversized_skill_is_an_error_naming_it_and_the_rest_loads() {
    let home = tempfile::tempdir().unwrap();
    let skills = home.path().join(".claude/skills");
    skill(&skills, "fine");
    write(
        &skills.join("huge/SKILL.md"),
        &"x".repeat(super::read::MAX_FILE_BYTES as usize + 1),
    );
    let found = discover(&Places {
        home: Some(home.path().into()),
        ..Places::default()
    });
    assert_eq!(found.skills.len(), 1);
    assert_eq!(found.errors.len(), 1);
    assert!(
        found.errors[0].contains("huge/SKILL.md"),
        "{:?}",
        found.errors
    );
}

#[test]
fn project_dirs_climb_to_the_git_root_but_never_into_home() {
    let home = tempfile::tempdir().unwrap();
    let repo = home.path().join("repo");
    let sub = repo.join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    assert_eq!(
        project_dirs(&sub, Some(home.path())),
        [sub.clone(), repo.join("a"), repo.clone()]
    );
    assert_eq!(project_root(&sub, Some(home.path())), repo);
    let loose = home.path().join("loose/x");
    std::fs::create_dir_all(&loose).unwrap();
    assert_eq!(project_dirs(&loose, Some(home.path())), [loose]);
    assert!(project_dirs(home.path(), Some(home.path())).is_empty());
}
