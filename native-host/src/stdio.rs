//! Stdio transport: an MCP server as a child process speaking NDJSON on stdin/stdout.
//!
//! Stdout is read by a task into a bounded channel (backpressure on the child, never unbounded
//! memory); stderr is drained continuously into a bounded tail so a chatty server can never
//! block; stdin is written by a task so `send` never waits on the child.

use agentwire::driver::Transport;
use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, Mutex};

/// Environment variables a child inherits from the parent; everything else must come from
/// the server's config, so the parent's secrets do not leak to every server.
pub const INHERITED_ENV: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR",
    "TZ",
];

/// How much of a server's stderr is kept.
const STDERR_TAIL_LINES: usize = 200;
const STDERR_TAIL_BYTES: usize = 64 * 1024;
/// Read size for stdout.
const READ_CHUNK: usize = 64 * 1024;

/// What to start.
#[derive(Clone, Debug, Default)]
pub struct StdioCommand {
    /// Program to run (looked up on the child's PATH).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment, on top of [`INHERITED_ENV`].
    pub env: Vec<(String, String)>,
    /// Working directory, if not the current one.
    pub cwd: Option<String>,
}

/// The last lines a server wrote to stderr, bounded in lines and bytes.
#[derive(Debug, Default)]
pub struct StderrTail {
    lines: VecDeque<String>,
    bytes: usize,
    total_bytes: u64,
}

impl StderrTail {
    fn push(&mut self, line: &str) {
        self.total_bytes += line.len() as u64 + 1;
        // A single enormous line is cut so one line cannot evict the whole budget.
        let line: String = line.chars().take(2_000).collect();
        self.bytes += line.len();
        self.lines.push_back(line);
        while self.lines.len() > STDERR_TAIL_LINES || self.bytes > STDERR_TAIL_BYTES {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.len(),
                None => break,
            }
        }
    }

    /// The last `n` lines, oldest first.
    pub fn last(&self, n: usize) -> Vec<String> {
        self.lines
            .iter()
            .skip(self.lines.len().saturating_sub(n))
            .cloned()
            .collect()
    }

    /// Bytes the server wrote to stderr in total (kept or not).
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
}

/// A running stdio MCP server.
pub struct StdioTransport {
    name: String,
    writer: StdMutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    reader: Mutex<mpsc::Receiver<std::io::Result<Vec<u8>>>>,
    child: Arc<Mutex<Child>>,
    /// The child's process group (its pid, see `spawn`), kept after the leader exits: what it
    /// started in the group must still be stopped.
    group: crate::reaper::Tracked,
    stderr: Arc<StdMutex<StderrTail>>,
}

impl StdioTransport {
    /// Spawns the server. Fails with a message naming the server and the command.
    pub fn spawn(name: &str, spec: &StdioCommand) -> Result<StdioTransport, String> {
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for key in INHERITED_ENV {
            if let Ok(value) = std::env::var(key) {
                command.env(key, value);
            }
        }
        command.envs(spec.env.iter().map(|(k, v)| (k, v)));
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        // Its own process group, so a terminal's Ctrl-C reaches us first and we shut it down
        // in order.
        command.process_group(0);
        let (mut child, tracked) = crate::reaper::spawn_tracked(&mut command)
            .map_err(|e| format!("could not start `{}`: {e}", spec.command))?;
        let (Some(mut stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the child's stdio pipes are missing".into());
        };

        let (write_tx, mut write_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(bytes) = write_rx.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes the pipe: the polite first step of shutdown.
        });

        let (read_tx, read_rx) = mpsc::channel(16);
        tokio::spawn(async move {
            let mut buf = vec![0u8; READ_CHUNK];
            loop {
                match stdout.read(&mut buf).await {
                    Ok(0) => break,
                    Ok(n) => {
                        if read_tx.send(Ok(buf[..n].to_vec())).await.is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = read_tx.send(Err(e)).await;
                        break;
                    }
                }
            }
        });

        let tail = Arc::new(StdMutex::new(StderrTail::default()));
        let stderr_tail = Arc::clone(&tail);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr);
            let mut line = Vec::new();
            loop {
                line.clear();
                match lines.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line);
                        if let Ok(mut tail) = stderr_tail.lock() {
                            tail.push(text.trim_end());
                        }
                    }
                }
            }
        });

        Ok(StdioTransport {
            name: name.to_owned(),
            writer: StdMutex::new(Some(write_tx)),
            reader: Mutex::new(read_rx),
            child: Arc::new(Mutex::new(child)),
            group: tracked,
            stderr: tail,
        })
    }

    /// A handle on the server's stderr tail, usable after the transport is gone.
    pub fn stderr(&self) -> Arc<StdMutex<StderrTail>> {
        Arc::clone(&self.stderr)
    }

    fn stderr_summary(&self) -> String {
        let lines = self.stderr.lock().map(|t| t.last(5)).unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; stderr: {}", lines.join(" | "))
        }
    }

    /// Waits up to `within` for the child to exit on its own.
    async fn wait_exit(&self, within: Duration) -> Option<ExitStatus> {
        let mut child = self.child.lock().await;
        tokio::time::timeout(within, child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Stops the child: close stdin, wait 2 s, SIGTERM, wait 2 s, SIGKILL. Always reaps it.
    /// The signals go to the child's whole process group, so what a wrapper (`sh -c`, `npx`)
    /// started stops with it instead of being orphaned; and they go even when the leader has
    /// already exited, as long as anything else is left in its group.
    pub async fn shutdown(&self) -> Option<ExitStatus> {
        use nix::sys::signal::{killpg, Signal};
        if let Ok(mut writer) = self.writer.lock() {
            writer.take();
        }
        let group = self.group.pid();
        let group_alive = || group.is_some_and(crate::reaper::group_alive);
        let mut status = self.wait_exit(Duration::from_secs(2)).await;
        if status.is_some() && !group_alive() {
            return status;
        }
        if let Some(group) = group {
            let _ = killpg(group, Signal::SIGTERM);
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while status.is_none() || group_alive() {
            if tokio::time::Instant::now() >= deadline {
                break;
            }
            if status.is_none() {
                status = self.wait_exit(Duration::from_millis(20)).await;
            } else {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        if status.is_some() && !group_alive() {
            return status;
        }
        if let Some(group) = group {
            let _ = killpg(group, Signal::SIGKILL);
        }
        if status.is_some() {
            return status;
        }
        let mut child = self.child.lock().await;
        let _ = child.kill().await;
        child.wait().await.ok()
    }
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        _ => "exited".to_owned(),
    }
}

impl Transport for StdioTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        let writer = self
            .writer
            .lock()
            .map_err(|_| "stdin writer poisoned".to_owned())?;
        match writer.as_ref() {
            Some(tx) => tx
                .send(bytes)
                .map_err(|_| format!("server {:?} no longer reads its stdin", self.name)),
            None => Err(format!("server {:?} is shutting down", self.name)),
        }
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        let mut reader = self.reader.lock().await;
        reader
            .recv()
            .await
            .map(|chunk| chunk.map_err(|e| e.to_string()))
    }

    async fn closed_reason(&self) -> String {
        // Stdout closed; the exit status usually follows within milliseconds.
        let status = self.wait_exit(Duration::from_millis(500)).await;
        let how = status.map_or_else(|| "closed its stdout".to_owned(), describe);
        format!("server {:?} {how}{}", self.name, self.stderr_summary())
    }

    async fn close(&self) {
        self.shutdown().await;
    }
}
