//! Stdio transport: an MCP server as a child process speaking NDJSON on stdin/stdout.
//!
//! Stdout is read in [`Transport::recv`] itself, 64 KiB at most per call: no task and no
//! channel between the pipe and the session, so a flooding server is held back by the pipe
//! (backpressure) and a round trip costs no extra wake-up. Stdin is written in `send` itself
//! while the pipe takes the bytes at once; only what the pipe refuses waits in a backlog that
//! a task writes out, so `send` never waits on the child, and a server that stops reading its
//! stdin while more than [`MAX_STDIN_BACKLOG`] bytes wait is failed with an error naming it.
//! Stderr is drained continuously into a bounded tail so a chatty server can never block.

use agentwire::driver::Transport;
use futures::FutureExt;
use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex;

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
/// Most bytes kept for a server that does not read its stdin fast enough; beyond them `send`
/// fails, and with it the server's session.
pub const MAX_STDIN_BACKLOG: usize = 16 * 1024 * 1024;

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
    /// Kernel confinement (`"sandbox"` of the entry): the rules, and the private `TMPDIR`
    /// they let it write, kept as long as the server runs.
    pub sandbox: Option<(
        crate::os::sandbox::Plan,
        Arc<crate::os::sandbox::PrivateTmp>,
    )>,
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
    writer: Arc<StdMutex<Writer>>,
    /// The child's stdin; `None` once closed. Locked by `send` (without waiting) and by the
    /// backlog task.
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    reader: Mutex<Reader>,
    child: Arc<Mutex<Child>>,
    /// The child's process group (its pid, see `spawn`), kept after the leader exits: what it
    /// started in the group must still be stopped.
    group: crate::os::reaper::Tracked,
    stderr: Arc<StdMutex<StderrTail>>,
    /// Turns `true` when the stderr reader has read everything (end of file).
    stderr_done: tokio::sync::watch::Receiver<bool>,
    /// A confined server's `TMPDIR`, removed once the transport is gone.
    _private_tmp: Option<Arc<crate::os::sandbox::PrivateTmp>>,
}

/// What waits to be written to the child's stdin.
#[derive(Default)]
struct Writer {
    /// Lines the pipe did not take at once, oldest first (the first may be partly written).
    backlog: VecDeque<Vec<u8>>,
    backlog_bytes: usize,
    /// A task is writing the backlog out (then `send` only appends to it).
    flushing: bool,
    /// Shutdown began: stdin closes once the backlog is written.
    closing: bool,
    /// Why writing failed, once it has.
    failed: Option<String>,
}

/// The child's stdout and the buffer it is read into.
struct Reader {
    stdout: ChildStdout,
    buf: Box<[u8]>,
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
        if let Some((plan, tmp)) = &spec.sandbox {
            let mut prepared = crate::os::sandbox::Prepared::new(plan).map_err(|e| {
                format!(
                    "sandbox of `{}`: cannot prepare the rules: {e}",
                    spec.command
                )
            })?;
            command.env("TMPDIR", tmp.path());
            // SAFETY: runs between fork and exec, only making system calls on what was
            // prepared above (no allocation on success, no locks).
            unsafe {
                command.pre_exec(move || prepared.apply_in_child());
            }
        }
        // Its own process group, so a terminal's Ctrl-C reaches us first and we shut it down
        // in order.
        command.process_group(0);
        let (mut child, tracked) = crate::os::reaper::spawn_tracked(&mut command)
            .map_err(|e| format!("could not start `{}`: {e}", spec.command))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the child's stdio pipes are missing".into());
        };

        let tail = Arc::new(StdMutex::new(StderrTail::default()));
        let stderr_tail = Arc::clone(&tail);
        let (done_tx, stderr_done) = tokio::sync::watch::channel(false);
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
            let _ = done_tx.send(true);
        });

        Ok(StdioTransport {
            name: name.to_owned(),
            writer: Arc::new(StdMutex::new(Writer::default())),
            stdin: Arc::new(Mutex::new(Some(stdin))),
            reader: Mutex::new(Reader {
                stdout,
                buf: vec![0; READ_CHUNK].into_boxed_slice(),
            }),
            child: Arc::new(Mutex::new(child)),
            group: tracked,
            stderr: tail,
            stderr_done,
            _private_tmp: spec.sandbox.as_ref().map(|(_, tmp)| Arc::clone(tmp)),
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

    /// The polite first step of shutdown: stdin closes now, or once the backlog is written.
    fn close_stdin(&self) {
        let Ok(mut writer) = self.writer.lock() else {
            return;
        };
        writer.closing = true;
        if !writer.flushing {
            match self.stdin.try_lock() {
                Ok(mut stdin) => drop(stdin.take()),
                Err(_) => {
                    // A backlog task is just letting go of the pipe.
                    let stdin = Arc::clone(&self.stdin);
                    tokio::spawn(async move { stdin.lock().await.take() });
                }
            }
        }
    }

    /// Writes what the pipe takes at once without waiting; returns what is left.
    fn write_now<'a>(stdin: &mut ChildStdin, mut bytes: &'a [u8]) -> std::io::Result<&'a [u8]> {
        while !bytes.is_empty() {
            match stdin.write(bytes).now_or_never() {
                Some(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
                Some(Ok(n)) => bytes = &bytes[n..],
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(bytes)
    }

    /// Writes the backlog out, in a task, until it is empty; then closes stdin if shutdown
    /// asked for it meanwhile.
    fn spawn_flush(&self) {
        let (writer, stdin) = (Arc::clone(&self.writer), Arc::clone(&self.stdin));
        tokio::spawn(async move {
            let mut stdin = stdin.lock().await;
            loop {
                let next = match writer.lock() {
                    Ok(mut w) => match w.backlog.pop_front() {
                        Some(line) => {
                            w.backlog_bytes -= line.len();
                            Some(line)
                        }
                        None => {
                            w.flushing = false;
                            if w.closing {
                                stdin.take();
                            }
                            None
                        }
                    },
                    Err(_) => None,
                };
                let (Some(line), Some(pipe)) = (next, stdin.as_mut()) else {
                    return;
                };
                if let Err(e) = pipe.write_all(&line).await {
                    if let Ok(mut w) = writer.lock() {
                        w.failed = Some(e.to_string());
                        w.backlog.clear();
                        w.backlog_bytes = 0;
                        w.flushing = false;
                    }
                    stdin.take();
                    return;
                }
            }
        });
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
        self.close_stdin();
        let group = self.group.pid();
        let group_alive = || group.is_some_and(crate::os::reaper::group_alive);
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
        let mut writer = self
            .writer
            .lock()
            .map_err(|_| "stdin writer poisoned".to_owned())?;
        if let Some(error) = &writer.failed {
            return Err(format!(
                "server {:?} no longer reads its stdin: {error}",
                self.name
            ));
        }
        if writer.closing {
            return Err(format!("server {:?} is shutting down", self.name));
        }
        if writer.flushing {
            if writer.backlog_bytes + bytes.len() > MAX_STDIN_BACKLOG && writer.backlog_bytes > 0 {
                return Err(format!(
                    "server {:?} does not read its stdin: {} bytes already wait to be written \
                     (limit {MAX_STDIN_BACKLOG})",
                    self.name, writer.backlog_bytes
                ));
            }
            writer.backlog_bytes += bytes.len();
            writer.backlog.push_back(bytes);
            return Ok(());
        }
        // No backlog: write straight into the pipe, which almost always takes a line at once.
        let Ok(mut stdin) = self.stdin.try_lock() else {
            // A backlog task that just finished still holds the pipe: queue behind it.
            writer.backlog_bytes += bytes.len();
            writer.backlog.push_back(bytes);
            writer.flushing = true;
            drop(writer);
            self.spawn_flush();
            return Ok(());
        };
        let Some(pipe) = stdin.as_mut() else {
            return Err(format!("server {:?} is shutting down", self.name));
        };
        match Self::write_now(pipe, &bytes) {
            Ok([]) => Ok(()),
            Ok(rest) => {
                writer.backlog_bytes += rest.len();
                writer.backlog.push_back(rest.to_vec());
                writer.flushing = true;
                drop(stdin);
                drop(writer);
                self.spawn_flush();
                Ok(())
            }
            Err(e) => {
                writer.failed = Some(e.to_string());
                stdin.take();
                Err(format!(
                    "server {:?} no longer reads its stdin: {e}",
                    self.name
                ))
            }
        }
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        let mut reader = self.reader.lock().await;
        let Reader { stdout, buf } = &mut *reader;
        match stdout.read(buf).await {
            Ok(0) => None,
            Ok(n) => Some(Ok(buf[..n].to_vec())),
            Err(e) => Some(Err(e.to_string())),
        }
    }

    async fn closed_reason(&self) -> String {
        // Stdout closed; the exit status usually follows within milliseconds.
        let status = self.wait_exit(Duration::from_millis(500)).await;
        // The stderr reader may still be a pipe's worth of lines behind the exit, and the last
        // line (the crash message) matters most: wait for its end of file. Bounded, because
        // something the server started may still hold the pipe open.
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(Duration::from_millis(500), done.wait_for(|d| *d)).await;
        let how = status.map_or_else(|| "closed its stdout".to_owned(), describe);
        format!("server {:?} {how}{}", self.name, self.stderr_summary())
    }

    async fn close(&self) {
        self.shutdown().await;
    }
}
