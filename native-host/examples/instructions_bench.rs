//! Times loading project instructions from disk (the folder walk, every read through the
//! confined reader, imports, rules, the budget), warm (after one untimed pass): builds a
//! temporary git repository 10 folders deep with a `CLAUDE.md` and a `CLAUDE.local.md` in each
//! folder, each importing a chain of three docs files, plus rule files (half with `paths:`),
//! FILES files in all, resolves it R times and prints the median and the worst in JSON.
//!
//! ```text
//! cargo run --release -p agentwire-host --example instructions_bench [FILES] [ROUNDS]
//! ```
//! Defaults: 200 files, 30 rounds. The budget is 20 ms for 200 files.

use agentwire_host::extensions::instructions::{Lookup, SessionInstructions};
use std::path::Path;
use std::time::{Duration, Instant};

/// Folders from the root down to the working directory.
const DEPTH: usize = 10;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create a folder");
    std::fs::write(path, text).expect("write a file");
}

fn main() {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (files, rounds) = (arg(1, 200).max(2 * DEPTH * 4), arg(2, 30).max(1));
    let base = tempfile::tempdir().expect("a temporary folder");
    let root = std::fs::canonicalize(base.path())
        .expect("resolve")
        .join("repo");
    std::fs::create_dir_all(root.join(".git")).expect("create .git");
    let paragraph = "Prefer small functions; name things for what they do. ".repeat(4);
    let mut dir = root.clone();
    let mut written = 0;
    for level in 0..DEPTH {
        for name in ["CLAUDE.md", "CLAUDE.local.md"] {
            let stem = format!("docs/{level}-{}", name.trim_end_matches(".md"));
            write(
                &dir.join(name),
                &format!("# Level {level}\n{paragraph}\nSee @{stem}-a.md.\n```\n@not/an/import.md\n```\n"),
            );
            write(
                &dir.join(format!("{stem}-a.md")),
                &format!(
                    "{paragraph} @{}-b.md",
                    stem.rsplit('/').next().unwrap_or("")
                ),
            );
            write(
                &dir.join(format!("{stem}-b.md")),
                &format!(
                    "{paragraph} @{}-c.md",
                    stem.rsplit('/').next().unwrap_or("")
                ),
            );
            write(&dir.join(format!("{stem}-c.md")), &paragraph);
            written += 4;
        }
        if level + 1 < DEPTH {
            dir = dir.join(format!("level{level}"));
        }
    }
    let rules = files - written;
    for i in 0..rules {
        let text = if i % 2 == 0 {
            format!("Rule {i}: {paragraph}")
        } else {
            format!("---\npaths: \"src/**/*.{{ts,tsx}}, lib/{i}/*.rs\"\n---\nRule {i}: {paragraph}")
        };
        write(
            &root.join(format!(".claude/rules/group{}/rule-{i:03}.md", i % 5)),
            &text,
        );
    }
    let lookup = Lookup {
        cwd: dir,
        home: None,
        config_home: None,
        trust_flag: false,
        budget_bytes: agentwire::instructions::DEFAULT_BUDGET_BYTES,
    };
    let once = || {
        let started = Instant::now();
        let loaded = SessionInstructions::load(lookup.clone());
        let elapsed = started.elapsed();
        assert_eq!(
            loaded.found.files.len(),
            files,
            "{:?}",
            loaded.found.warnings
        );
        assert!(
            loaded.found.warnings.is_empty(),
            "{:?}",
            loaded.found.warnings
        );
        (
            elapsed,
            loaded.found.text.len(),
            loaded.found.truncated_bytes,
        )
    };
    let (_, bytes, cut) = once();
    let mut times: Vec<Duration> = (0..rounds).map(|_| once().0).collect();
    times.sort();
    let ms = |d: Duration| (d.as_secs_f64() * 1e5).round() / 100.0;
    println!(
        "{{\"files\": {files}, \"rounds\": {rounds}, \"block_bytes\": {bytes}, \
         \"truncated_bytes\": {cut}, \"median_ms\": {}, \"max_ms\": {}}}",
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
}
