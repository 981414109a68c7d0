//! Project instructions end to end: a real tree of CLAUDE.md/AGENTS.md files with imports and
//! rules on disk, listed by `agentwire instructions`, and the exact bytes the model receives.

mod common;
#[path = "fixtures/openai/replay.rs"]
mod replay;

use common::run_cli;
use replay::{ReplayServer, TEST_KEY};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const PROMPT: &str = "Read the TypeScript file.";

/// A home folder and a git repository with nested instruction files.
struct Tree {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (home, repo) = (base.join("home"), base.join("repo"));
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        write(&home.join(".claude/CLAUDE.md"), "USER: answer briefly.");
        write(
            &home.join(".ssh/id_rsa"),
            "-----BEGIN OPENSSH PRIVATE KEY----- SECRETKEY",
        );
        write(
            &repo.join("CLAUDE.md"),
            "ROOT: see @docs/conventions.md\n<!-- MAINTAINER NOTE -->\n`@not-an-import.md`\n",
        );
        write(
            &repo.join("docs/conventions.md"),
            "CONVENTIONS: @glossary.md",
        );
        write(
            &repo.join("docs/glossary.md"),
            "GLOSSARY: a wire is a pipe.",
        );
        write(
            &repo.join("pkg/AGENTS.md"),
            "PKG: run npm test. @~/.ssh/id_rsa",
        );
        write(&repo.join("pkg/CLAUDE.local.md"), "LOCAL: my sandbox.");
        write(
            &repo.join(".claude/rules/typescript.md"),
            "---\npaths: \"pkg/src/**/*.ts\"\n---\nTS-RULE: no any.",
        );
        write(&repo.join(".claude/rules/always.md"), "ALWAYS: be kind.");
        write(&repo.join("pkg/src/a.ts"), "export const a = 1;\n");
        Tree {
            _dir: dir,
            home,
            repo,
        }
    }

    fn cwd(&self) -> PathBuf {
        self.repo.join("pkg")
    }

    fn env(&self) -> Vec<(String, String)> {
        vec![
            ("HOME".into(), self.home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                self.home.join(".config").display().to_string(),
            ),
        ]
    }

    fn run(&self, args: &[&str], extra: &[(&str, &str)]) -> common::CliOutput {
        let owned = self.env();
        let mut env: Vec<(&str, &str)> = owned
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.extend_from_slice(extra);
        run_cli(&self.cwd(), args, &env)
    }
}

/// A scenario file: the prompt reads `src/a.ts`, then answers.
fn scenarios(dir: &Path) -> PathBuf {
    let call = json!({"json": {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function":
        {"name": "read_file", "arguments": "{\"path\":\"src/a.ts\"}"}}]}}]}});
    let done = json!({"json": {"id": "c2", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
        "content": "It exports a."}}]}});
    let path = dir.join("scenarios.json");
    std::fs::write(
        &path,
        json!({"scenarios": {PROMPT: [call, done]}}).to_string(),
    )
    .unwrap();
    path
}

#[test]
fn instructions_lists_the_tree_in_order_with_the_same_bytes_every_run() {
    let tree = Tree::new();
    let out = tree.run(&["instructions", "--json"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let record = out.json();
    let shown: Vec<&str> = record["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["shown"].as_str().unwrap())
        .collect();
    assert_eq!(
        shown,
        [
            "~/.claude/CLAUDE.md",
            "CLAUDE.md",
            "docs/conventions.md",
            "docs/glossary.md",
            "pkg/AGENTS.md",
            "pkg/CLAUDE.local.md",
            ".claude/rules/always.md",
            ".claude/rules/typescript.md"
        ]
    );
    assert_eq!(record["files"][3]["importedBy"], "docs/conventions.md");
    assert_eq!(record["files"][7]["paths"], json!(["pkg/src/**/*.ts"]));
    assert_eq!(record["trusted"], false);
    let text = record["text"].as_str().unwrap();
    for absent in ["SECRETKEY", "MAINTAINER NOTE", "TS-RULE"] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
    let warnings = record["warnings"].to_string();
    assert!(
        warnings.contains("pkg/AGENTS.md: import @~/.ssh/id_rsa not read"),
        "{warnings}"
    );
    for _ in 0..2 {
        assert_eq!(
            tree.run(&["instructions", "--json"], &[]).stdout,
            out.stdout
        );
    }
    let human = tree.run(&["instructions"], &[]);
    assert!(
        human
            .stdout
            .contains("  docs/glossary.md  27 bytes  (imported by docs/conventions.md)"),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("rule for pkg/src/**/*.ts, joins when a matching file is used"),
        "{}",
        human.stdout
    );
    for skip in ["--bare", "--no-instructions"] {
        let out = tree.run(&["instructions", skip], &[]);
        assert_eq!(out.stdout.trim(), format!("instructions: skipped ({skip})"));
    }
}

#[tokio::test]
async fn the_model_gets_the_same_bytes_every_run_and_the_prefix_holds_across_turns() {
    let tree = Tree::new();
    let server = ReplayServer::start_on(scenarios(&tree.home)).await;
    let base_url = server.base_url.clone();
    let mut runs: Vec<Vec<Value>> = Vec::new();
    for _ in 0..2 {
        server.reset().await;
        let (tree_env, url) = (tree.env(), base_url.clone());
        let cwd = tree.cwd();
        let out = tokio::task::spawn_blocking(move || {
            let mut env: Vec<(&str, &str)> = tree_env
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            env.extend([
                ("OPENAI_API_KEY", TEST_KEY),
                ("OPENAI_BASE_URL", url.as_str()),
            ]);
            run_cli(&cwd, &["run", "--allow", "read_file", PROMPT], &env)
        })
        .await
        .unwrap();
        assert_eq!(
            out.code, 0,
            "stdout: {}\nstderr: {}",
            out.stdout, out.stderr
        );
        assert!(
            out.stderr.contains("import @~/.ssh/id_rsa not read"),
            "{}",
            out.stderr
        );
        runs.push(server.requests().await);
    }
    let raw = |run: usize, i: usize| runs[run][i]["raw"].as_str().unwrap().to_owned();
    assert_eq!(runs[0].len(), 2);
    assert_eq!(
        raw(0, 0),
        raw(1, 0),
        "the first request differs between runs"
    );
    assert_eq!(
        raw(0, 1),
        raw(1, 1),
        "the second request differs between runs"
    );

    let first = &runs[0][0]["body"];
    let second = &runs[0][1]["body"];
    let system = first["messages"][0]["content"].as_str().unwrap();
    let order = [
        "USER:",
        "ROOT:",
        "CONVENTIONS:",
        "GLOSSARY:",
        "PKG:",
        "LOCAL:",
        "ALWAYS:",
    ];
    let mut at = 0;
    for text in order {
        at += system[at..]
            .find(text)
            .unwrap_or_else(|| panic!("{text} out of order in {system}"));
    }
    for absent in ["SECRETKEY", "MAINTAINER NOTE", "TS-RULE"] {
        assert!(!system.contains(absent), "{absent}");
    }
    // Across turns: the tools and every earlier message are byte-identical; the rule joined
    // the tool result, after the prefix.
    assert_eq!(first["tools"].to_string(), second["tools"].to_string());
    let earlier = first["messages"].as_array().unwrap();
    assert_eq!(
        earlier[..],
        second["messages"].as_array().unwrap()[..earlier.len()]
    );
    let cut = raw(0, 0).find(PROMPT).unwrap();
    assert_eq!(
        raw(0, 0)[..cut],
        raw(0, 1)[..cut],
        "the encoded prefix changed between turns"
    );
    let tool = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    let content = tool["content"].to_string();
    assert!(
        content.contains("export const a = 1;") && content.contains("TS-RULE: no any."),
        "{content}"
    );
    assert!(!raw(0, 1).contains("SECRETKEY"));

    // Skipped: the plain default prompt.
    server.reset().await;
    let (tree_env, url, cwd) = (tree.env(), base_url.clone(), tree.cwd());
    let out = tokio::task::spawn_blocking(move || {
        let mut env: Vec<(&str, &str)> = tree_env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.extend([
            ("OPENAI_API_KEY", TEST_KEY),
            ("OPENAI_BASE_URL", url.as_str()),
        ]);
        run_cli(
            &cwd,
            &["run", "--no-instructions", "--allow", "read_file", PROMPT],
            &env,
        )
    })
    .await
    .unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let requests = server.requests().await;
    let system = requests[0]["body"]["messages"][0]["content"]
        .as_str()
        .unwrap();
    assert_eq!(system, agentwire::agent::DEFAULT_SYSTEM_PROMPT);
    assert!(!requests[1]["raw"].as_str().unwrap().contains("TS-RULE"));
}
