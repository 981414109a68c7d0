//! Times discovery of skills and commands (finding, reading, listing bundled files, and
//! parsing into the core's skill set), warm (after one untimed pass, so the file system
//! cache holds the tree): builds a temporary home with N skills (each with two bundled files)
//! and M commands, runs discovery R times and prints the median and the worst in JSON.
//!
//! ```text
//! cargo run --release -p agentwire-host --example discovery_bench [SKILLS] [COMMANDS] [ROUNDS]
//! ```
//! Defaults: 50 skills, 20 commands, 30 rounds. The budget is 20 ms for 50 + 20.

use agentwire_host::extensions::discover::{discover, Places};
use agentwire_host::extensions::skillset::build_from;
use std::time::{Duration, Instant};

fn main() {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (skills, commands, rounds) = (arg(1, 50), arg(2, 20), arg(3, 30).max(1));
    let home = tempfile::tempdir().expect("a temporary home");
    for i in 0..skills {
        let dir = home.path().join(format!(".claude/skills/skill-{i:03}"));
        std::fs::create_dir_all(dir.join("reference")).expect("create a skill folder");
        let body = format!(
            "---\nname: skill-{i:03}\ndescription: Skill number {i}, for benchmarking discovery\n\
             allowed-tools: Read Grep\n---\n# Skill {i}\n\n{}",
            "Follow these steps carefully.\n".repeat(100)
        );
        std::fs::write(dir.join("SKILL.md"), body).expect("write SKILL.md");
        std::fs::write(dir.join("reference/guide.md"), "guide").expect("write a file");
        std::fs::write(dir.join("script.py"), "print(1)").expect("write a file");
    }
    let commands_dir = home.path().join(".claude/commands");
    std::fs::create_dir_all(&commands_dir).expect("create commands/");
    for i in 0..commands {
        let text = format!("---\ndescription: Command {i}\nargument-hint: [x]\n---\nDo $0.\n");
        std::fs::write(commands_dir.join(format!("cmd-{i:03}.md")), text).expect("write");
    }
    let places = Places {
        home: Some(home.path().to_path_buf()),
        ..Places::default()
    };
    let once = || {
        let started = Instant::now();
        let found = discover(&places);
        assert_eq!(found.skills.len(), skills);
        assert_eq!(found.commands.len(), commands);
        let parsed = build_from(&found, &[], false);
        assert_eq!(parsed.set.len(), skills + commands, "{:?}", parsed.errors);
        started.elapsed()
    };
    once();
    let mut times: Vec<Duration> = (0..rounds).map(|_| once()).collect();
    times.sort();
    let ms = |d: Duration| (d.as_secs_f64() * 1e5).round() / 100.0;
    println!(
        "{{\"skills\": {skills}, \"commands\": {commands}, \"rounds\": {rounds}, \
         \"median_ms\": {}, \"max_ms\": {}}}",
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
}
