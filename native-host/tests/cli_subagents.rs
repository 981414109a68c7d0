//! Subagents at the CLI, offline: the mock model dispatches children through the `Agent` tool
//! against the built-in mock GitHub server; `agents list` shows what a session offers.

mod common;

use common::Project;
use serde_json::{json, Value};
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const TWO: &str = "use subagents: list issues in vercel/ai; list pull requests in facebook/react";

#[test]
fn a_json_run_dispatches_children_whose_events_and_audit_lines_name_them() {
    let home = tempfile::tempdir().unwrap();
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let audit = project.path().join("audit.jsonl");
    let home_dir = home.path().display().to_string();
    let out = project.run_with_env(
        &[
            "--json",
            "--audit",
            &audit.display().to_string(),
            "run",
            TWO,
        ],
        &[("HOME", &home_dir)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let dispatched: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_start" && e["name"] == "Agent" && e.get("agent").is_none())
        .collect();
    assert_eq!(dispatched.len(), 2, "{}", out.stdout);
    for call in &dispatched {
        let id = &call["id"];
        let child: Vec<&Value> = events
            .iter()
            .filter(|e| e["parent_tool_use_id"] == *id)
            .collect();
        assert!(child.iter().all(|e| e["agent"] == "general-purpose"));
        let kinds: Vec<&str> = child.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "step_start",
                "tool_start",
                "tool_end",
                "step_start",
                "model_text",
                "done"
            ],
            "{}",
            out.stdout
        );
    }
    let done: Vec<&Value> = events.iter().filter(|e| e["type"] == "done").collect();
    assert_eq!(done.len(), 3, "two children and the run");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "done");
    assert!(last.get("agent").is_none());
    let answer = last["answer"].as_str().unwrap();
    assert!(
        answer.contains("vercel/ai") && answer.contains("facebook/react"),
        "{answer}"
    );

    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let child_lines: Vec<&Value> = lines
        .iter()
        .filter(|l| l["origin"] == "agent:general-purpose")
        .collect();
    assert_eq!(child_lines.len(), 2, "{lines:?}");
    for line in child_lines {
        assert!(
            dispatched
                .iter()
                .any(|c| c["id"] == line["parent_tool_use_id"]),
            "{line}"
        );
    }
}

#[test]
fn a_human_run_shows_a_progress_line_per_child() {
    let home = tempfile::tempdir().unwrap();
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let home_dir = home.path().display().to_string();
    let out = project.run_with_env(&["run", TWO], &[("HOME", &home_dir)]);
    assert_eq!(out.code, 0, "{out:?}");
    let progress: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("  ↳ general-purpose ["))
        .collect();
    assert!(
        progress
            .iter()
            .any(|l| l.ends_with("→ mcp__github__list_issues")),
        "{}",
        out.stdout
    );
    assert!(
        progress
            .iter()
            .any(|l| l.ends_with("→ mcp__github__list_pull_requests")),
        "{}",
        out.stdout
    );
    assert_eq!(
        progress
            .iter()
            .filter(|l| l.contains("done in 2 steps"))
            .count(),
        2,
        "{}",
        out.stdout
    );
}

#[test]
fn agents_list_shows_user_codex_and_trusted_project_agents() {
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".claude/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\npermissionMode: bypassPermissions\n---\nReview.\n",
    );
    write(
        &home.path().join(".codex/agents/explorer.toml"),
        "name = \"explorer\"\ndescription = \"Explores.\"\nsandbox_mode = \"read-only\"\n",
    );
    let project = Project::new();
    write(
        &project.path().join(".claude/agents/tester.md"),
        "---\ndescription: Tests.\n---\n",
    );
    let home_dir = home.path().display().to_string();
    let env = [("HOME", home_dir.as_str())];
    let untrusted = project.run_with_env(&["--json", "agents", "list"], &env);
    assert_eq!(untrusted.code, 0, "{untrusted:?}");
    let listed = untrusted.json();
    let names: Vec<&str> = listed["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["explorer", "general-purpose", "reviewer"]);
    assert!(
        listed["notes"][0].as_str().unwrap().contains("not trusted"),
        "{listed}"
    );
    let reviewer = &listed["agents"][2];
    assert_eq!(reviewer["tools"], json!(["Read", "Grep"]));
    assert_eq!(reviewer["permissionMode"], "inherit");
    assert!(reviewer["warnings"][0]
        .as_str()
        .unwrap()
        .contains("more than its parent"));
    assert_eq!(listed["agents"][0]["permissionMode"], "plan");

    let trusted = project.run_with_env(&["--json", "--trust-workspace", "agents", "list"], &env);
    let names: Vec<String> = trusted.json()["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"tester".to_owned()), "{names:?}");

    let human = project.run_with_env(&["agents", "list"], &env);
    assert!(
        human.stdout.contains("reviewer (user) "),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("  tools: Read, Grep; model: inherit; permission mode: inherit"),
        "{}",
        human.stdout
    );
}

/// Real agent files and a real skill that dispatches parallel agents, unmodified.
fn superpowers() -> String {
    common::repo_root()
        .join("tests/fixtures/ext/superpowers-agents")
        .display()
        .to_string()
}

#[test]
fn real_plugin_agents_and_a_dispatching_skill_load_unmodified_and_run() {
    let home = tempfile::tempdir().unwrap();
    let home_dir = home.path().display().to_string();
    let env = [("HOME", home_dir.as_str())];
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let plugin = superpowers();
    let listed = project
        .run_with_env(&["--json", "--plugin-dir", &plugin, "agents", "list"], &env)
        .json();
    assert_eq!(listed["errors"], json!([]), "{listed}");
    let names: Vec<&str> = listed["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "general-purpose",
            "superpowers-prepared:code-reviewer",
            "superpowers-prepared:red-team"
        ]
    );
    let reviewer = &listed["agents"][1];
    assert_eq!(reviewer["source"], "plugin:superpowers-prepared");
    assert_eq!(reviewer["model"], Value::Null, "model: inherit");
    assert!(reviewer["instructionsChars"].as_u64().unwrap() > 500);

    let skills = project
        .run_with_env(&["--json", "--plugin-dir", &plugin, "skills", "list"], &env)
        .json();
    let skill = skills["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "dispatching-parallel-agents")
        .expect("the skill loads");
    assert_eq!(skill["warnings"], json!([]), "{skill}");

    // The model picks the plugin's agent by name; the child runs on its instructions.
    let prompt = "use the superpowers-prepared:code-reviewer subagent: list issues in vercel/ai";
    let out = project.run_with_env(&["--json", "--plugin-dir", &plugin, "run", prompt], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let child: Vec<&Value> = events.iter().filter(|e| e.get("agent").is_some()).collect();
    assert!(!child.is_empty(), "{}", out.stdout);
    assert!(child
        .iter()
        .all(|e| e["agent"] == "superpowers-prepared:code-reviewer"));
    assert!(child
        .iter()
        .any(|e| e["type"] == "tool_start" && e["name"] == "mcp__github__list_issues"));
}

#[test]
fn max_agent_depth_zero_removes_the_agent_tool() {
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let names = |out: &common::CliOutput| -> Vec<String> {
        let listed = out.json();
        let tools = listed["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let with = project.run(&["tools", "--json"]);
    assert!(
        names(&with).contains(&"Agent".to_owned()),
        "{}",
        with.stdout
    );
    let without = project.run(&["--max-agent-depth", "0", "tools", "--json"]);
    assert!(
        !names(&without).contains(&"Agent".to_owned()),
        "{}",
        without.stdout
    );
    assert!(!names(&without).is_empty());
}

#[test]
fn a_definitions_model_alias_resolves_and_an_unknown_one_is_named_with_its_file() {
    let home = tempfile::tempdir().unwrap();
    let typo = home.path().join(".claude/agents/typo.md");
    write(
        &home.path().join(".claude/agents/quick.md"),
        "---\nname: quick\ndescription: Quick lookups.\nmodel: haiku\n---\nLook it up.\n",
    );
    write(
        &typo,
        "---\nname: typo\ndescription: Misnamed model.\nmodel: sonet\n---\nLook.\n",
    );
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let home_dir = home.path().display().to_string();
    let env = [("HOME", home_dir.as_str())];
    let listed = project.run_with_env(&["--json", "agents", "list"], &env);
    assert_eq!(listed.code, 0, "{listed:?}");
    let errors = listed.json()["errors"].clone();
    let expected = format!(
        "agent typo: {}: unknown model \"sonet\": use inherit, opus, sonnet, haiku, or a full \
         model id",
        typo.display()
    );
    assert_eq!(
        errors,
        json!([expected]),
        "only the unknown name is an error"
    );

    // `haiku` on the session's (mock) model runs; `sonet` starts no child and says why.
    let prompt = "use the quick subagents: list issues in vercel/ai";
    let out = project.run_with_env(&["--json", "run", prompt], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    assert!(
        events
            .iter()
            .any(|e| e["agent"] == "quick" && e["type"] == "done"),
        "{}",
        out.stdout
    );
    let prompt = "use the typo subagents: list issues in vercel/ai";
    let out = project.run_with_env(&["--json", "run", prompt], &env);
    let end = out
        .ndjson()
        .into_iter()
        .find(|e| e["type"] == "tool_end" && e["name"] == "Agent")
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let output = end["output"].as_str().unwrap_or_default();
    assert!(
        output.contains(&format!("agent typo: {}: unknown model", typo.display())),
        "{end}"
    );
    assert!(
        !out.ndjson().iter().any(|e| e["agent"] == "typo"),
        "no child ran: {}",
        out.stdout
    );
}

#[test]
fn each_childs_transcript_is_kept_beside_the_session_and_sessions_show_shows_it() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let (home_dir, state_dir) = (
        home.path().display().to_string(),
        state.path().display().to_string(),
    );
    let env = [
        ("HOME", home_dir.as_str()),
        ("AGENTWIRE_STATE_DIR", state_dir.as_str()),
    ];
    let out = project.run_with_env(&["--json", "run", TWO], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let listed = project.run_with_env(&["--json", "sessions", "list"], &env);
    let sessions: Vec<Value> = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert_eq!(
        sessions.len(),
        1,
        "children are not sessions: {}",
        listed.stdout
    );
    let id = sessions[0]["id"].as_str().unwrap().to_owned();
    let shown = project.run_with_env(&["--json", "sessions", "show", &id], &env);
    assert_eq!(shown.code, 0, "{shown:?}");
    let entries = shown.ndjson();
    // Each of the parent's results names its child's file, which holds that child's
    // conversation; `sessions show` follows the session with each child's entries.
    let results: Vec<&Value> = entries
        .iter()
        .filter(|e| {
            e["type"] == "tool_result"
                && e["name"] == "Agent"
                && e.get("agent_transcript").is_none()
        })
        .collect();
    assert_eq!(results.len(), 2, "{}", shown.stdout);
    let mut files = Vec::new();
    for result in &results {
        let content = result["content"].as_str().unwrap();
        let at = content
            .rfind("transcript ")
            .unwrap_or_else(|| panic!("{result}"))
            + "transcript ".len();
        let file = content[at..].trim_end_matches(']').to_owned();
        let path = std::path::Path::new(&file);
        assert!(path.starts_with(state.path()), "{content}");
        assert!(
            path.parent()
                .unwrap()
                .to_string_lossy()
                .ends_with(&format!("{id}.agents")),
            "{content}"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let call = result["call_id"].as_str().unwrap();
        assert!(text.contains(&format!("for call {call}")), "{text}");
        assert!(text.contains("mcp__github__list_"), "{text}");
        let child: Vec<&Value> = entries
            .iter()
            .filter(|e| e["agent_transcript"] == file.as_str())
            .collect();
        assert!(child.len() >= 4, "{}", shown.stdout);
        assert_eq!(child[0]["type"], "notice");
        files.push(file);
    }
    assert_ne!(files[0], files[1]);
    let human = project.run_with_env(&["sessions", "show", &id], &env);
    assert!(
        human.stdout.contains(&format!("── {}", files[0])),
        "{}",
        human.stdout
    );
}

#[test]
fn an_agent_files_skills_are_preloaded_from_the_users_skills() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".claude/skills/triage/SKILL.md"),
        "---\nname: triage\ndescription: How to triage.\n---\nTRIAGE-RULES: label every issue.\n",
    );
    write(
        &home.path().join(".claude/agents/triager.md"),
        "---\nname: triager\ndescription: Triages.\nskills:\n  - triage\n---\nTriage.\n",
    );
    let mut project = Project::new();
    project.entry("github", json!({"type": "mock"}));
    let (home_dir, state_dir) = (
        home.path().display().to_string(),
        state.path().display().to_string(),
    );
    let env = [
        ("HOME", home_dir.as_str()),
        ("AGENTWIRE_STATE_DIR", state_dir.as_str()),
    ];
    let prompt = "use the triager subagents: list issues in vercel/ai";
    let out = project.run_with_env(&["--json", "run", prompt], &env);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    assert!(
        events
            .iter()
            .any(|e| e["agent"] == "triager" && e["type"] == "done"),
        "{}",
        out.stdout
    );
    // The child's first message, as its transcript keeps it: the task, then the skill.
    let listed = project.run_with_env(&["--json", "sessions", "list"], &env);
    let sessions: Vec<Value> = serde_json::from_str(listed.stdout.trim()).unwrap();
    let id = sessions[0]["id"].as_str().unwrap();
    let shown = project.run_with_env(&["--json", "sessions", "show", id], &env);
    let first = shown
        .ndjson()
        .into_iter()
        .find(|e| e.get("agent_transcript").is_some() && e["type"] == "user")
        .unwrap_or_else(|| panic!("{}", shown.stdout));
    let content = first["content"].as_str().unwrap();
    assert!(
        content.starts_with("list issues in vercel/ai\n\n"),
        "{content}"
    );
    assert!(
        content.contains("TRIAGE-RULES: label every issue."),
        "{content}"
    );
}
