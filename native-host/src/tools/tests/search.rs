//! glob and grep behaviour.

use super::Fixture;
use serde_json::json;

fn project() -> Fixture {
    let fx = Fixture::new();
    fx.write("main.rs", "fn main() {\n    helper(1);\n}\n");
    fx.write(
        "src/lib.rs",
        "pub fn helper(x: u8) -> u8 {\n    x + 1 // TODO tidy\n}\n",
    );
    fx.write("src/app.ts", "export function Helper() { return 1 }\n");
    fx.write("src/deep/x.js", "// todo: later\n");
    fx.write("notes.md", "TODO write docs\n");
    fx.write(".gitignore", "target/\n*.log\n");
    fx.write("target/debug/gen.rs", "fn generated() {} // TODO\n");
    fx.write("run.log", "TODO in a log\n");
    fx.write(".hidden/secret.rs", "fn hidden() {} // TODO\n");
    std::fs::write(fx.root().join("blob.bin"), b"TODO\0\x01binary").unwrap();
    fx
}

#[tokio::test]
async fn glob_patterns_separators_and_braces() {
    let fx = project();
    assert_eq!(fx.ok("glob", json!({"pattern": "*.rs"})).await, "main.rs\n");
    assert_eq!(
        fx.ok("glob", json!({"pattern": "**/*.rs"})).await,
        "main.rs\nsrc/lib.rs\n",
        "recursive; .gitignore'd target/ and hidden dirs skipped"
    );
    assert_eq!(
        fx.ok("glob", json!({"pattern": "src/*.{js,ts}"})).await,
        "src/app.ts\n",
        "'*' does not cross '/'"
    );
    assert_eq!(
        fx.ok("glob", json!({"pattern": "src/**/*.{js,ts}"})).await,
        "src/app.ts\nsrc/deep/x.js\n"
    );
    assert_eq!(
        fx.ok("glob", json!({"pattern": "*.js", "path": "src/deep"}))
            .await,
        "src/deep/x.js\n",
        "relative to path, shown relative to the workspace"
    );
    assert_eq!(
        fx.ok("glob", json!({"pattern": "./*.md"})).await,
        "notes.md\n"
    );
    let none = fx.ok("glob", json!({"pattern": "*.py"})).await;
    assert_eq!(none, "no files match \"*.py\" under .");
    let msg = fx.err("glob", json!({"pattern": "src/[a"})).await;
    assert!(msg.contains("bad glob pattern \"src/[a\""), "{msg}");
    let msg = fx
        .err("glob", json!({"pattern": "*", "path": "main.rs"}))
        .await;
    assert!(msg.contains("is not a directory"), "{msg}");
    let msg = fx.err("glob", json!({"pattern": "/etc/*"})).await;
    assert!(msg.contains("is absolute"), "{msg}");
}

#[tokio::test]
async fn glob_caps_results() {
    let fx = Fixture::new();
    for i in 0..1100 {
        fx.write(&format!("many/f{i:04}.txt"), "");
    }
    let out = fx.ok("glob", json!({"pattern": "**/*.txt"})).await;
    assert!(
        out.starts_with("many/f0000.txt\nmany/f0001.txt\n"),
        "sorted"
    );
    assert!(
        out.ends_with("[1100 files matched; list cut, narrow the pattern]\n"),
        "{}",
        &out[out.len() - 200..]
    );
    assert!(out.lines().count() <= 1001);
}

#[tokio::test]
async fn grep_regex_case_glob_and_ignore_files() {
    let fx = project();
    let out = fx.ok("grep", json!({"pattern": r"fn \w+\("})).await;
    assert_eq!(
        out,
        "main.rs:1:fn main() {\nsrc/lib.rs:1:pub fn helper(x: u8) -> u8 {\n[2 matching lines in 2 files]\n"
    );
    let out = fx.ok("grep", json!({"pattern": "todo"})).await;
    assert_eq!(
        out,
        "src/deep/x.js:1:// todo: later\n[1 matching lines in 1 files]\n"
    );
    let out = fx
        .ok("grep", json!({"pattern": "todo", "case_insensitive": true}))
        .await;
    assert!(out.contains("notes.md:1:TODO write docs"), "{out}");
    assert!(out.contains("src/lib.rs:2:    x + 1 // TODO tidy"), "{out}");
    assert!(
        !out.contains("target/") && !out.contains("run.log"),
        ".gitignore: {out}"
    );
    assert!(
        !out.contains(".hidden") && !out.contains("blob.bin"),
        "{out}"
    );
    let out = fx
        .ok("grep", json!({"pattern": "TODO", "glob": "*.rs"}))
        .await;
    assert_eq!(
        out,
        "src/lib.rs:2:    x + 1 // TODO tidy\n[1 matching lines in 1 files]\n"
    );
    let out = fx
        .ok("grep", json!({"pattern": "helper", "path": "main.rs"}))
        .await;
    assert_eq!(
        out,
        "main.rs:2:    helper(1);\n[1 matching lines in 1 files]\n"
    );
    let out = fx.ok("grep", json!({"pattern": "zzz"})).await;
    assert_eq!(out, "no matches for \"zzz\" under .");
    let msg = fx.err("grep", json!({"pattern": "fn ("})).await;
    assert!(msg.contains("bad regular expression \"fn (\""), "{msg}");
    let msg = fx
        .err("grep", json!({"pattern": "x", "path": "nope"}))
        .await;
    assert!(msg.contains("\"nope\" does not exist"), "{msg}");
}

#[tokio::test]
async fn grep_caps_matches() {
    let fx = Fixture::new();
    let body: String = (0..500).map(|i| format!("match {i}\n")).collect();
    fx.write("big.txt", &body);
    let out = fx
        .ok("grep", json!({"pattern": "match", "max_results": 5}))
        .await;
    assert_eq!(out.lines().count(), 6, "{out}");
    assert!(out.ends_with("[results cut at 5 matching lines; narrow the pattern, path or glob]\n"));
    let out = fx.ok("grep", json!({"pattern": "match"})).await;
    assert_eq!(
        out.lines().filter(|l| l.starts_with("big.txt:")).count(),
        200,
        "default cap"
    );
}
