//! read_file, write_file, edit_file and list_directory behaviour.

use super::Fixture;
use serde_json::json;

#[tokio::test]
async fn read_file_numbers_lines_and_pages() {
    let fx = Fixture::new();
    let body: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    fx.write("f.txt", &body);
    let all = fx.ok("read_file", json!({"path": "f.txt"})).await;
    assert!(all.starts_with("     1\tline 1\n     2\tline 2\n"), "{all}");
    assert!(all.contains("    50\tline 50\n"));
    assert!(!all.contains("showing lines"), "whole file, no paging note");

    let window = fx
        .ok(
            "read_file",
            json!({"path": "f.txt", "offset": 10, "limit": 3}),
        )
        .await;
    assert_eq!(
        window,
        "    10\tline 10\n    11\tline 11\n    12\tline 12\n\
         [showing lines 10-12 of 50; pass offset=13 to read on]\n"
    );
    let msg = fx
        .err("read_file", json!({"path": "f.txt", "offset": 51}))
        .await;
    assert!(
        msg.contains("has 50 lines; offset 51 is past the end"),
        "{msg}"
    );
    let msg = fx
        .err("read_file", json!({"path": "f.txt", "limit": 0}))
        .await;
    assert!(msg.contains("\"limit\" must be at least 1"), "{msg}");
    let msg = fx
        .err("read_file", json!({"path": "f.txt", "offset": "ten"}))
        .await;
    assert!(
        msg.contains("\"offset\" must be a non-negative integer, got a string"),
        "{msg}"
    );
    let msg = fx.err("read_file", json!({})).await;
    assert!(msg.contains("missing required argument \"path\""), "{msg}");
}

#[tokio::test]
async fn read_file_refuses_binary_huge_missing_and_directories() {
    let fx = Fixture::new();
    std::fs::write(fx.root().join("bin.dat"), [0x7f, b'E', b'L', b'F', 0, 1, 2]).unwrap();
    let msg = fx.err("read_file", json!({"path": "bin.dat"})).await;
    assert!(msg.contains("looks like a binary file (7 bytes)"), "{msg}");

    let huge = std::fs::File::create(fx.root().join("huge.log")).unwrap();
    huge.set_len(11 * 1024 * 1024).unwrap();
    let msg = fx.err("read_file", json!({"path": "huge.log"})).await;
    assert!(msg.contains("is 11534336 bytes, over the"), "{msg}");

    let msg = fx.err("read_file", json!({"path": "missing.txt"})).await;
    assert!(msg.contains("cannot read \"missing.txt\""), "{msg}");
    std::fs::create_dir(fx.root().join("d")).unwrap();
    let msg = fx.err("read_file", json!({"path": "d"})).await;
    assert!(msg.contains("is a directory; use list_directory"), "{msg}");

    fx.write("empty.txt", "");
    assert_eq!(
        fx.ok("read_file", json!({"path": "empty.txt"})).await,
        "empty.txt is empty"
    );
}

#[tokio::test]
async fn read_file_cuts_long_lines() {
    let fx = Fixture::new();
    fx.write("min.js", &format!("{}\nshort\n", "x".repeat(5000)));
    let text = fx.ok("read_file", json!({"path": "min.js"})).await;
    assert!(
        text.contains("[... 3000 more characters]"),
        "{}",
        &text[..100]
    );
    assert!(text.contains("     2\tshort\n"));
    assert!(text.contains("1 long line(s) cut"));
}

#[tokio::test]
async fn write_file_creates_and_overwrites() {
    let fx = Fixture::new();
    let msg = fx
        .ok(
            "write_file",
            json!({"path": "new/dir/a.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert_eq!(msg, "created new/dir/a.txt (8 bytes, 2 lines)");
    assert_eq!(fx.read("new/dir/a.txt"), "one\ntwo\n");
    let msg = fx
        .ok(
            "write_file",
            json!({"path": "new/dir/a.txt", "content": "ü"}),
        )
        .await;
    assert_eq!(msg, "overwrote new/dir/a.txt (2 bytes, 1 lines)");
    assert_eq!(fx.read("new/dir/a.txt"), "ü");
    let msg = fx
        .err("write_file", json!({"path": "new", "content": "x"}))
        .await;
    assert!(msg.contains("\"new\" is a directory"), "{msg}");
    let msg = fx.err("write_file", json!({"path": "x.txt"})).await;
    assert!(
        msg.contains("missing required argument \"content\""),
        "{msg}"
    );
    let msg = fx
        .err("write_file", json!({"path": "x.txt", "content": 5}))
        .await;
    assert!(
        msg.contains("\"content\" must be a string, got a number"),
        "{msg}"
    );
}

#[tokio::test]
async fn edit_file_replaces_unique_strings_only() {
    let fx = Fixture::new();
    fx.write("src.rs", "let a = 1;\nlet b = 1;\nlet c = 2;\n");
    let edit =
        |old: &str, new: &str| json!({"path": "src.rs", "old_string": old, "new_string": new});

    let msg = fx.ok("edit_file", edit("let c = 2;", "let c = 3;")).await;
    assert_eq!(msg, "replaced 1 occurrence in src.rs");
    assert_eq!(fx.read("src.rs"), "let a = 1;\nlet b = 1;\nlet c = 3;\n");

    let msg = fx.err("edit_file", edit("= 1;", "= 9;")).await;
    assert!(msg.contains("appears 2 times"), "{msg}");
    assert!(msg.contains("replace_all"), "{msg}");
    assert_eq!(
        fx.read("src.rs"),
        "let a = 1;\nlet b = 1;\nlet c = 3;\n",
        "unchanged"
    );

    let msg = fx.err("edit_file", edit("let d", "x")).await;
    assert!(
        msg.contains("old_string was not found in \"src.rs\""),
        "{msg}"
    );
    let msg = fx.err("edit_file", edit("", "x")).await;
    assert!(msg.contains("old_string is empty"), "{msg}");
    let msg = fx.err("edit_file", edit("let a", "let a")).await;
    assert!(msg.contains("identical"), "{msg}");

    let mut all = edit("= 1;", "= 9;");
    all["replace_all"] = json!(true);
    let msg = fx.ok("edit_file", all).await;
    assert_eq!(msg, "replaced 2 occurrences in src.rs");
    assert_eq!(fx.read("src.rs"), "let a = 9;\nlet b = 9;\nlet c = 3;\n");

    let msg = fx
        .err(
            "edit_file",
            json!({"path": "nope.rs", "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(msg.contains("cannot edit \"nope.rs\""), "{msg}");
}

#[tokio::test]
async fn edit_file_refuses_non_utf8_and_binary() {
    let fx = Fixture::new();
    std::fs::write(fx.root().join("latin1.txt"), b"caf\xe9 au lait").unwrap();
    let args = json!({"path": "latin1.txt", "old_string": "au", "new_string": "with"});
    let msg = fx.err("edit_file", args).await;
    assert!(msg.contains("not valid UTF-8"), "{msg}");
    assert_eq!(
        std::fs::read(fx.root().join("latin1.txt")).unwrap(),
        b"caf\xe9 au lait"
    );
}

#[tokio::test]
async fn list_directory_marks_directories_and_sorts() {
    let fx = Fixture::new();
    fx.write("b.txt", "");
    fx.write("a.txt", "");
    fx.write("sub/inner.txt", "");
    fx.write(".hidden", "");
    let listing = fx.ok("list_directory", json!({"path": "."})).await;
    assert_eq!(listing, ".hidden\na.txt\nb.txt\nsub/\n");
    assert_eq!(
        fx.ok("list_directory", json!({"path": "sub"})).await,
        "inner.txt\n"
    );
    std::fs::create_dir(fx.root().join("empty")).unwrap();
    assert_eq!(
        fx.ok("list_directory", json!({"path": "empty"})).await,
        "empty is empty\n"
    );
    let msg = fx.err("list_directory", json!({"path": "a.txt"})).await;
    assert!(msg.contains("cannot list \"a.txt\""), "{msg}");
}
