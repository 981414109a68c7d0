//! Shared helpers of the integration tests: the fixture servers, temporary projects with a
//! `.mcp.json`, running the `agentwire` binary with a watchdog, process checks, and a local
//! tokio runtime for the library-level tests.

// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

pub mod lib_host;
pub mod loopback;
pub mod oauth_server;

use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Longest any single CLI invocation may take before the test kills it and fails.
const CLI_WATCHDOG: Duration = Duration::from_secs(30);

/// The fixture servers' directory.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Absolute path of one fixture script, e.g. `fixture("hang.mjs")`.
pub fn fixture(file: &str) -> String {
    let path = fixtures_dir().join(file);
    assert!(path.is_file(), "fixture {} is missing", path.display());
    path.display().to_string()
}

/// The repository root (the parent of `native-host`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("native-host has a parent directory")
        .to_path_buf()
}

/// Where `scripts/npm-fixtures` installed the npm packages the tests run:
/// `$AGENTWIRE_NPM_CACHE`, else `target/npm-fixtures`.
pub fn npm_fixtures_dir() -> PathBuf {
    match std::env::var_os("AGENTWIRE_NPM_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => repo_root().join("target/npm-fixtures"),
    }
}

/// A temporary project directory with a `.mcp.json` built server by server. Every fixture server
/// gets `--pid-file <dir>/<name>.pid`, so a test can check its process is gone afterwards.
pub struct Project {
    dir: tempfile::TempDir,
    servers: Map<String, Value>,
}

impl Default for Project {
    fn default() -> Self {
        Self::new()
    }
}

impl Project {
    /// An empty project (no servers yet).
    pub fn new() -> Self {
        Project {
            dir: tempfile::tempdir().expect("create a temporary directory"),
            servers: Map::new(),
        }
    }

    /// The project directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Adds a server running `node <fixture> <args> --pid-file <dir>/<name>.pid`.
    pub fn fixture(&mut self, name: &str, file: &str, args: &[&str]) -> &mut Self {
        self.fixture_with(name, file, args, json!({}))
    }

    /// Like [`Project::fixture`], with extra entry fields (`timeout`, `disabled`, ...).
    pub fn fixture_with(
        &mut self,
        name: &str,
        file: &str,
        args: &[&str],
        extra: Value,
    ) -> &mut Self {
        let pid_file = self.pid_file(name).display().to_string();
        let mut argv = vec![fixture(file)];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        argv.extend(["--pid-file".to_owned(), pid_file]);
        let mut entry = json!({"command": "node", "args": argv});
        if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
            entry.extend(extra);
        }
        self.servers.insert(name.to_owned(), entry);
        self
    }

    /// Adds a raw `mcpServers` entry.
    pub fn entry(&mut self, name: &str, entry: Value) -> &mut Self {
        self.servers.insert(name.to_owned(), entry);
        self
    }

    fn pid_file(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.pid"))
    }

    /// The pid a fixture server recorded, if it started.
    pub fn pid(&self, name: &str) -> Option<i32> {
        std::fs::read_to_string(self.pid_file(name))
            .ok()
            .and_then(|text| text.trim().parse().ok())
    }

    /// Writes `.mcp.json` and runs `agentwire --config .mcp.json ARGS` in the project
    /// directory: the user's own config, as these tests mean it (see
    /// [`Project::run_in_workspace`] for the project-scoped, trust-gated path).
    pub fn run(&self, args: &[&str]) -> CliOutput {
        self.run_with_env(args, &[])
    }

    /// Like [`Project::run`], with extra environment variables for the CLI process.
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> CliOutput {
        let mut with_config = vec!["--config", ".mcp.json"];
        with_config.extend_from_slice(args);
        self.run_in_workspace(&with_config, env)
    }

    /// Writes `.mcp.json` and runs `agentwire ARGS` in the project directory without naming
    /// the config: agentwire finds it as the workspace's own, used only if trusted.
    pub fn run_in_workspace(&self, args: &[&str], env: &[(&str, &str)]) -> CliOutput {
        self.write_config();
        run_cli(self.dir.path(), args, env)
    }

    /// Writes `.mcp.json` with the servers added so far.
    pub fn write_config(&self) {
        let config = json!({"mcpServers": self.servers});
        std::fs::write(self.dir.path().join(".mcp.json"), config.to_string())
            .expect("write .mcp.json");
    }

    /// Asserts that every fixture process that recorded a pid has exited and been reaped.
    pub fn assert_no_server_processes(&self) {
        for name in self.servers.keys() {
            if let Some(pid) = self.pid(name) {
                assert_process_gone(pid, name);
            }
        }
    }
}

/// What one CLI run produced.
#[derive(Debug)]
pub struct CliOutput {
    /// Exit status (`-1` when killed by a signal).
    pub code: i32,
    /// Everything on stdout.
    pub stdout: String,
    /// Everything on stderr.
    pub stderr: String,
    /// Wall time from spawn to exit.
    pub elapsed: Duration,
}

impl CliOutput {
    /// Stdout as one JSON document; fails the test with both streams when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e}).\nstdout: {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    /// Stdout as NDJSON: every line must be a JSON object.
    pub fn ndjson(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| match serde_json::from_str::<Value>(line) {
                Ok(value @ Value::Object(_)) => value,
                _ => panic!(
                    "stdout line is not a JSON object: {line:?}\nstderr: {}",
                    self.stderr
                ),
            })
            .collect()
    }
}

/// The binary under test: `$AGENTWIRE_TEST_BIN` when set (a copy that a shared target directory
/// cannot overwrite mid-run), else the one cargo built for this test.
pub fn agentwire_bin() -> PathBuf {
    static CHECKED: OnceLock<PathBuf> = OnceLock::new();
    CHECKED
        .get_or_init(|| {
            let bin = std::env::var_os("AGENTWIRE_TEST_BIN")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agentwire")));
            // With a CARGO_TARGET_DIR shared between checkouts, another checkout's build can
            // replace the binary; say so plainly instead of failing every assertion.
            let version = Command::new(&bin)
                .arg("--version")
                .output()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
            let stdout = String::from_utf8_lossy(&version.stdout);
            assert!(
                stdout.starts_with("agentwire "),
                "{} is not the agentwire CLI (`--version` printed {stdout:?}); was it overwritten \
                 by another checkout's build in a shared CARGO_TARGET_DIR? Rebuild, or set \
                 AGENTWIRE_TEST_BIN to a copy",
                bin.display()
            );
            bin
        })
        .clone()
}

/// Runs the `agentwire` binary in `dir` with the mock model and `env` added, under a watchdog.
/// Its state directory (token and trust stores) is a fresh temporary one unless `env` sets
/// `AGENTWIRE_STATE_DIR`: a test never reads or writes the real home's.
pub fn run_cli(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> CliOutput {
    let bin = agentwire_bin();
    let state = tempfile::tempdir().expect("a temporary state directory");
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env("AGENTWIRE_STATE_DIR", state.path())
        .env_remove("AGENTWIRE_MODEL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the agentwire binary");
    // Drain both pipes on threads so a large output can never block the child.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for agentwire") {
            break status;
        }
        if started.elapsed() > CLI_WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("agentwire {args:?} ran longer than {CLI_WATCHDOG:?} and was killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    CliOutput {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
        elapsed,
    }
}

/// The state letter of a process (`R`, `S`, `Z`, ...), or `None` when there is no such process.
pub fn process_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: the state follows the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    after.trim_start().chars().next()
}

/// What is left of `pid`: `None` when it is gone, else whether it runs or is an unreaped zombie.
pub fn leftover(pid: i32) -> Option<&'static str> {
    process_state(pid).map(|state| {
        if state == 'Z' {
            "a zombie (exited but never reaped)"
        } else {
            "still running"
        }
    })
}

/// Fails when `pid` still exists, running or as an unreaped zombie.
pub fn assert_process_gone(pid: i32, what: &str) {
    if let Some(kind) = leftover(pid) {
        panic!("the process of server {what} (pid {pid}) is {kind} after agentwire exited");
    }
}

/// Fails when `pid` is still running a moment after the check starts (a process killed by a
/// signal needs to be scheduled once to die). An exited process that nobody reaped (a zombie)
/// passes: for a grandchild, reaping is its parent's or init's job, not agentwire's.
pub fn assert_process_not_running(pid: i32, what: &str) {
    let running = || process_state(pid).filter(|s| *s != 'Z');
    let deadline = Instant::now() + Duration::from_millis(1000);
    while running().is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    if let Some(state) = running() {
        // Do not leave it behind for the next test run.
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
        panic!("{what} (pid {pid}) was still running (state {state}) after agentwire exited");
    }
}

/// The single server entry named `name` in `mcp list --json` output.
pub fn server_entry<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["servers"]
        .as_array()
        .and_then(|servers| servers.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no server {name:?} in {list}"))
}

/// The tool names (namespaced) of a server entry, in listed order.
pub fn tool_names(entry: &Value) -> Vec<String> {
    entry["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Checks the shape of one `mcp list --json` server entry: keys, status and tool fields.
pub fn assert_server_shape(entry: &Value) {
    let object = entry.as_object().expect("a server entry is an object");
    // A connected server also names the MCP era and version its session speaks.
    let connected = entry["status"] == "connected";
    assert_eq!(
        object.contains_key("era"),
        connected,
        "era iff connected: {entry}"
    );
    if connected {
        let era = entry["era"].as_str().expect("era is a string");
        assert!(
            ["legacy", "modern"].contains(&era),
            "unknown era in {entry}"
        );
        assert!(entry["protocolVersion"].is_string(), "{entry}");
    }
    let mut keys: Vec<&str> = object
        .keys()
        .map(String::as_str)
        .filter(|k| !["era", "protocolVersion"].contains(k))
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "deferredTools",
            "error",
            "estimatedTokens",
            "name",
            "skipped",
            "status",
            "tools"
        ],
        "keys of {entry}"
    );
    assert!(entry["skipped"].is_array(), "skipped is a list: {entry}");
    let status = entry["status"].as_str().expect("status is a string");
    assert!(
        ["connected", "failed", "disabled"].contains(&status),
        "unknown status in {entry}"
    );
    match status {
        "failed" => assert!(
            entry["error"].is_string(),
            "a failed server has an error: {entry}"
        ),
        _ => assert!(
            entry["error"].is_null(),
            "error is null unless failed: {entry}"
        ),
    }
    let name = entry["name"].as_str().expect("name is a string");
    for tool in entry["tools"].as_array().expect("tools is an array") {
        let mut keys: Vec<&str> = tool
            .as_object()
            .expect("a tool is an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "description",
                "estimatedTokens",
                "loading",
                "name",
                "original_name",
                "risk"
            ],
            "{tool}"
        );
        assert!(
            ["direct", "deferred"].contains(&tool["loading"].as_str().unwrap_or("")),
            "{tool}"
        );
        assert!(
            tool["estimatedTokens"].as_u64().is_some_and(|t| t > 0),
            "{tool}"
        );
        let original = tool["original_name"].as_str().expect("original_name");
        assert_eq!(tool["name"], format!("mcp__{name}__{original}"), "{tool}");
        assert!(tool["description"].is_string(), "{tool}");
        assert!(
            ["read", "write", "execute", "network"].contains(&tool["risk"].as_str().unwrap_or("")),
            "{tool}"
        );
    }
}
