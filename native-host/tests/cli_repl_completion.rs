//! Tab completion in the interactive session, as a user meets it on a terminal: the real
//! `agentwire` REPL on a pseudo-terminal (util-linux `script`) with the built-in mock GitHub
//! server completes a prompt command's name locally and its arguments through the server's
//! `completion/complete`, and the completed command then runs. A server's completion values
//! enter the line escaped, and Ctrl-C during a command's snippet stops it and returns to the
//! prompt.

mod common;

use common::{agentwire_bin, fixture};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The REPL's prompt, shown whenever it waits for a line.
const PROMPT: &str = "you ›";

/// An `agentwire` REPL on a pseudo-terminal: what it showed so far, and its keyboard.
struct Terminal {
    child: Child,
    keys: std::process::ChildStdin,
    output: mpsc::Receiver<Vec<u8>>,
    shown: String,
}

impl Terminal {
    /// Starts the REPL in `dir` on the mock model and the mock GitHub server, with a fresh
    /// state directory and home (no history, no tokens from the environment).
    fn start(dir: &Path) -> Terminal {
        Terminal::start_with(dir, &[])
    }

    /// Like [`Terminal::start`], with `args` on the command line.
    fn start_with(dir: &Path, args: &[&str]) -> Terminal {
        let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
        let mut command_line = quote(&agentwire_bin().display().to_string());
        for arg in args {
            command_line.push(' ');
            command_line.push_str(&quote(arg));
        }
        let mut child = Command::new("script")
            .args(["-qec", &command_line, "/dev/null"])
            .current_dir(dir)
            .env("AGENTWIRE_STATE_DIR", dir)
            .env("HOME", dir)
            .env("TERM", "xterm")
            .env_remove("AGENTWIRE_MODEL")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("GITHUB_PERSONAL_ACCESS_TOKEN")
            .env_remove("GITHUB_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run `script` (util-linux) for a pseudo-terminal");
        let (sender, output) = mpsc::channel::<Vec<u8>>();
        let mut stdout = child.stdout.take().expect("stdout is piped");
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 || sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let keys = child.stdin.take().expect("stdin is piped");
        Terminal {
            child,
            keys,
            output,
            shown: String::new(),
        }
    }

    /// Waits until the terminal has shown `needle` `count` times in all (or, with `None`, until
    /// the REPL exits); panics with everything shown after 30 s.
    fn wait_for(&mut self, needle: Option<&str>, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if needle.is_some_and(|n| self.shown.matches(n).count() >= count) {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.shown.push_str(&String::from_utf8_lossy(&bytes)),
                Err(mpsc::RecvTimeoutError::Disconnected) if needle.is_none() => return,
                Err(e) => {
                    let _ = self.child.kill();
                    panic!(
                        "waiting for {needle:?} ({e}); the terminal showed:\n{}",
                        self.shown
                    )
                }
            }
        }
    }

    /// Types `keys` (a Tab is `\t`, Enter is `\n`).
    fn type_keys(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Leaves the REPL and returns everything it showed.
    fn quit(mut self) -> String {
        self.type_keys("/quit\n");
        self.wait_for(None, 0);
        let _ = self.child.wait();
        self.shown
    }
}

#[test]
fn tab_completes_a_prompt_command_and_its_arguments_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut terminal = Terminal::start(dir.path());
    terminal.wait_for(Some(PROMPT), 1);
    // The command name, from the prompts the server listed.
    terminal.type_keys("/mcp__github__summ\t");
    terminal.wait_for(Some("/mcp__github__summarize_open_issues"), 1);
    // The first argument (owner): only the server knows "ru" is "rust-lang".
    terminal.type_keys(" ru\t");
    terminal.wait_for(Some("summarize_open_issues rust-lang"), 1);
    // The second (repo), with the owner given as context: rust-lang has one repository.
    terminal.type_keys(" \t");
    terminal.wait_for(Some("summarize_open_issues rust-lang rust"), 1);
    // The completed line is a command that runs: the prompt, with both arguments, reaches the
    // model (the mock looks into that repository). Keys typed while it runs would be lost.
    terminal.type_keys("\n");
    terminal.wait_for(Some("done in"), 1);
    let shown = terminal.quit();
    assert!(
        shown.contains(r#"{"owner":"rust-lang","repo":"rust""#),
        "the completed arguments reached the model: {shown}"
    );
}

#[test]
fn tab_completes_a_named_argument_keeping_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut terminal = Terminal::start(dir.path());
    terminal.wait_for(Some(PROMPT), 1);
    // `name=value` form: the value is completed, the `owner=` kept in front of it.
    terminal.type_keys("/mcp__github__explain_file owner=face\t");
    terminal.wait_for(Some("explain_file owner=facebook"), 1);
    // Ctrl-U clears the line before leaving.
    terminal.type_keys("\x15");
    terminal.quit();
}

#[test]
fn completion_values_and_prompt_names_from_a_server_reach_the_line_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({"mcpServers": {"h": {"command": "node",
        "args": [fixture("features.mjs")]}}});
    std::fs::write(dir.path().join("servers.json"), config.to_string()).unwrap();
    let mut terminal = Terminal::start_with(dir.path(), &["--config", "servers.json"]);
    terminal.wait_for(Some(PROMPT), 1);
    // The first value the server offers is `v0 ESC [ 2 J`: it enters the line as text.
    terminal.type_keys("/mcp__h__greet v\t");
    terminal.wait_for(Some("greet v0\\u001b[2J"), 1);
    terminal.type_keys("\x15/mcp__h__ev\t");
    terminal.wait_for(Some("/mcp__h__evil\\u001b[2J"), 1);
    terminal.type_keys("\x15");
    let shown = terminal.quit();
    assert!(
        !shown.contains("v0\x1b[2J") && !shown.contains("evil\x1b[2J"),
        "a server's ESC [ 2 J reached the terminal raw: {shown:?}"
    );
}

#[test]
fn ctrl_c_stops_a_command_snippet_and_returns_to_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let commands = dir.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("slow.md"),
        "---\ndescription: Slow\n---\nOut: !`echo $$ > snippet.pid; sleep 30`\n",
    )
    .unwrap();
    let mut terminal = Terminal::start_with(dir.path(), &["--yes"]);
    terminal.wait_for(Some(PROMPT), 1);
    terminal.type_keys("/slow\n");
    let pid_file = dir.path().join("snippet.pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(&pid_file).is_ok_and(|t| t.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the snippet never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let pressed = Instant::now();
    terminal.type_keys("\x03");
    terminal.wait_for(Some("interrupted: Ctrl-C stopped the run"), 1);
    terminal.wait_for(Some(PROMPT), 2);
    assert!(
        pressed.elapsed() < Duration::from_secs(10),
        "Ctrl-C took {:?}",
        pressed.elapsed()
    );
    common::assert_process_not_running(pid, "the snippet's shell");
    terminal.quit();
}

#[test]
fn ctrl_c_stops_waiting_for_a_slow_resource_or_prompt_and_returns_to_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({"mcpServers": {"h": {"command": "node",
        "args": [fixture("features.mjs")]}}});
    std::fs::write(dir.path().join("servers.json"), config.to_string()).unwrap();
    let mut terminal = Terminal::start_with(dir.path(), &["--config", "servers.json"]);
    terminal.wait_for(Some(PROMPT), 1);
    for (line, said) in [
        (
            "read @h:mem://slow please\n",
            "interrupted: Ctrl-C stopped reading the mentioned resources",
        ),
        (
            "/mcp__h__slow\n",
            "interrupted: Ctrl-C stopped /mcp__h__slow",
        ),
    ] {
        let prompts = terminal.shown.matches(PROMPT).count();
        terminal.type_keys(line);
        // Let the request reach the server before the key.
        std::thread::sleep(Duration::from_millis(500));
        let pressed = Instant::now();
        terminal.type_keys("\x03");
        terminal.wait_for(Some(said), 1);
        terminal.wait_for(Some(PROMPT), prompts + 1);
        assert!(
            pressed.elapsed() < Duration::from_secs(10),
            "{line:?}: Ctrl-C took {:?}",
            pressed.elapsed()
        );
    }
    terminal.quit();
}
