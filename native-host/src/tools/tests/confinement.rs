//! Every file tool refuses `..`, absolute paths outside, and symlinks that lead out.

use super::Fixture;
use crate::tools::Workspace;
use serde_json::json;
use std::os::unix::fs::symlink;

/// A workspace with `out_dir -> <outside>`, `out_file -> <outside>/secret.txt`,
/// `dangling -> <outside>/new.txt` (missing), and an inside file `ok.txt`.
fn fixture() -> Fixture {
    let fx = Fixture::new();
    std::fs::write(fx.outside.path().join("secret.txt"), "SECRET line\n").unwrap();
    symlink(fx.outside.path(), fx.root().join("out_dir")).unwrap();
    symlink(
        fx.outside.path().join("secret.txt"),
        fx.root().join("out_file"),
    )
    .unwrap();
    symlink(
        fx.outside.path().join("new.txt"),
        fx.root().join("dangling"),
    )
    .unwrap();
    fx.write("ok.txt", "fine SECRET-free\n");
    fx
}

/// Paths that must be refused, whatever the tool.
fn escapes(fx: &Fixture) -> Vec<String> {
    let outside = fx.outside.path().display().to_string();
    vec![
        "../secret.txt".into(),
        "sub/../../secret.txt".into(),
        format!("{outside}/secret.txt"),
        "/etc/passwd".into(),
        "out_dir/secret.txt".into(),
        "out_file".into(),
        "out_dir".into(),
        "nonexistent/../../x".into(),
    ]
}

fn assert_refused(msg: &str, path: &str) {
    assert!(
        msg.contains("outside the workspace")
            || msg.contains("symlink")
            || msg.contains("\"..\" below a directory"),
        "{path}: unexpected message: {msg}"
    );
}

#[tokio::test]
async fn read_file_refuses_escapes() {
    let fx = fixture();
    for path in escapes(&fx) {
        let msg = fx.err("read_file", json!({"path": path})).await;
        assert_refused(&msg, &path);
        assert!(!msg.contains("SECRET line"), "{msg}");
    }
    assert!(fx
        .ok("read_file", json!({"path": "ok.txt"}))
        .await
        .contains("fine"));
}

#[tokio::test]
async fn write_file_refuses_escapes_and_leaves_outside_untouched() {
    let fx = fixture();
    let mut paths = escapes(&fx);
    paths.push("dangling".into());
    paths.push("out_dir/brand_new.txt".into());
    for path in paths {
        let msg = fx
            .err("write_file", json!({"path": path, "content": "pwned"}))
            .await;
        assert_refused(&msg, &path);
    }
    let secret = std::fs::read_to_string(fx.outside.path().join("secret.txt")).unwrap();
    assert_eq!(secret, "SECRET line\n");
    assert!(
        !fx.outside.path().join("new.txt").exists(),
        "dangling target created"
    );
    assert!(!fx.outside.path().join("brand_new.txt").exists());
    // A new file in a new directory inside is fine.
    fx.ok("write_file", json!({"path": "a/b/new.txt", "content": "x"}))
        .await;
    assert_eq!(fx.read("a/b/new.txt"), "x");
}

#[tokio::test]
async fn edit_file_refuses_escapes() {
    let fx = fixture();
    for path in escapes(&fx) {
        let args = json!({"path": path, "old_string": "SECRET", "new_string": "PWNED"});
        let msg = fx.err("edit_file", args).await;
        assert_refused(&msg, &path);
    }
    let secret = std::fs::read_to_string(fx.outside.path().join("secret.txt")).unwrap();
    assert_eq!(secret, "SECRET line\n");
}

#[tokio::test]
async fn list_directory_refuses_escapes() {
    let fx = fixture();
    for path in ["..", "out_dir", "/", "/tmp"] {
        let msg = fx.err("list_directory", json!({"path": path})).await;
        assert_refused(&msg, path);
    }
    let listing = fx.ok("list_directory", json!({})).await;
    assert!(listing.contains("out_dir -> "), "{listing}");
}

#[tokio::test]
async fn glob_and_grep_refuse_escapes_and_do_not_follow_links_out() {
    let fx = fixture();
    for path in ["..", "out_dir", "/etc"] {
        let msg = fx
            .err("glob", json!({"pattern": "**/*", "path": path}))
            .await;
        assert_refused(&msg, path);
        let msg = fx
            .err("grep", json!({"pattern": "SECRET", "path": path}))
            .await;
        assert_refused(&msg, path);
    }
    let found = fx.ok("glob", json!({"pattern": "**/*"})).await;
    assert!(found.contains("ok.txt"), "{found}");
    assert!(
        !found.contains("secret") && !found.contains("out_file"),
        "{found}"
    );
    let hits = fx.ok("grep", json!({"pattern": "SECRET"})).await;
    assert!(hits.contains("ok.txt:1:"), "{hits}");
    assert!(!hits.contains("SECRET line"), "read through a link: {hits}");
}

#[tokio::test]
async fn links_that_stay_inside_are_followed() {
    let fx = Fixture::new();
    fx.write("real/data.txt", "hello\n");
    symlink(fx.root().join("real"), fx.root().join("alias")).unwrap();
    symlink(fx.root().join("real/data.txt"), fx.root().join("data_link")).unwrap();
    assert!(fx
        .ok("read_file", json!({"path": "alias/data.txt"}))
        .await
        .contains("hello"));
    assert!(fx
        .ok("read_file", json!({"path": "data_link"}))
        .await
        .contains("hello"));
    assert!(fx
        .ok("read_file", json!({"path": "real/../real/data.txt"}))
        .await
        .contains("hello"));
    let abs = fx.root().join("real/data.txt").display().to_string();
    assert!(fx
        .ok("read_file", json!({"path": abs}))
        .await
        .contains("hello"));
    let hits = fx.ok("grep", json!({"pattern": "hello"})).await;
    assert!(hits.contains("data_link:1:hello"), "{hits}");
}

#[test]
fn workspace_resolution_rules() {
    let dir = tempfile::TempDir::new().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let root = ws.root().to_path_buf();
    assert_eq!(ws.resolve(".").unwrap(), root);
    assert_eq!(ws.resolve("a/b.txt").unwrap(), root.join("a/b.txt"));
    assert_eq!(ws.resolve("./a/./b").unwrap(), root.join("a/b"));
    assert!(ws.resolve("").unwrap_err().contains("empty"));
    assert!(ws.resolve("a\0b").unwrap_err().contains("NUL"));
    assert!(ws
        .resolve("..")
        .unwrap_err()
        .contains("outside the workspace"));
    assert_eq!(ws.display(&root), ".");
    assert_eq!(ws.display(&root.join("x/y")), "x/y");
    assert!(Workspace::new(dir.path().join("missing")).is_err());
    std::fs::write(dir.path().join("f"), "").unwrap();
    assert!(Workspace::new(dir.path().join("f")).is_err());
}
