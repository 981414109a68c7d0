//! Skills over MCP (the Skills extension, SEP-2640) end to end: a real child-process server
//! (`fixtures/skills_server.py`, modern era, two skills) opted in with `"skills": true`; the
//! mock model activates a server skill and its verified body reaches the model's request; a
//! tampered `SKILL.md` is refused naming server and file; `mcp list` says the extension was
//! negotiated and `skills list` shows the server's skills.

mod common;

use common::{fixture, server_entry, Project};
use serde_json::{json, Value};

fn project(skills: bool, extra: &[&str]) -> Project {
    let mut project = Project::new();
    let pid_file = project.path().join("docs.pid").display().to_string();
    let mut args = vec![fixture("skills_server.py")];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args.extend(["--pid-file".to_owned(), pid_file]);
    project.entry(
        "docs",
        json!({"command": "python3", "args": args, "skills": skills}),
    );
    project
}

fn tool_end<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == "tool_end" && e["name"] == name)
        .unwrap_or_else(|| panic!("no tool_end of {name} in {events:#?}"))
}

#[test]
fn the_mock_model_activates_a_server_skill_and_its_verified_body_reaches_the_request() {
    let project = project(true, &[]);
    let out = project.run(&["--json", "run", "use the pdf-tools skill"]);
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.ndjson();
    let end = tool_end(&events, "activate_skill");
    assert_eq!(end["ok"], true, "{end}");
    let done = events.iter().find(|e| e["type"] == "done").expect("done");
    let answer = done["answer"].as_str().unwrap();
    // The mock model answers with the first heading of the body it was given.
    assert!(answer.contains("Filling PDF forms with care"), "{answer}");
    let start = events.iter().find(|e| e["type"] == "tool_start").unwrap();
    assert_eq!(start["args"]["name"], "docs:pdf-tools", "{start}");
    project.assert_no_server_processes();
}

#[test]
fn a_tampered_skill_md_is_refused_naming_the_server_and_the_file() {
    let project = project(true, &["--tamper"]);
    let out = project.run(&["--json", "run", "use the pdf-tools skill"]);
    let events = out.ndjson();
    let end = tool_end(&events, "activate_skill");
    assert_eq!(end["ok"], false, "{end}");
    let text = end.to_string();
    assert!(
        text.contains("MCP server docs") && text.contains("skill://pdf-tools/SKILL.md"),
        "{text}"
    );
    assert!(!out.stdout.contains("evil.example"), "{}", out.stdout);
}

#[test]
fn mcp_list_says_the_extension_was_negotiated_and_skills_list_shows_the_server_s_skills() {
    let on = project(true, &[]);
    let out = on.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let list = out.json();
    let entry = server_entry(&list, "docs");
    assert_eq!(entry["era"], "modern", "{entry}");
    assert_eq!(
        entry["extensions"],
        json!(["io.modelcontextprotocol/skills"]),
        "{entry}"
    );
    let text = on.run(&["mcp", "list"]);
    assert!(
        text.stdout
            .contains("extensions: io.modelcontextprotocol/skills"),
        "{}",
        text.stdout
    );

    let skills = on.run(&["--json", "skills", "list"]);
    assert_eq!(skills.code, 0, "{skills:?}");
    let listed = skills.json();
    let names: Vec<&str> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["source"] == "mcp:docs")
        .filter_map(|s| s["qualified"].as_str())
        .collect();
    assert_eq!(names, ["docs:pdf-tools", "docs:release-notes"], "{listed}");
    let plain = on.run(&["skills", "list"]);
    assert!(plain.stdout.contains("docs:pdf-tools"), "{}", plain.stdout);

    // Not opted in: nothing negotiated, no server skills.
    let off = project(false, &[]);
    let list = off.run(&["mcp", "list", "--json"]).json();
    assert_eq!(server_entry(&list, "docs").get("extensions"), None);
    let out = off.run(&["--json", "run", "use the pdf-tools skill"]);
    assert!(!out.stdout.contains("activate_skill"), "{}", out.stdout);
}
