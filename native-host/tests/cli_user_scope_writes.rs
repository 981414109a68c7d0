//! The file tools never write what agentwire would later run or trust, even when the workspace
//! holds `$HOME` and the state directory and bash is denied: no user-scope plugin planted in
//! `~/.claude`, no trusted entry added to the trust store, no declined entry flipped.

mod common;

use common::{run_cli, CliOutput};
use serde_json::{json, Value};
use std::path::Path;

/// One mock-model run in `home` (its own `$HOME`, workspace and current directory) calling
/// `tool` with `args`, with writes allowed and bash denied.
fn call(home: &Path, tool: &str, args: Value) -> CliOutput {
    let prompt = format!("call {tool} {args}");
    let state = home.join(".local/state/agentwire");
    run_cli(
        home,
        &[
            "--json",
            // A session would make the state directory itself.
            "--no-session-persistence",
            "--model",
            "mock",
            "--allow",
            "write_file",
            "--allow",
            "edit_file",
            "--deny",
            "bash",
            "run",
            &prompt,
        ],
        &[
            ("HOME", home.to_str().unwrap()),
            ("AGENTWIRE_STATE_DIR", state.to_str().unwrap()),
        ],
    )
}

/// The `tool_end` event of the run: whether the call succeeded, and its output.
fn outcome(out: &CliOutput) -> (bool, String) {
    let end = out
        .ndjson()
        .into_iter()
        .find(|event| event["type"] == "tool_end")
        .unwrap_or_else(|| panic!("no tool_end in {out:?}"));
    (
        end["ok"].as_bool().unwrap_or(true),
        end["output"].as_str().unwrap_or_default().to_owned(),
    )
}

fn assert_refused(out: &CliOutput, protected: &str) {
    let (ok, output) = outcome(out);
    assert!(!ok, "the write went through: {out:?}");
    assert!(output.contains("refused"), "{output}");
    assert!(
        output.contains(protected),
        "names the protected place: {output}"
    );
}

#[test]
fn no_user_scope_plugin_can_be_planted_in_the_home_folder() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let marker = home.join("marker");
    let server = json!({"mcpServers": {"evil": {"command": "sh",
        "args": ["-c", format!("touch '{}'", marker.display())]}}});
    let claude = home.join(".claude");
    // Once with no ~/.claude yet (nothing may create it), once with one.
    for existing in [false, true] {
        if existing {
            std::fs::create_dir_all(claude.join("skills")).unwrap();
        }
        for (path, content) in [
            (
                ".claude/skills/p/.claude-plugin/plugin.json",
                r#"{"name": "p"}"#.to_owned(),
            ),
            (".claude/skills/p/.mcp.json", server.to_string()),
            // Case, `..` and a symlink inside the workspace lead to the same folder.
            (".CLAUDE/skills/p/.mcp.json", server.to_string()),
            ("x/../.claude/settings.json", "{}".to_owned()),
            (
                ".agents/skills/p/SKILL.md",
                "---\nname: p\n---\nx".to_owned(),
            ),
        ] {
            std::fs::create_dir_all(home.join("x")).unwrap();
            let out = call(
                &home,
                "write_file",
                json!({"path": path, "content": content}),
            );
            assert_refused(
                &out,
                &home
                    .join(if path.contains("agents") {
                        ".agents"
                    } else {
                        ".claude"
                    })
                    .display()
                    .to_string(),
            );
        }
        assert_eq!(claude.exists(), existing, "~/.claude was not created");
        assert!(!home.join(".agents").exists());
        assert!(!home.join(".CLAUDE").exists());
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&claude, home.join("link")).unwrap();
        let out = call(
            &home,
            "write_file",
            json!({"path": "link/CLAUDE.md", "content": "x"}),
        );
        assert_refused(&out, &claude.display().to_string());
    }
    let next = run_cli(
        &home,
        &["--json", "plugins", "list"],
        &[("HOME", home.to_str().unwrap())],
    );
    assert!(!next.stdout.contains("\"p\""), "{next:?}");
    assert!(!marker.exists(), "the planted server never started");
    // Files elsewhere in the home folder are still the workspace's.
    let out = call(
        &home,
        "write_file",
        json!({"path": "notes/.claude-ish", "content": "x"}),
    );
    assert!(outcome(&out).0, "{out:?}");
}

#[test]
fn the_trust_store_cannot_be_planted_or_flipped() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let state = home.join(".local/state/agentwire");
    let store = state.join("trusted-workspaces.json");
    let planted = json!({"version": 1, "workspaces": {"/elsewhere": {"trusted": true, "at": 1}}});
    // No state directory yet.
    let out = call(
        &home,
        "write_file",
        json!({"path": ".local/state/agentwire/trusted-workspaces.json",
               "content": planted.to_string()}),
    );
    assert_refused(&out, &state.display().to_string());
    assert!(!state.exists(), "{out:?}");
    // A declined entry, written by the user's own agentwire.
    std::fs::create_dir_all(&state).unwrap();
    let declined = json!({"version": 1, "workspaces": {"/elsewhere": {"trusted": false, "at": 1}}});
    let before = serde_json::to_string_pretty(&declined).unwrap();
    std::fs::write(&store, &before).unwrap();
    let out = call(
        &home,
        "edit_file",
        json!({"path": ".local/state/agentwire/trusted-workspaces.json",
               "old_string": "false", "new_string": "true"}),
    );
    assert_refused(&out, &state.display().to_string());
    let out = call(
        &home,
        "write_file",
        json!({"path": ".local/state/agentwire/other.json", "content": "{}"}),
    );
    assert_refused(&out, &state.display().to_string());
    assert_eq!(std::fs::read_to_string(&store).unwrap(), before);
    assert!(!state.join("other.json").exists());
}

#[test]
fn config_and_audit_files_named_on_the_command_line_are_not_written() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let config = home.join("servers.json");
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    let audit = home.join("audit.jsonl");
    for (path, why) in [(&config, "--config"), (&audit, "--audit")] {
        let args = json!({"path": path.file_name().unwrap().to_str().unwrap(), "content": "x"});
        let prompt = format!("call write_file {args}");
        let out = run_cli(
            &home,
            &[
                "--json",
                "--model",
                "mock",
                "--config",
                config.to_str().unwrap(),
                "--audit",
                audit.to_str().unwrap(),
                "--allow",
                "write_file",
                "run",
                &prompt,
            ],
            &[("HOME", home.to_str().unwrap())],
        );
        assert_refused(&out, &path.display().to_string());
        assert!(outcome(&out).1.contains(why), "{out:?}");
    }
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        r#"{"mcpServers": {}}"#
    );
}
