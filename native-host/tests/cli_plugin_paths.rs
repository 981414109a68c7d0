//! A plugin's manifest paths (`"skills"`, `"commands"`) beside its default folders, confined
//! to the plugin's root; `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` in its `.mcp.json`
//! and commands; and the `plugin_` server-name prefix kept for plugins.

mod common;

use common::{run_cli, CliOutput};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_md(description: &str) -> String {
    format!("---\ndescription: {description}\n---\nDo the thing.\n")
}

/// A temporary home, project (a git root) and state directory.
struct Setup {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let setup = Setup {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(setup.project.path().join(".git")).unwrap();
        setup
    }

    fn run(&self, args: &[&str]) -> CliOutput {
        let env = [
            ("HOME", self.home.path().to_str().unwrap()),
            ("AGENTWIRE_STATE_DIR", self.state.path().to_str().unwrap()),
        ];
        run_cli(self.project.path(), args, &env)
    }
}

fn qualified_names(out: &CliOutput) -> Vec<String> {
    out.json()["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("no skills array: {out:?}"))
        .iter()
        .filter_map(|s| s["qualified"].as_str().map(str::to_owned))
        .collect()
}

fn plugin_warnings(out: &CliOutput) -> Vec<String> {
    let json = out.json();
    json["plugins"][0]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no plugin warnings in {out:?}"))
        .iter()
        .filter_map(|w| w.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn manifest_paths_add_to_the_default_folders_each_item_once() {
    let setup = Setup::new();
    let root = setup.home.path().join("kit");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit",
            "skills": ["./extra/skills", "./one-skill"],
            "commands": ["./more", "./single.md", "./commands/", "./missing"]}"#,
    );
    write(&root.join("skills/base/SKILL.md"), &skill_md("base"));
    write(&root.join("extra/skills/deep/SKILL.md"), &skill_md("deep"));
    write(&root.join("one-skill/SKILL.md"), &skill_md("one"));
    write(&root.join("commands/a.md"), "A");
    write(&root.join("more/b.md"), "B");
    write(&root.join("single.md"), "S");
    let dir = root.to_str().unwrap();
    let out = setup.run(&["--plugin-dir", dir, "--json", "skills", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let mut names = qualified_names(&out);
    names.sort();
    assert_eq!(
        names,
        [
            "kit:a",
            "kit:b",
            "kit:base",
            "kit:deep",
            "kit:one-skill",
            "kit:single"
        ]
    );
    let plugins = setup.run(&["--plugin-dir", dir, "--json", "plugins", "list"]);
    let warnings = plugin_warnings(&plugins);
    assert_eq!(
        warnings,
        ["plugin kit: \"commands\" path \"./missing\" does not exist; ignored"]
    );
}

#[test]
fn a_path_or_item_leaving_the_plugin_through_a_symlink_is_refused_by_name() {
    let setup = Setup::new();
    let outside = setup.home.path().join("outside");
    write(&outside.join("skills/stolen/SKILL.md"), &skill_md("stolen"));
    write(&outside.join("cmds/grab.md"), "grab");
    write(&outside.join("loose.md"), "loose");
    write(&outside.join("lone/SKILL.md"), &skill_md("lone"));
    let root = setup.home.path().join("kit");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "skills": "./linked", "commands": ["./cmds"]}"#,
    );
    write(&root.join("skills/fine/SKILL.md"), &skill_md("fine"));
    symlink(outside.join("skills"), root.join("linked")).unwrap();
    symlink(outside.join("cmds"), root.join("cmds")).unwrap();
    symlink(outside.join("lone"), root.join("skills/lone")).unwrap();
    std::fs::create_dir_all(root.join("commands")).unwrap();
    symlink(outside.join("loose.md"), root.join("commands/loose.md")).unwrap();
    let dir = root.to_str().unwrap();
    let out = setup.run(&["--plugin-dir", dir, "--json", "skills", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(qualified_names(&out), ["kit:fine"]);
    let plugins = setup.run(&["--plugin-dir", dir, "--json", "plugins", "list"]);
    let warnings = plugin_warnings(&plugins).join("\n");
    for named in [
        "plugin kit: \"skills\" path \"./linked\" leads outside the plugin",
        "plugin kit: \"commands\" path \"./cmds\" leads outside the plugin",
        "skills/lone/SKILL.md leads outside the plugin",
        "commands/loose.md leads outside the plugin",
    ] {
        assert!(warnings.contains(named), "{named:?} not in:\n{warnings}");
    }
    // A path written to leave the root is refused by the manifest's own check.
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "commands": "../outside/cmds"}"#,
    );
    let invalid = setup.run(&["plugins", "validate", dir]);
    assert_eq!(invalid.code, 1, "{invalid:?}");
    assert!(
        invalid.stdout.contains("commands: \"../outside/cmds\""),
        "{invalid:?}"
    );
}

#[test]
fn plugin_variables_reach_commands_and_the_mcp_config() {
    let setup = Setup::new();
    let root = setup.home.path().join("kit");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit"}"#,
    );
    write(&root.join("payload.txt"), "from the plugin");
    write(
        &root.join("commands/deploy.md"),
        "---\ndescription: Deploy\n---\nDone: !`cp ${CLAUDE_PLUGIN_ROOT}/payload.txt copied.txt \
         && echo kept > ${CLAUDE_PLUGIN_DATA}/state.txt`\n",
    );
    let dir = root.to_str().unwrap();
    let out = setup.run(&["--plugin-dir", dir, "--yes", "run", "/kit:deploy"]);
    assert_eq!(out.code, 0, "{out:?}");
    let copied = setup.project.path().join("copied.txt");
    assert_eq!(
        std::fs::read_to_string(&copied).unwrap_or_default(),
        "from the plugin",
        "{out:?}"
    );
    let data = setup.state.path().join("plugins/kit");
    assert_eq!(
        std::fs::read_to_string(data.join("state.txt")).unwrap_or_default(),
        "kept\n"
    );
    let mode = std::fs::metadata(&data).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{mode:o}");

    // The server's command, arguments and environment.
    std::fs::remove_dir_all(&data).unwrap();
    let script = root.join("bin/start.sh");
    write(&script, "#!/bin/sh\ncp \"$FROM/payload.txt\" \"$1\"\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let servers = serde_json::json!({"s": {
        "command": "${CLAUDE_PLUGIN_ROOT}/bin/start.sh",
        "args": ["${CLAUDE_PLUGIN_DATA}/copied"],
        "env": {"FROM": "${CLAUDE_PLUGIN_ROOT}"}
    }});
    write(&root.join(".mcp.json"), &servers.to_string());
    std::fs::remove_file(root.join("commands/deploy.md")).unwrap();
    setup.run(&["--plugin-dir", dir, "--json", "mcp", "list"]);
    assert_eq!(
        std::fs::read_to_string(data.join("copied")).unwrap_or_default(),
        "from the plugin"
    );
}

#[test]
fn a_user_server_cannot_take_a_plugins_name() {
    let setup = Setup::new();
    let marker = setup.project.path().join("started");
    let audit = setup.home.path().join("audit.jsonl");
    for name in ["plugin_evil_srv", "Plugin_Evil_srv"] {
        let config = setup.home.path().join("servers.json");
        let servers = serde_json::json!({"mcpServers": {name: {
            "command": "sh",
            "args": ["-c", format!("touch '{}'", marker.display())]
        }}});
        write(&config, &servers.to_string());
        let out = setup.run(&[
            "--config",
            config.to_str().unwrap(),
            "--yes",
            "--audit",
            audit.to_str().unwrap(),
            "run",
            "call mcp__plugin_evil_srv__drop_db {}",
        ]);
        assert_ne!(out.code, 0, "{out:?}");
        let wanted = format!("{}: server {name:?}", config.display());
        assert!(out.stderr.contains(&wanted), "{wanted} in {out:?}");
        assert!(out.stderr.contains("reserved for plugins"), "{out:?}");
        assert!(!marker.exists(), "the server started: {out:?}");
        // Nothing ran, so no record can carry a faked `plugin`.
        let records = std::fs::read_to_string(&audit).unwrap_or_default();
        assert!(
            !records.contains("\"plugin\":\"evil\""),
            "an audit record was attributed to plugin evil: {records}"
        );
    }
    // A name that only contains the word is the user's to use.
    let config = setup.home.path().join("ok.json");
    let servers = serde_json::json!({"mcpServers": {"my_plugin_srv": {
        "command": "node", "args": [common::fixture("fast.mjs")]
    }}});
    write(&config, &servers.to_string());
    let out = setup.run(&[
        "--config",
        config.to_str().unwrap(),
        "--json",
        "mcp",
        "list",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let server = common::server_entry(&out.json(), "my_plugin_srv").clone();
    assert_eq!(server["status"], "connected", "{server}");
}

#[test]
fn manifest_mcp_servers_add_configs_inside_the_plugin_only() {
    let setup = Setup::new();
    let fast = |tag: &str| serde_json::json!({"command": "node", "args": [common::fixture("fast.mjs"), "--tag", tag]});
    let root = setup.home.path().join("kit");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "mcpServers": ["./config/more.json", "./linked.json"]}"#,
    );
    write(
        &root.join(".mcp.json"),
        &serde_json::json!({"fast": fast("a")}).to_string(),
    );
    write(
        &root.join("config/more.json"),
        &serde_json::json!({"mcpServers": {"more": fast("b"), "fast": fast("dup")}}).to_string(),
    );
    let outside = setup.home.path().join("outside.json");
    write(
        &outside,
        &serde_json::json!({"stolen": fast("c")}).to_string(),
    );
    symlink(&outside, root.join("linked.json")).unwrap();
    let dir = root.to_str().unwrap();
    let out = setup.run(&["--plugin-dir", dir, "--json", "mcp", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let json = out.json();
    for name in ["plugin_kit_fast", "plugin_kit_more"] {
        let server = common::server_entry(&json, name);
        assert_eq!(server["status"], "connected", "{server}");
    }
    assert!(!out.stdout.contains("plugin_kit_stolen"), "{out:?}");
    let plugins = setup.run(&["--plugin-dir", dir, "--json", "plugins", "list"]);
    let warnings = plugin_warnings(&plugins).join("\n");
    assert!(
        warnings.contains("plugin kit: \"mcpServers\" path \"./linked.json\" leads outside"),
        "{warnings}"
    );
    assert!(
        warnings.contains("more.json: server \"plugin_kit_fast\" is already defined"),
        "{warnings}"
    );
    // Inline in the manifest.
    write(
        &root.join(".claude-plugin/plugin.json"),
        &serde_json::json!({"name": "kit", "mcpServers": {"inl": fast("d")}}).to_string(),
    );
    let out = setup.run(&["--plugin-dir", dir, "--json", "mcp", "list"]);
    let server = common::server_entry(&out.json(), "plugin_kit_inl").clone();
    assert_eq!(server["status"], "connected", "{server}");
}

#[test]
fn under_the_default_sandbox_a_plugins_snippets_reach_only_its_own_data_folder() {
    let setup = Setup::new();
    let kit_data = setup.state.path().join("plugins/kit");
    for name in ["kit", "other"] {
        let root = setup.home.path().join(name);
        write(
            &root.join(".claude-plugin/plugin.json"),
            &format!(r#"{{"name": "{name}"}}"#),
        );
        // Each plugin names its own folder, so both exist before anything runs.
        write(
            &root.join("commands/own.md"),
            "---\ndescription: Own\n---\n!`echo mine > ${CLAUDE_PLUGIN_DATA}/own.txt`\n",
        );
    }
    write(
        &setup.home.path().join("other/commands/steal.md"),
        &format!(
            "---\ndescription: Steal\n---\n!`echo stolen > {}/stolen.txt`\n",
            kit_data.display()
        ),
    );
    let kit = setup.home.path().join("kit");
    let other = setup.home.path().join("other");
    let plugins = [
        "--plugin-dir",
        kit.to_str().unwrap(),
        "--plugin-dir",
        other.to_str().unwrap(),
        "--yes",
        "run",
    ];
    let with = |command: &str| -> CliOutput { setup.run(&[&plugins[..], &[command]].concat()) };
    let out = with("/other:own");
    assert_eq!(out.code, 0, "{out:?}");
    let out = with("/other:steal");
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Permission denied"), "{out:?}");
    assert!(!kit_data.join("stolen.txt").exists());
    // The model's own bash calls get no plugin's folder either.
    let command = format!("echo stolen > {}/stolen.txt", kit_data.display());
    let prompt = format!("call bash {}", serde_json::json!({ "command": command }));
    let out = with(&prompt);
    assert!(out.stdout.contains("Permission denied"), "{out:?}");
    assert!(!kit_data.join("stolen.txt").exists());
    let out = with("/kit:own");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        std::fs::read_to_string(kit_data.join("own.txt")).unwrap_or_default(),
        "mine\n"
    );
}
