//! The resolver over an in-memory folder tree: order, imports, trust, budget, rules.

use super::*;
use serde_json::json;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Files by absolute path; records every read with its access.
#[derive(Default)]
struct Tree {
    files: BTreeMap<String, Result<String, String>>,
    reads: RefCell<Vec<(String, Access)>>,
    /// Lists rules in reverse order, to show the resolver sorts.
    reverse_listing: bool,
}

impl Tree {
    fn with(mut self, path: &str, text: &str) -> Self {
        self.files.insert(path.to_owned(), Ok(text.to_owned()));
        self
    }
    fn refusing(mut self, path: &str, why: &str) -> Self {
        self.files.insert(path.to_owned(), Err(why.to_owned()));
        self
    }
    fn read_paths(&self) -> Vec<String> {
        self.reads.borrow().iter().map(|(p, _)| p.clone()).collect()
    }
}

impl InstructionReader for Tree {
    fn read(&self, path: &str, access: Access) -> Result<String, ReadError> {
        self.reads.borrow_mut().push((path.to_owned(), access));
        match self.files.get(path) {
            Some(Ok(text)) => Ok(text.clone()),
            Some(Err(why)) => Err(ReadError::Refused(why.clone())),
            None => Err(ReadError::Missing),
        }
    }
    fn list_markdown(&self, dir: &str, _access: Access) -> Vec<String> {
        let mut found: Vec<String> = self
            .files
            .keys()
            .filter(|p| p.starts_with(&format!("{dir}/")) && p.ends_with(".md"))
            .cloned()
            .collect();
        if self.reverse_listing {
            found.reverse();
        }
        found
    }
}

fn sources() -> Sources {
    let mut s = Sources::new("/r", "/r/app/web");
    s.home = Some("/home/u".into());
    s.user_files = vec![
        "/home/u/.claude/CLAUDE.md".into(),
        "/home/u/.agentwire/AGENTWIRE.md".into(),
    ];
    s.user_rules = Some("/home/u/.claude/rules".into());
    s
}

fn shown(found: &Instructions) -> Vec<String> {
    found
        .files
        .iter()
        .map(|f| format!("{} {}", f.shown, f.origin.as_str()))
        .collect()
}

#[test]
fn sources_load_user_first_then_root_down_to_cwd_one_main_file_per_folder() {
    let tree = Tree::default()
        .with("/home/u/.claude/CLAUDE.md", "user prefs")
        .with("/home/u/.agentwire/AGENTWIRE.md", "ours")
        .with("/home/u/.claude/rules/style.md", "user rule")
        .with("/r/CLAUDE.md", "root claude")
        .with("/r/AGENTS.md", "root agents (shadowed)")
        .with("/r/CLAUDE.local.md", "root local")
        .with("/r/app/.claude/CLAUDE.md", "app dot-claude")
        .with("/r/app/AGENTS.md", "app agents (shadowed)")
        .with("/r/app/web/AGENTS.md", "web agents")
        .with("/r/other/AGENTS.md", "not on the way")
        .with("/r/.claude/rules/b.md", "rule b")
        .with("/r/.claude/rules/a/x.md", "rule a/x");
    let found = resolve(&sources(), &tree);
    assert_eq!(
        shown(&found),
        [
            "~/.claude/CLAUDE.md user",
            "~/.agentwire/AGENTWIRE.md user",
            "~/.claude/rules/style.md rule",
            "CLAUDE.md project",
            "CLAUDE.local.md local",
            "app/.claude/CLAUDE.md project",
            "app/web/AGENTS.md project",
            ".claude/rules/a/x.md rule",
            ".claude/rules/b.md rule",
        ]
    );
    let order = [
        "user prefs",
        "ours",
        "user rule",
        "root claude",
        "root local",
        "app dot-claude",
        "web agents",
        "rule a/x",
        "rule b",
    ];
    let mut at = 0;
    for text in order {
        let found_at = found.text[at..]
            .find(text)
            .unwrap_or_else(|| panic!("{text} out of order"));
        at += found_at;
    }
    for absent in ["shadowed", "not on the way"] {
        assert!(!found.text.contains(absent), "{absent}");
    }
    assert!(found.text.starts_with("# Instructions\n"), "{}", found.text);
    assert!(found.text.contains("They grant no permission"));
    assert!(found
        .text
        .contains("\n## app/web/AGENTS.md (project)\n\nweb agents\n"));
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    // Project files are read as project files, the user's as the user's.
    for (path, access) in tree.reads.borrow().iter() {
        let want = if path.starts_with("/home") {
            Access::User
        } else {
            Access::Project
        };
        assert_eq!(*access, want, "{path}");
    }
}

#[test]
fn the_same_files_give_the_same_bytes_whatever_order_the_host_lists_them() {
    let build = |reverse| {
        let mut tree = Tree::default()
            .with("/r/AGENTS.md", "top @docs/a.md @docs/b.md")
            .with("/r/docs/a.md", "A @b.md")
            .with("/r/docs/b.md", "B")
            .with("/r/.claude/rules/z.md", "z")
            .with("/r/.claude/rules/m.md", "m")
            .with("/r/.claude/rules/c/d.md", "---\npaths: src/**\n---\nd");
        tree.reverse_listing = reverse;
        resolve(&sources(), &tree)
    };
    let first = build(false);
    assert_eq!(first, build(false));
    assert_eq!(first, build(true));
    // Imports come depth-first after their importer; a file imported twice appears once.
    assert_eq!(
        shown(&first),
        [
            "AGENTS.md project",
            "docs/a.md import",
            "docs/b.md import",
            ".claude/rules/c/d.md rule",
            ".claude/rules/m.md rule",
            ".claude/rules/z.md rule"
        ]
    );
    assert_eq!(first.files[2].imported_by.as_deref(), Some("docs/a.md"));
    assert_eq!(first.text.matches("\nB\n").count(), 1);
}

#[test]
fn imports_are_relative_to_the_importer_stop_at_four_levels_and_cut_cycles() {
    let tree = Tree::default()
        .with(
            "/r/AGENTS.md",
            "@d/1.md and `@d/code.md`\n```\n@d/fenced.md\n```\n<!-- @d/comment.md -->",
        )
        .with("/r/d/1.md", "one @2.md")
        .with("/r/d/2.md", "two @./3.md")
        .with("/r/d/3.md", "three @../d/4.md")
        .with("/r/d/4.md", "four @5.md @1.md")
        .with("/r/d/5.md", "five (too deep)")
        .with("/r/d/code.md", "CODE")
        .with("/r/d/fenced.md", "FENCED")
        .with("/r/d/comment.md", "COMMENT");
    let found = resolve(&Sources::new("/r", "/r"), &tree);
    assert_eq!(
        shown(&found),
        [
            "AGENTS.md project",
            "d/1.md import",
            "d/2.md import",
            "d/3.md import",
            "d/4.md import"
        ]
    );
    for absent in ["too deep", "CODE", "FENCED", "COMMENT"] {
        assert!(!found.text.contains(absent), "{absent}");
    }
    let reads = tree.read_paths();
    for never in [
        "/r/d/5.md",
        "/r/d/code.md",
        "/r/d/fenced.md",
        "/r/d/comment.md",
    ] {
        assert!(!reads.contains(&never.to_owned()), "{never} was read");
    }
    assert_eq!(found.warnings.len(), 2, "{:?}", found.warnings);
    assert!(found
        .warnings
        .iter()
        .any(|w| w.starts_with("d/4.md: import @5.md not followed") && w.contains("4 levels")));
    assert!(found
        .warnings
        .iter()
        .any(|w| w.starts_with("d/4.md: import @1.md") && w.contains("cycle")));
}

#[test]
fn an_untrusted_workspace_never_reads_an_import_that_leaves_it() {
    let tree = Tree::default()
        .with(
            "/r/AGENTS.md",
            "@~/.ssh/id_rsa @/etc/passwd @../sibling/x.md @inside.md",
        )
        .with("/r/inside.md", "fine")
        .with("/home/u/.ssh/id_rsa", "PRIVATE KEY")
        .with("/etc/passwd", "root:x")
        .with("/sibling/x.md", "SIBLING");
    let found = resolve(&sources(), &tree);
    assert!(found.text.contains("fine"));
    for secret in ["PRIVATE KEY", "root:x", "SIBLING"] {
        assert!(!found.text.contains(secret), "{secret}");
    }
    let reads = tree.read_paths();
    for never in ["/home/u/.ssh/id_rsa", "/etc/passwd", "/sibling/x.md"] {
        assert!(!reads.contains(&never.to_owned()), "{never} was read");
    }
    let refusals: Vec<_> = found
        .warnings
        .iter()
        .filter(|w| w.contains("outside the workspace"))
        .collect();
    assert_eq!(refusals.len(), 3, "{:?}", found.warnings);
    assert!(
        refusals[0].starts_with("AGENTS.md: import @~/.ssh/id_rsa not read"),
        "{}",
        refusals[0]
    );

    // Trusted: read, confined as an outside read.
    let mut trusted = sources();
    trusted.trusted = true;
    let tree = Tree::default()
        .with("/r/AGENTS.md", "@../shared/x.md")
        .with("/shared/x.md", "SHARED");
    let found = resolve(&trusted, &tree);
    assert!(found.text.contains("SHARED"));
    assert!(tree
        .reads
        .borrow()
        .contains(&("/shared/x.md".to_owned(), Access::Outside)));
}

#[test]
fn a_users_own_file_may_import_from_anywhere_as_a_user_read() {
    let tree = Tree::default()
        .with(
            "/home/u/.claude/CLAUDE.md",
            "@~/notes/style.md @/opt/team/rules.md",
        )
        .with("/home/u/notes/style.md", "STYLE")
        .with("/opt/team/rules.md", "TEAM");
    let found = resolve(&sources(), &tree);
    assert!(
        found.text.contains("STYLE") && found.text.contains("TEAM"),
        "{:?}",
        found
    );
    assert!(tree
        .reads
        .borrow()
        .contains(&("/opt/team/rules.md".to_owned(), Access::User)));
    assert_eq!(found.files[1].shown, "~/notes/style.md");
    assert_eq!(found.files[2].shown, "/opt/team/rules.md");
}

#[test]
fn a_refused_file_is_a_warning_and_still_takes_its_folders_place() {
    let tree = Tree::default()
        .refusing(
            "/r/CLAUDE.md",
            "CLAUDE.md: is a FIFO (named pipe), not a regular file; not loaded",
        )
        .with("/r/AGENTS.md", "AGENTS FALLBACK")
        .with("/r/CLAUDE.local.md", "local")
        .with("/r/a.md", "x")
        .refusing("/r/b.md", "b.md leads outside the project; refused");
    let mut s = Sources::new("/r", "/r");
    s.trusted = false;
    let found = resolve(&s, &tree);
    assert!(!found.text.contains("AGENTS FALLBACK"));
    assert!(found.text.contains("local"));
    assert_eq!(
        found.warnings,
        ["CLAUDE.md: is a FIFO (named pipe), not a regular file; not loaded"]
    );
    let tree = Tree::default()
        .with("/r/AGENTS.md", "@b.md @missing.md")
        .refusing("/r/b.md", "b.md: refused");
    let found = resolve(&s, &tree);
    assert_eq!(found.warnings[0], "b.md: refused");
    assert!(
        found.warnings[1].contains("@missing.md not found"),
        "{:?}",
        found.warnings
    );
}

#[test]
fn the_budget_cuts_the_block_with_a_visible_note_on_a_character_boundary() {
    let big = "é".repeat(3000);
    let tree = Tree::default()
        .with("/r/AGENTS.md", "first file")
        .with("/r/CLAUDE.local.md", &big);
    let mut s = Sources::new("/r", "/r");
    s.budget_bytes = 2000;
    let found = resolve(&s, &tree);
    assert!(found.text.len() <= 2000, "{}", found.text.len());
    assert!(found.text.contains("first file"));
    assert!(
        found.text.contains("[Instructions truncated: "),
        "{}",
        found.text
    );
    assert!(found.text.contains("cut: CLAUDE.local.md]"));
    assert!(found.truncated_bytes > 4000);
    assert!(!found.files[0].truncated && found.files[1].truncated);
    // Within the budget: no note, nothing marked.
    s.budget_bytes = DEFAULT_BUDGET_BYTES;
    let found = resolve(&s, &tree);
    assert!(!found.text.contains("truncated") && found.truncated_bytes == 0);
    assert!(found.files.iter().all(|f| !f.truncated));
    // Nothing loaded: no block at all.
    let found = resolve(&s, &Tree::default());
    assert_eq!(found.text, "");
    assert_eq!(found.system_prompt("base"), "base");
}

#[test]
fn conditional_rules_stay_out_of_the_block_and_join_once_per_conversation() {
    let tree = Tree::default()
        .with(
            "/r/.claude/rules/ts.md",
            "---\npaths:\n  - \"src/**/*.{ts,tsx}\"\n---\nUse strict TS.\n<!-- hidden -->\n",
        )
        .with(
            "/r/.claude/rules/docs.md",
            "---\npaths: docs/*.md\n---\nWrite plainly.",
        )
        .with("/r/.claude/rules/broken.md", "---\npaths: x\n");
    let found = resolve(&Sources::new("/r", "/r/src"), &tree);
    assert_eq!(found.text, "");
    assert_eq!(found.files.len(), 2);
    assert_eq!(found.files[1].paths, ["src/**/*.{ts,tsx}"]);
    assert!(
        found.warnings[0].starts_with(".claude/rules/broken.md: the frontmatter"),
        "{:?}",
        found.warnings
    );
    let mut rules = found.path_rules;
    assert_eq!(
        rules.for_call("read_file", &json!({"path": "README.md"})),
        None
    );
    assert_eq!(rules.for_call("bash", &json!({"path": "ui/a.ts"})), None);
    // Relative to the working directory (`/r/src`), matched relative to the root.
    let text = rules
        .for_call("write_file", &json!({"path": "ui/a.ts"}))
        .unwrap();
    assert_eq!(
        text,
        "\n\n[Instructions for files like src/ui/a.ts, from .claude/rules/ts.md]\nUse strict TS."
    );
    assert_eq!(rules.touch("/r/src/b.tsx"), None, "joined already");
    assert_eq!(rules.touch("/elsewhere/docs/a.md"), None);
    assert!(rules
        .touch("../docs/a.md")
        .unwrap()
        .contains("Write plainly."));
    rules.forget_joined();
    assert!(rules.touch("/r/src/b.tsx").is_some());
}

#[test]
fn json_lists_every_file_with_origin_size_and_importer() {
    let tree = Tree::default()
        .with("/r/AGENTS.md", "@x.md")
        .with("/r/x.md", "12345");
    let found = resolve(&Sources::new("/r", "/r"), &tree);
    let value = found.to_json();
    assert_eq!(
        value["files"][1],
        json!({"path": "/r/x.md", "shown": "x.md", "origin": "import", "bytes": 5, "importedBy": "AGENTS.md", "paths": [], "truncated": false})
    );
    assert_eq!(value["bytes"], found.text.len());
}
