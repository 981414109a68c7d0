//! The `bash` sandbox from the command line: on by default, the model key out of reach of the
//! command, the mode in the audit log, `"sandbox"` in the user config file, and
//! `--auto-approve-sandboxed`. Real binary, real files.

mod common;

use common::{run_cli, CliOutput};
use std::path::Path;

/// A project, a home with an optional user config file, and the key the run holds.
struct Setup {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

const KEY: &str = "sk-sandbox-test-0123456789abcdef";

impl Setup {
    fn new() -> Setup {
        Setup {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    fn user_config(&self, text: &str) {
        let dir = self.home.path().join(".config/agentwire");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.json"), text).unwrap();
    }

    /// Runs `agentwire --model mock ARGS run "call bash {command}"`.
    fn bash(&self, args: &[&str], command: &str) -> CliOutput {
        let prompt = format!("call bash {}", serde_json::json!({ "command": command }));
        let mut all = vec!["--model", "mock"];
        all.extend_from_slice(args);
        all.extend(["run", &prompt]);
        let home = self.home.path().to_str().unwrap();
        let env = [
            ("HOME", home),
            ("XDG_CONFIG_HOME", ""),
            ("OPENAI_API_KEY", KEY),
        ];
        run_cli(self.project.path(), &all, &env)
    }
}

fn audit_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn by_default_bash_is_confined_and_cannot_read_the_model_key_from_agentwire() {
    let setup = Setup::new();
    let command = "tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI_API_KEY; \
                   head -c 64 /proc/$PPID/mem; echo x > $HOME/outside";
    let out = setup.bash(&["--yes"], command);
    assert!(
        out.stderr
            .contains("sandbox: workspace-write (network off)"),
        "{out:?}"
    );
    assert!(!out.stdout.contains(KEY), "{out:?}");
    assert!(out.stdout.contains("Permission denied"), "{out:?}");
    assert!(!setup.home.path().join("outside").exists());
    // Unconfined, root's command reads the key (non-dumpable stops other users only): what
    // the sandbox takes away.
    // SAFETY: geteuid cannot fail.
    if unsafe { nix::libc::geteuid() } == 0 {
        let show = "tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI_API_KEY";
        let out = setup.bash(&["--yes", "--sandbox", "off"], show);
        assert!(out.stderr.contains("sandbox: off"), "{out:?}");
        assert!(out.stdout.contains(KEY), "{out:?}");
    }
}

#[test]
fn the_audit_log_records_the_mode_each_bash_call_ran_under() {
    let setup = Setup::new();
    let audit = setup.home.path().join("audit.jsonl");
    let audit_arg = audit.to_str().unwrap();
    for mode in ["read-only", "workspace-write", "off"] {
        let out = setup.bash(&["--yes", "--sandbox", mode, "--audit", audit_arg], "true");
        assert_eq!(out.code, 0, "{out:?}");
    }
    let modes: Vec<_> = audit_lines(&audit)
        .iter()
        .filter(|r| r["tool"] == "bash")
        .map(|r| r["sandbox"].as_str().unwrap_or("missing").to_owned())
        .collect();
    assert_eq!(modes, ["read-only", "workspace-write", "off"]);
}

#[test]
fn the_user_config_file_sets_the_mode_and_the_command_line_wins() {
    let setup = Setup::new();
    setup.user_config(r#"{"sandbox": {"mode": "read-only", "deny": ["~/private"]}}"#);
    std::fs::create_dir(setup.home.path().join("private")).unwrap();
    std::fs::write(setup.home.path().join("private/k"), "PRIVATE-BYTES").unwrap();
    let out = setup.bash(&["--yes"], "cat ~/private/k; echo x > made.txt");
    assert!(out.stderr.contains("sandbox: read-only"), "{out:?}");
    assert!(!out.stdout.contains("PRIVATE-BYTES"), "{out:?}");
    assert!(!setup.project.path().join("made.txt").exists());
    let out = setup.bash(
        &["--yes", "--sandbox", "workspace-write"],
        "echo x > made.txt",
    );
    assert!(out.stderr.contains("sandbox: workspace-write"), "{out:?}");
    assert!(setup.project.path().join("made.txt").exists(), "{out:?}");
    setup.user_config(r#"{"sandbox": "loose"}"#);
    let out = setup.bash(&["--yes"], "true");
    assert_ne!(out.code, 0, "{out:?}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("config.json") && said.contains("loose"),
        "{out:?}"
    );
}

#[test]
fn auto_approve_sandboxed_runs_bash_unasked_but_never_past_a_deny_rule() {
    let setup = Setup::new();
    let made = setup.project.path().join("made.txt");
    // No terminal and no --yes: bash is refused.
    let out = setup.bash(&[], "echo x > made.txt");
    assert!(!made.exists(), "{out:?}");
    let out = setup.bash(&["--auto-approve-sandboxed"], "echo x > made.txt");
    assert!(made.exists(), "{out:?}");
    assert!(out.stderr.contains("without asking"), "{out:?}");
    std::fs::remove_file(&made).unwrap();
    let out = setup.bash(
        &["--auto-approve-sandboxed", "--deny", "bash"],
        "echo x > made.txt",
    );
    assert!(!made.exists(), "{out:?}");
    // Not contained (network on, or no sandbox): it asks as usual, so here it is refused.
    for extra in [["--sandbox-network", ""], ["--sandbox", "off"]] {
        let mut args = vec!["--auto-approve-sandboxed"];
        args.extend(extra.iter().filter(|a| !a.is_empty()));
        let out = setup.bash(&args, "echo x > made.txt");
        assert!(!made.exists(), "{extra:?} {out:?}");
        assert!(out.stderr.contains("not in effect"), "{out:?}");
    }
}

#[test]
fn a_local_server_runs_in_the_sandbox_its_entry_asks_for() {
    let setup = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std::fs::create_dir(setup.home.path().join(".ssh")).unwrap();
    std::fs::write(setup.home.path().join(".ssh/id"), "SSH-KEY-BYTES").unwrap();
    let script = format!(
        "echo x > {out}/written; cat {home}/.ssh/id > leak; echo y > inside; \
         (exec 3<>/dev/tcp/127.0.0.1/{port} && echo ok > net); exec node {fast}",
        out = outside.path().display(),
        home = setup.home.path().display(),
        fast = common::fixture("fast.mjs"),
        port = listener.local_addr().unwrap().port(),
    );
    let config = setup.home.path().join("servers.json");
    let run = |sandbox: serde_json::Value| {
        let mut entry = serde_json::json!({"command": "bash", "args": ["-c", &script]});
        if !sandbox.is_null() {
            entry["sandbox"] = sandbox;
        }
        let servers = serde_json::json!({"mcpServers": {"s": entry}});
        std::fs::write(&config, servers.to_string()).unwrap();
        let home = setup.home.path().to_str().unwrap();
        let env = [("HOME", home), ("XDG_CONFIG_HOME", "")];
        let args = [
            "--config",
            config.to_str().unwrap(),
            "--json",
            "mcp",
            "list",
        ];
        let out = run_cli(setup.project.path(), &args, &env);
        let leak = std::fs::read_to_string(setup.project.path().join("leak")).unwrap_or_default();
        let inside = setup.project.path().join("inside").exists();
        let written = outside.path().join("written").exists();
        let net = setup.project.path().join("net").exists();
        for made in ["leak", "inside", "net"] {
            let _ = std::fs::remove_file(setup.project.path().join(made));
        }
        let _ = std::fs::remove_file(outside.path().join("written"));
        (out, leak, inside, written, net)
    };
    let (out, leak, inside, written, net) = run(serde_json::json!("workspace-write"));
    // Confined, it still starts and serves.
    assert_eq!(out.json()["servers"][0]["status"], "connected", "{out:?}");
    assert!(
        !leak.contains("SSH-KEY-BYTES") && inside && !written && net,
        "{out:?}"
    );
    let (out, leak, inside, written, _) = run(serde_json::json!({"mode": "read-only"}));
    assert_eq!(out.json()["servers"][0]["status"], "connected", "{out:?}");
    assert!(
        !leak.contains("SSH-KEY-BYTES") && !inside && !written,
        "{out:?}"
    );
    // The network is on unless the entry turns it off.
    let (out, _, inside, _, net) =
        run(serde_json::json!({"mode": "workspace-write", "network": false}));
    assert!(inside && !net, "{out:?}");
    // Without "sandbox" the server runs as before, unconfined.
    let (out, leak, inside, written, net) = run(serde_json::Value::Null);
    assert!(
        leak.contains("SSH-KEY-BYTES") && inside && written && net,
        "{out:?}"
    );
}

#[test]
fn a_project_server_asking_for_a_looser_sandbox_than_the_users_is_clamped_and_named() {
    let setup = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "echo y > inside; echo x > {out}/written; \
         (exec 3<>/dev/tcp/127.0.0.1/{port}); exec node {fast}",
        out = outside.path().display(),
        fast = common::fixture("fast.mjs"),
        port = listener.local_addr().unwrap().port(),
    );
    // The project's own file asks for workspace-write with the network on (the default).
    let entry = serde_json::json!({"command": "bash", "args": ["-c", &script],
                                   "sandbox": "workspace-write"});
    let servers = serde_json::json!({"mcpServers": {"builder": entry}});
    std::fs::write(setup.project.path().join(".mcp.json"), servers.to_string()).unwrap();
    let run = |sandbox: &[&str]| {
        let home = setup.home.path().to_str().unwrap();
        let env = [("HOME", home), ("XDG_CONFIG_HOME", "")];
        let mut args = vec!["--trust-workspace"];
        args.extend_from_slice(sandbox);
        args.extend(["--json", "mcp", "list"]);
        let out = run_cli(setup.project.path(), &args, &env);
        let inside = std::fs::remove_file(setup.project.path().join("inside")).is_ok();
        let written = std::fs::remove_file(outside.path().join("written")).is_ok();
        let connected = listener.accept().is_ok();
        (out, inside, written, connected)
    };
    // The user's bash runs read-only with the network off: so does the server, and it is said.
    let (out, inside, written, connected) = run(&["--sandbox", "read-only"]);
    assert_eq!(out.json()["servers"][0]["status"], "connected", "{out:?}");
    assert!(
        out.stderr.contains(
            "warning: server builder: the project's .mcp.json asks for the sandbox \
             workspace-write with the network on, looser than yours (read-only with the \
             network off); it runs read-only with the network off"
        ),
        "{out:?}"
    );
    assert!(!inside && !written && !connected, "{out:?}");
    // Under a user's sandbox at least as loose, the entry gets what it asks for, silently:
    // the workspace and the network, but still nothing outside the workspace.
    let (out, inside, written, connected) =
        run(&["--sandbox", "workspace-write", "--sandbox-network"]);
    assert_eq!(out.json()["servers"][0]["status"], "connected", "{out:?}");
    assert!(!out.stderr.contains("warning: server builder"), "{out:?}");
    assert!(inside && !written && connected, "{out:?}");
    // The default (workspace-write, network off) keeps the workspace and takes the network.
    let (out, inside, written, connected) = run(&[]);
    assert!(
        out.stderr
            .contains("it runs workspace-write with the network off"),
        "{out:?}"
    );
    assert!(inside && !written && !connected, "{out:?}");
}

#[test]
fn a_plugin_server_asking_for_a_looser_sandbox_than_the_users_is_clamped_in_every_run() {
    let setup = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "echo y > inside; echo x > {out}/written; \
         (exec 3<>/dev/tcp/127.0.0.1/{port}); exec node {fast}",
        out = outside.path().display(),
        fast = common::fixture("fast.mjs"),
        port = listener.local_addr().unwrap().port(),
    );
    // The plugin's own file asks for workspace-write with the network on (the default).
    let plugin = setup.home.path().join("kit");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    std::fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit"}"#,
    )
    .unwrap();
    let entry = serde_json::json!({"command": "bash", "args": ["-c", &script],
                                   "sandbox": "workspace-write"});
    let servers = serde_json::json!({"mcpServers": {"builder": entry}});
    std::fs::write(plugin.join(".mcp.json"), servers.to_string()).unwrap();
    // A config file of the user's own, so the run reads no project file at all.
    let config = setup.home.path().join("servers.json");
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    let run = |extra: &[&str]| {
        let home = setup.home.path().to_str().unwrap();
        let env = [("HOME", home), ("XDG_CONFIG_HOME", "")];
        let mut args = vec!["--plugin-dir", plugin.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend(["--json", "mcp", "list"]);
        let out = run_cli(setup.project.path(), &args, &env);
        let status = out.json()["servers"]
            .as_array()
            .and_then(|all| all.iter().find(|s| s["name"] == "plugin_kit_builder"))
            .map(|s| s["status"].clone());
        let inside = std::fs::remove_file(setup.project.path().join("inside")).is_ok();
        let written = std::fs::remove_file(outside.path().join("written")).is_ok();
        let connected = listener.accept().is_ok();
        (out, status, inside, written, connected)
    };
    let warning = "warning: server plugin_kit_builder: its plugin asks for the sandbox \
                   workspace-write with the network on, looser than yours (read-only with the \
                   network off); it runs read-only with the network off";
    // With the user's own config file and without: the plugin is held to the user's sandbox.
    let config_args = ["--config", config.to_str().unwrap()];
    for extra in [&config_args[..], &[]] {
        let mut args = extra.to_vec();
        args.extend(["--sandbox", "read-only"]);
        let (out, status, inside, written, connected) = run(&args);
        assert_eq!(status, Some("connected".into()), "{out:?}");
        assert!(out.stderr.contains(warning), "{out:?}");
        assert!(!inside && !written && !connected, "{out:?}");
    }
    // Under a user's sandbox at least as loose, it gets what it asks for, silently: the
    // workspace and the network, still nothing outside the workspace.
    let (out, status, inside, written, connected) =
        run(&["--sandbox", "workspace-write", "--sandbox-network"]);
    assert_eq!(status, Some("connected".into()), "{out:?}");
    assert!(
        !out.stderr.contains("plugin_kit_builder: its plugin"),
        "{out:?}"
    );
    assert!(inside && !written && connected, "{out:?}");
    // The default (workspace-write, network off) keeps the workspace and takes the network.
    let (out, _, inside, written, connected) = run(&[]);
    assert!(
        out.stderr.contains(
            "plugin_kit_builder: its plugin asks for the sandbox workspace-write with the \
             network on, looser than yours (workspace-write with the network off); it runs \
             workspace-write with the network off"
        ),
        "{out:?}"
    );
    assert!(inside && !written && !connected, "{out:?}");
}
