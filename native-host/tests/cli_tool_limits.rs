//! `mcp list` against a server whose tool list breaks every rule: what was not loaded is
//! printed with its reason, and the registry keeps at most its per-server cap.

mod common;

use common::Project;

#[test]
fn mcp_list_names_every_skipped_entry_and_the_cap() {
    let mut project = Project::new();
    project.fixture("hostile", "tool-list.mjs", &[]);

    let out = project.run(&["mcp", "list", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = out.json();
    let server = &json["servers"][0];
    let tools = server["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1000, "the per-server cap");
    let wordy = tools
        .iter()
        .find(|t| t["original_name"] == "wordy")
        .expect("wordy");
    let description = wordy["description"].as_str().unwrap();
    assert!(
        description.contains("[description cut: 7952 of 10000 characters"),
        "{description}"
    );
    let skipped: Vec<(&str, &str)> = server["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    assert!(skipped[0].1.contains("JSON object"));
    assert!(skipped[1].1.contains("\"name\""), "{skipped:?}");
    assert_eq!(skipped[2].0, "bad-schema");
    assert!(skipped[2].1.contains("must describe an object"));
    assert_eq!(skipped[3].0, "#1003…#1203");
    assert!(skipped[3]
        .1
        .contains("201 more tools over the limit of 1000 tools per server"));

    let human = project.run(&["mcp", "list"]);
    assert!(
        human
            .stderr
            .contains("hostile: 4 listed tool entries were not loaded"),
        "warned at start: {}",
        human.stderr
    );
    assert!(
        human
            .stdout
            .contains("  skipped bad-schema: MCP server \"hostile\", tool \"bad-schema\""),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("  skipped #1003…#1203: "),
        "{}",
        human.stdout
    );
    project.assert_no_server_processes();
}
