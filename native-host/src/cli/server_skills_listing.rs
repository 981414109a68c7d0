//! `skills list` when the config has servers that serve skills (`"skills": true`): the
//! servers are started and their skills listed (only `skills/list`: nothing else is read)
//! beside the skills found in files, each as `<server>:<skill>` with source `mcp:<server>`.

use crate::app::App;
use crate::cli::args::{Command, SkillsCommand};
use crate::cli::extension_listing::{print_skills, skills_json};
use crate::config::settings::Settings;
use serde_json::{json, Value};
use std::path::PathBuf;

/// Whether `command` is `skills list` and the config turns the Skills extension on for some
/// server: then the listing needs the servers started.
pub fn wanted(command: Option<&Command>, settings: &Settings) -> bool {
    let listing = matches!(
        command,
        Some(Command::Skills {
            command: SkillsCommand::List
        })
    );
    let path = settings
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(".mcp.json"));
    listing && config_asks_for_skills(&std::fs::read_to_string(path).unwrap_or_default())
}

/// Whether some entry of the config text has `"skills": true`.
fn config_asks_for_skills(text: &str) -> bool {
    let config: Value = serde_json::from_str(text).unwrap_or_default();
    config["mcpServers"]
        .as_object()
        .is_some_and(|servers| servers.values().any(|s| s["skills"] == true))
}

/// Prints the skills of files and servers; notices (entries left out, failed listings) go to
/// stderr, or into `warnings` with `--json`.
pub async fn run(app: &App, as_json: bool) -> i32 {
    let notices = app.runtime.load_server_skills().await;
    let extensions = app.extensions.borrow();
    let served = app.runtime.server_skills();
    if as_json {
        let mut listed = skills_json(&extensions);
        if let Some(skills) = listed["skills"].as_array_mut() {
            for (server, qualified, uri, description) in &served {
                skills.push(
                    json!({"name": qualified.rsplit(':').next(), "qualified": qualified,
                    "kind": "skill", "source": format!("mcp:{server}"), "location": uri,
                    "description": description, "modelInvocable": true, "userInvocable": false}),
                );
            }
        }
        if let Some(warnings) = listed["warnings"].as_array_mut() {
            warnings.extend(notices.into_iter().map(Value::String));
        }
        crate::outln!("{listed}");
    } else {
        print_skills(&extensions);
        for (server, qualified, uri, description) in &served {
            crate::outln!("{qualified}  {description} [skill, mcp:{server}, {uri}]");
        }
        for notice in notices {
            crate::outln!("warning: {notice}");
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_config_with_a_skills_server_needs_the_servers() {
        assert!(config_asks_for_skills(
            r#"{"mcpServers": {"a": {"command": "x"}, "docs": {"command": "y", "skills": true}}}"#
        ));
        assert!(!config_asks_for_skills(
            r#"{"mcpServers": {"docs": {"command": "y", "skills": false}}}"#
        ));
        assert!(!config_asks_for_skills("not json"));
        assert!(!config_asks_for_skills(""));
    }
}
