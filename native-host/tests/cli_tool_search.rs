//! Deferred tool loading at the CLI, as real processes: `--tool-search`, its threshold and
//! context window, `AGENTWIRE_TOOL_SEARCH`, `.mcp.json`'s `defer`/`alwaysLoad`, what `tools`,
//! `tools search` and `mcp list` show, and the offline run through the bridge.

mod common;

use common::{agentwire_bin, CliOutput, Project};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// A project with the built-in mock GitHub server as `github` (11 tools, ~1,350 estimated
/// tokens: below the default threshold of 3,000).
fn mock_project(extra: Value) -> Project {
    let mut entry = json!({"type": "mock"});
    if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
        entry.extend(extra);
    }
    let mut project = Project::new();
    project.entry("github", entry);
    project
}

/// `tools --json` → `(name, loading)` of every tool, after checking every entry's estimate.
fn loadings(out: &CliOutput) -> Vec<(String, String)> {
    assert_eq!(out.code, 0, "{out:?}");
    let listing = out.json();
    let tools = listing["tools"].as_array().expect("a tools array");
    for tool in tools {
        let tokens = tool["estimatedTokens"].as_u64().expect("estimatedTokens");
        let bytes = tool["description"].as_str().unwrap().len() as u64;
        assert!(tokens > bytes / 5, "{tool}");
    }
    tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["loading"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn deferred(list: &[(String, String)]) -> Vec<&str> {
    list.iter()
        .filter(|(_, l)| l == "deferred")
        .map(|(n, _)| n.as_str())
        .collect()
}

const GITHUB_TOOLS: usize = 11;

#[test]
fn tools_json_shows_loading_under_every_way_of_choosing_the_mode() {
    let project = mock_project(json!({}));
    // Default auto: the mock server is below the threshold, so nothing is deferred.
    let list = loadings(&project.run(&["tools", "--json"]));
    assert!(list.len() > GITHUB_TOOLS);
    assert!(deferred(&list).is_empty(), "{list:?}");
    // `on`: every MCP tool is deferred, built-ins never.
    let on = loadings(&project.run(&["tools", "--json", "--tool-search", "on"]));
    let names = deferred(&on);
    assert_eq!(names.len(), GITHUB_TOOLS, "{on:?}");
    assert!(names.iter().all(|n| n.starts_with("mcp__github__")));
    // The environment, and flags over it.
    let env_on = project.run_with_env(&["tools", "--json"], &[("AGENTWIRE_TOOL_SEARCH", "on")]);
    assert_eq!(deferred(&loadings(&env_on)).len(), GITHUB_TOOLS);
    let env_low = project.run_with_env(
        &["tools", "--json"],
        &[("AGENTWIRE_TOOL_SEARCH", "auto:500")],
    );
    assert_eq!(deferred(&loadings(&env_low)).len(), GITHUB_TOOLS);
    let flag_off = project.run_with_env(
        &["tools", "--json", "--tool-search", "off"],
        &[("AGENTWIRE_TOOL_SEARCH", "on")],
    );
    assert!(deferred(&loadings(&flag_off)).is_empty());
    // A threshold below the server's size defers it; one above does not.
    let low = project.run(&["tools", "--json", "--tool-search-threshold", "500"]);
    assert_eq!(deferred(&loadings(&low)).len(), GITHUB_TOOLS);
    let high = project.run(&["tools", "--json", "--tool-search-threshold", "50000"]);
    assert!(deferred(&loadings(&high)).is_empty());
    // A small context window lowers auto's threshold to 10% of it (here 1,000 tokens).
    let small = project.run(&["tools", "--json", "--context-window", "10000"]);
    assert_eq!(deferred(&loadings(&small)).len(), GITHUB_TOOLS);
    let large = project.run(&["tools", "--json", "--context-window", "200000"]);
    assert!(deferred(&loadings(&large)).is_empty());
}

#[test]
fn mcp_json_defer_and_always_load_are_honoured() {
    let never = mock_project(json!({"defer": false}));
    let list = loadings(&never.run(&["tools", "--json", "--tool-search", "on"]));
    assert!(deferred(&list).is_empty(), "{list:?}");

    let always = mock_project(json!({"defer": true}));
    let list = loadings(&always.run(&["tools", "--json"]));
    assert_eq!(
        deferred(&list).len(),
        GITHUB_TOOLS,
        "below threshold, yet deferred"
    );

    let pinned = mock_project(json!({"alwaysLoad": ["get_issue"]}));
    let list = loadings(&pinned.run(&["tools", "--json", "--tool-search", "on"]));
    let names = deferred(&list);
    assert_eq!(names.len(), GITHUB_TOOLS - 1);
    assert!(!names.contains(&"mcp__github__get_issue"));
}

#[test]
fn tools_and_mcp_list_tell_people_what_is_deferred_and_what_it_costs() {
    let project = mock_project(json!({}));
    let out = project.run(&["tools", "--tool-search", "on"]);
    assert_eq!(out.code, 0, "{out:?}");
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("mcp__github__list_issues "))
        .expect("a list_issues line");
    assert!(line.contains("deferred") && line.contains('~'), "{line}");
    let summary = out.stdout.lines().last().unwrap();
    assert!(
        summary.starts_with(&format!(
            "{} tools, {GITHUB_TOOLS} deferred; ",
            // 9 built-in tools, `Agent` and the 2 resource tools (the mock offers resources).
            GITHUB_TOOLS + 12
        )) && summary.contains("the tools of a request: ~"),
        "{summary}"
    );
    let json = project
        .run(&["tools", "--json", "--tool-search", "on"])
        .json();
    let on_tokens = json["requestEstimatedTokens"].as_u64().unwrap();
    let off = project
        .run(&["tools", "--json", "--tool-search", "off"])
        .json();
    let off_tokens = off["requestEstimatedTokens"].as_u64().unwrap();
    assert!(on_tokens < off_tokens, "{on_tokens} vs {off_tokens}");

    let list = project.run(&["mcp", "list", "--json", "--tool-search", "on"]);
    assert_eq!(list.code, 0, "{list:?}");
    let github = &list.json()["servers"][0];
    assert_eq!(github["deferredTools"], GITHUB_TOOLS);
    let sum: u64 = github["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["estimatedTokens"].as_u64().unwrap())
        .sum();
    assert_eq!(github["estimatedTokens"], sum);
    let human = project.run(&["mcp", "list", "--tool-search", "on"]);
    let first = human.stdout.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("github: connected, {GITHUB_TOOLS} tools, ~"))
            && first.ends_with("tokens, deferred, MCP 2025-11-25 (legacy)"),
        "{first}"
    );
    let plain = project.run(&["mcp", "list"]);
    assert!(!plain.stdout.contains("deferred"), "{}", plain.stdout);
}

#[test]
fn tools_search_ranks_mcp_tools_with_scores() {
    let project = mock_project(json!({}));
    // Direct tools are searched too (nothing is deferred by default).
    let out = project.run(&[
        "tools",
        "search",
        "list the issues of a repository",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let results = out.json()["results"].as_array().unwrap().clone();
    assert_eq!(results[0]["name"], "mcp__github__list_issues");
    let scores: Vec<f64> = results
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(results.len() <= 10);
    assert!(results
        .iter()
        .all(|r| r["name"].as_str().unwrap().starts_with("mcp__")));
    // An exact name comes first; --limit caps the list; nothing matching says so.
    let out = project.run(&["tools", "search", "get_issue", "--json", "--limit", "2"]);
    let results = out.json()["results"].as_array().unwrap().clone();
    assert_eq!(results[0]["name"], "mcp__github__get_issue");
    assert!(results.len() <= 2);
    let out = project.run(&["tools", "search", "qwxzv", "--json"]);
    assert_eq!(out.json(), json!({"results": []}));
    let human = project.run(&["tools", "search", "qwxzv"]);
    assert_eq!(human.stdout, "no MCP tool matches \"qwxzv\"\n");
    let human = project.run(&["tools", "search", "get_issue", "--tool-search", "on"]);
    assert!(
        human
            .stdout
            .lines()
            .next()
            .unwrap()
            .ends_with("mcp__github__get_issue  (deferred)"),
        "{}",
        human.stdout
    );
}

#[test]
fn tools_search_dash_answers_one_json_line_per_stdin_query() {
    let project = mock_project(json!({}));
    project.run(&["tools"]); // writes .mcp.json
    let mut child = Command::new(agentwire_bin())
        .args(["tools", "search", "-"])
        .current_dir(project.path())
        .env_remove("AGENTWIRE_MODEL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let queries = "list issues\n查看 vercel/ai 的 issues\n\nselect:get_issue,create_issue\nqwxzv\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(queries.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(
        lines.len(),
        5,
        "one line per query, empty ones included: {stdout}"
    );
    let first = |i: usize| lines[i]["results"][0]["name"].as_str().map(str::to_owned);
    assert_eq!(lines[1]["query"], "查看 vercel/ai 的 issues");
    assert_eq!(first(0).as_deref(), Some("mcp__github__list_issues"));
    assert_eq!(first(1).as_deref(), Some("mcp__github__list_issues"));
    assert_eq!(lines[2]["results"], json!([]));
    let selected: Vec<&str> = lines[3]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        selected,
        ["mcp__github__get_issue", "mcp__github__create_issue"]
    );
    assert_eq!(lines[4]["results"], json!([]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("connected"),
        "no startup chatter: {stderr}"
    );
}

#[test]
fn the_offline_demo_runs_through_the_bridge_in_exactly_three_steps() {
    let project = mock_project(json!({}));
    let out = project.run(&[
        "run",
        "--json",
        "--tool-search",
        "on",
        "查看 vercel/ai 的 issues",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["type"] == kind).collect() };
    assert_eq!(of("step_start").len(), 3);
    let searches = of("tool_search");
    assert_eq!(searches.len(), 1);
    assert_eq!(searches[0]["results"], json!(["mcp__github__list_issues"]));
    let started: Vec<&str> = of("tool_start")
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(started, ["tool_search", "mcp__github__list_issues"]);
    assert!(of("tool_end").iter().all(|e| e["ok"] == true));
    let done = events.last().unwrap();
    assert_eq!(done["type"], "done");
    assert_eq!(done["steps"], 3);
    assert!(done["answer"].as_str().unwrap().contains("#6241"));
    // The same request without deferral takes the usual two steps.
    let out = project.run(&["run", "--json", "查看 vercel/ai 的 issues"]);
    assert_eq!(out.ndjson().last().unwrap()["steps"], 2);
    // And the human view of the bridged run.
    let human = project.run(&["run", "--tool-search", "on", "查看 vercel/ai 的 issues"]);
    assert!(
        human.stdout.ends_with("── done in 3 steps\n"),
        "{}",
        human.stdout
    );
}

#[test]
fn bad_settings_are_refused_naming_the_culprit() {
    let project = mock_project(json!({}));
    let out = project.run(&["tools", "--tool-search", "maybe"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("auto, on or off"), "{}", out.stderr);
    let out = project.run_with_env(&["tools"], &[("AGENTWIRE_TOOL_SEARCH", "sometimes")]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("AGENTWIRE_TOOL_SEARCH") && out.stderr.contains("sometimes"),
        "{}",
        out.stderr
    );
    let out = project.run(&[
        "tools",
        "--tool-search",
        "on",
        "--tool-search-threshold",
        "5",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("--tool-search-threshold"),
        "{}",
        out.stderr
    );
    let out = project.run(&["tools", "--context-window", "0"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--context-window"), "{}", out.stderr);
}
