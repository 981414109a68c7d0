//! The writers refuse the user's protected places wherever the workspace is, by identity:
//! through `..`, symlinks inside the workspace, hard links, another case, symlinked skills, and
//! a workspace inside a protected folder; reading them (but the state directory), and writing
//! anything else, still works.

use super::super::{BuiltinTool, Protected};
use super::home::{call, Home};
use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::Path;

async fn write(tools: &[Box<dyn BuiltinTool>], path: &str) -> (bool, String) {
    call(
        tools,
        "write_file",
        json!({"path": path, "content": "planted"}),
    )
    .await
}

fn assert_refused(outcome: (bool, String), place: &Path) {
    let (ok, text) = outcome;
    assert!(!ok, "went through: {text}");
    assert!(text.starts_with("refused: "), "{text}");
    assert!(text.contains(&place.display().to_string()), "{text}");
}

#[tokio::test]
async fn every_protected_place_is_refused_existing_or_not() {
    let home = Home::new();
    let h = home.path();
    let tools = home.tools(&h, home.protected());
    let cases = [
        (".claude/skills/p/.claude-plugin/plugin.json", ".claude"),
        (".claude/settings.json", ".claude"),
        (".claude/CLAUDE.md", ".claude"),
        (".agents/skills/p/SKILL.md", ".agents"),
        (
            ".local/state/agentwire/trusted-workspaces.json",
            ".local/state/agentwire",
        ),
        (
            ".local/state/agentwire/oauth-tokens.json",
            ".local/state/agentwire",
        ),
        (".config/agentwire/config.json", ".config/agentwire"),
        (".config/agentwire/AGENTWIRE.md", ".config/agentwire"),
        (".codex/AGENTS.md", ".codex/AGENTS.md"),
        (".agentwire_history", ".agentwire_history"),
    ];
    for (path, place) in cases {
        assert_refused(write(&tools, path).await, &h.join(place));
    }
    assert!(!h.join(".claude").exists() && !h.join(".agents").exists());
    assert!(!h.join(".local/state/agentwire").exists());
    assert!(!h.join(".config/agentwire").exists());
    assert!(!h.join(".agentwire_history").exists());
    // Now that they all exist (the user made them), still refused, and so is an edit.
    for (path, _) in cases {
        home.write(path, "the user's");
    }
    for (path, place) in cases {
        assert_refused(write(&tools, path).await, &h.join(place));
        let edit = json!({"path": path, "old_string": "user", "new_string": "model"});
        assert_refused(call(&tools, "edit_file", edit).await, &h.join(place));
        assert_eq!(std::fs::read_to_string(h.join(path)).unwrap(), "the user's");
        // Reading is not changed, but for the state directory, which holds secrets.
        let read = call(&tools, "read_file", json!({"path": path})).await;
        if place.starts_with(".local/state") {
            assert_refused(read, &h.join(place));
        } else {
            assert!(read.0 && read.1.contains("the user's"), "{}", read.1);
        }
    }
}

#[tokio::test]
async fn other_paths_are_still_the_workspaces() {
    let home = Home::new();
    let h = home.path();
    let tools = home.tools(&h, home.protected());
    home.write(".claude/skills/s/SKILL.md", "x");
    for path in [
        "notes.txt",
        ".claudex/skills/p/SKILL.md",
        ".claude.json",
        ".local/state/other-app/state.json",
        ".config/other/config.json",
        "project/.claude/skills/p/SKILL.md",
        "project/.agents/skills/p/SKILL.md",
        ".agents2/x",
    ] {
        let (ok, text) = write(&tools, path).await;
        assert!(ok, "{path}: {text}");
    }
}

#[tokio::test]
async fn no_spelling_of_the_path_gets_around_it() {
    let home = Home::new();
    let h = home.path();
    let tools = home.tools(&h, home.protected());
    home.write(".claude/settings.json", "{}");
    home.write(".local/state/agentwire/trusted-workspaces.json", "{}");
    std::fs::create_dir(h.join("sub")).unwrap();
    symlink(h.join(".claude"), h.join("claude-link")).unwrap();
    symlink(h.join(".local/state"), h.join("sub/state-link")).unwrap();
    let claude = h.join(".claude");
    let state = h.join(".local/state/agentwire");
    for (path, place) in [
        ("sub/../.claude/settings.json".to_owned(), &claude),
        ("./.claude/./hooks.json".to_owned(), &claude),
        (format!("{}/.claude/new.md", h.display()), &claude),
        ("claude-link/settings.json".to_owned(), &claude),
        ("claude-link/skills/x/SKILL.md".to_owned(), &claude),
        (
            "sub/state-link/agentwire/trusted-workspaces.json".to_owned(),
            &state,
        ),
        ("sub/state-link/agentwire/new.json".to_owned(), &state),
        // Another case: the same folder on a case-insensitive file system, and not one to
        // create beside it on another.
        (".CLAUDE/skills/x/SKILL.md".to_owned(), &claude),
        (".Claude/settings.json".to_owned(), &claude),
        (
            ".local/state/AGENTWIRE/trusted-workspaces.json".to_owned(),
            &state,
        ),
    ] {
        assert_refused(write(&tools, &path).await, place);
    }
    assert!(!h.join(".CLAUDE").exists() && !h.join(".local/state/AGENTWIRE").exists());
    // A hard link to the trust store elsewhere in the workspace: writers refuse any file with
    // other names.
    let store = h.join(".local/state/agentwire/trusted-workspaces.json");
    std::fs::hard_link(&store, h.join("sub/copy.json")).unwrap();
    let edit = json!({"path": "sub/copy.json", "old_string": "{}", "new_string": "[]"});
    let (ok, text) = call(&tools, "edit_file", edit).await;
    assert!(!ok && text.contains("hard links"), "{text}");
    assert_eq!(std::fs::read_to_string(&store).unwrap(), "{}");
}

#[tokio::test]
async fn where_the_users_extension_folders_link_to_is_protected_too() {
    let home = Home::new();
    let h = home.path();
    // The user keeps a skill, and their whole commands folder, in a folder of the workspace.
    home.write("dev/my-skill/SKILL.md", "x");
    home.write("dotfiles/commands/review.md", "x");
    home.write("dotfiles/CLAUDE.md", "x");
    std::fs::create_dir_all(h.join(".claude/skills")).unwrap();
    symlink(h.join("dev/my-skill"), h.join(".claude/skills/my-skill")).unwrap();
    symlink(h.join("dotfiles/commands"), h.join(".claude/commands")).unwrap();
    symlink(h.join("dotfiles/CLAUDE.md"), h.join(".claude/CLAUDE.md")).unwrap();
    let tools = home.tools(&h, home.protected());
    let claude = h.join(".claude");
    for path in [
        "dev/my-skill/.claude-plugin/plugin.json",
        "dev/my-skill/.mcp.json",
        "dotfiles/commands/new.md",
        "dotfiles/CLAUDE.md",
    ] {
        assert_refused(write(&tools, path).await, &claude);
    }
    let (ok, text) = write(&tools, "dev/other/SKILL.md").await;
    assert!(ok, "{text}");
}

#[tokio::test]
async fn a_workspace_inside_a_protected_folder_writes_nothing_there() {
    let home = Home::new();
    let h = home.path();
    home.write(".claude/skills/mine/SKILL.md", "x");
    let root = h.join(".claude/skills/mine");
    let tools = home.tools(&root, home.protected());
    assert_refused(write(&tools, "SKILL.md").await, &h.join(".claude"));
    assert_refused(write(&tools, "scripts/run.sh").await, &h.join(".claude"));
    assert_eq!(std::fs::read_to_string(root.join("SKILL.md")).unwrap(), "x");
}

#[tokio::test]
async fn the_command_lines_files_are_protected_by_identity() {
    let home = Home::new();
    let h = home.path();
    home.write("servers.json", "{}");
    home.write("audit.jsonl", "");
    home.write("plugins/p/.claude-plugin/plugin.json", "{}");
    let protected = Protected::default()
        .config_file(&h.join("servers.json"))
        .audit_log(&h.join("sub/../audit.jsonl"))
        .plugin_dir(&h.join("plugins/p"));
    std::fs::create_dir(h.join("sub")).unwrap();
    let tools = home.tools(&h, protected);
    assert_refused(write(&tools, "servers.json").await, &h.join("servers.json"));
    assert_refused(
        write(&tools, "audit.jsonl").await,
        &h.join("sub/../audit.jsonl"),
    );
    assert_refused(
        write(&tools, "plugins/p/.mcp.json").await,
        &h.join("plugins/p"),
    );
    let (ok, text) = write(&tools, "plugins/q/.mcp.json").await;
    assert!(ok, "{text}");
}
