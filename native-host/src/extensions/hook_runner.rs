//! Running hooks: `type: "command"` as a child process, `type: "http"` as a POST.
//!
//! A command hook runs `/bin/sh -c COMMAND` in the project directory with the event JSON on stdin,
//! in its own process group, with the short environment MCP servers get (never the model's
//! key or other secrets of the host) plus `CLAUDE_PROJECT_DIR` and, for a plugin's hook,
//! `CLAUDE_PLUGIN_ROOT`. When it exits, times out, or the run is interrupted (its future
//! dropped), its whole tree goes: the group, every descendant, and what was orphaned under
//! agentwire as subreaper (a forked daemon). Its stdout and stderr are read to the end but
//! kept to [`MAX_OUTPUT_BYTES`] each, redacted, and shown free of terminal escapes. Every run
//! is one audit line: event, hook, source, exit, duration, decision.

use crate::os::reaper::{self, Tracked};
use crate::os::term_safe::visible;
use crate::transport::stdio::INHERITED_ENV;
use agentwire::audit::redact_text;
use agentwire::driver::HookRunner;
use agentwire::hooks::{read_run, HookEvent, HookExit, HookHandler, HookRun, HookSpec};
use nix::sys::signal::{killpg, Signal};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The shell that runs a command hook, by absolute path: a relative `sh` with the clean
/// environment's own `PATH` makes the standard library fall back from `posix_spawn` (a
/// vfork-like start) to a full `fork` of agentwire plus a `PATH` search in the child, which
/// cost most of a hook's start; and no `sh` earlier on a `PATH` can stand in for it.
const SHELL: &str = "/bin/sh";

/// Most bytes of a hook's stdout (and of its stderr) kept; the rest is read and dropped, so a
/// hook printing 100 MB neither fills memory nor blocks on a full pipe.
pub const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// Runs a session's hooks.
pub struct HookProcesses {
    /// `CLAUDE_PROJECT_DIR`, and where commands run.
    project_dir: PathBuf,
    /// The audit log, when one is kept.
    audit: Option<RefCell<File>>,
}

impl HookProcesses {
    /// Runs hooks in `project_dir`, auditing to `audit`.
    pub fn new(project_dir: PathBuf, audit: Option<File>) -> Rc<HookProcesses> {
        Rc::new(HookProcesses {
            project_dir,
            audit: audit.map(RefCell::new),
        })
    }

    /// The runner for [`agentwire::driver::Runtime::set_hook_runner`].
    pub fn runner(self: &Rc<Self>) -> HookRunner {
        let this = Rc::clone(self);
        Rc::new(move |event, input, hooks| {
            let this = Rc::clone(&this);
            Box::pin(async move { this.run_all(event, &input, &hooks).await })
        })
    }

    /// Runs every hook at once; one run per hook, in order.
    pub async fn run_all(
        &self,
        event: HookEvent,
        input: &Value,
        hooks: &[HookSpec],
    ) -> Vec<HookRun> {
        let body = input.to_string();
        let runs = hooks.iter().map(|spec| async {
            let started = Instant::now();
            let mut run = match &spec.handler {
                HookHandler::Command { command } => self.run_command(command, spec, &body).await,
                HookHandler::Http { url, headers } => run_http(url, headers, spec, &body).await,
                _ => failed("this host runs command and http hooks only"),
            };
            run.duration = started.elapsed();
            run.stdout = clean(&run.stdout);
            run.stderr = clean(&run.stderr);
            self.audit(event, spec, &run);
            run
        });
        futures::future::join_all(runs).await
    }

    async fn run_command(&self, command: &str, spec: &HookSpec, body: &str) -> HookRun {
        let mut child = tokio::process::Command::new(SHELL);
        child
            .arg("-c")
            .arg(command)
            .env_clear()
            .current_dir(&self.project_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        for key in INHERITED_ENV {
            if let Some(value) = std::env::var_os(key) {
                child.env(key, value);
            }
        }
        child.env("CLAUDE_PROJECT_DIR", &self.project_dir);
        if let Some(root) = &spec.source.plugin_root {
            child.env("CLAUDE_PLUGIN_ROOT", root);
        }
        reaper::become_subreaper();
        let (mut child, tracked) = match reaper::spawn_tracked(&mut child) {
            Ok(started) => started,
            Err(error) => return failed(&format!("cannot start {SHELL}: {error}")),
        };
        let guard = TreeGuard {
            leader: tracked,
            reaped: AtomicBool::new(false),
            settled: AtomicBool::new(false),
        };
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return failed("internal error: the hook started without pipes");
        };
        let body = body.as_bytes().to_vec();
        let feed = async move {
            // A hook that never reads its stdin is fine: the write fails or is dropped.
            let _ = stdin.write_all(&body).await;
            drop(stdin);
        };
        let (mut out, mut err) = (Capture::default(), Capture::default());
        let finished = tokio::time::timeout(spec.timeout, async {
            let waiting = async {
                let status = child.wait().await;
                guard.kill_after_exit();
                status
            };
            let (status, ..) = tokio::join!(
                waiting,
                feed,
                pump(stdout, &mut out),
                pump(stderr, &mut err)
            );
            status
        })
        .await;
        let exit = match finished {
            Ok(Ok(status)) => match status.code() {
                Some(code) => HookExit::Code(code),
                None => HookExit::Failed(format!("killed by a signal ({status})")),
            },
            Ok(Err(error)) => HookExit::Failed(format!("waiting for the hook failed: {error}")),
            Err(_) => {
                guard.kill();
                let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
                guard.kill_after_exit();
                HookExit::TimedOut(spec.timeout)
            }
        };
        guard.settled.store(true, Ordering::Relaxed);
        HookRun {
            exit,
            stdout: out.text(),
            stderr: err.text(),
            duration: Duration::ZERO,
        }
    }

    fn audit(&self, event: HookEvent, spec: &HookSpec, run: &HookRun) {
        let Some(file) = &self.audit else { return };
        let result = read_run(event, spec.name(), run);
        let decision = match (
            &result.permission,
            &result.block,
            &result.stop,
            &result.error,
        ) {
            (Some((permission, _)), ..) => permission.as_str(),
            (_, Some(_), ..) => "block",
            (_, _, Some(_), _) => "stop",
            (.., Some(_)) => "error",
            _ if result.context.is_some() => "context",
            _ => "none",
        };
        let exit = match &run.exit {
            HookExit::Code(code) => json!(code),
            HookExit::TimedOut(_) => json!("timeout"),
            HookExit::Failed(_) => json!("failed"),
            _ => json!("unknown"),
        };
        let line = json!({
            "type": "hook",
            "event": event.as_str(),
            "hook": redact_text(spec.name()),
            "source": spec.source.label,
            "exit": exit,
            "duration_ms": u64::try_from(run.duration.as_millis()).unwrap_or(u64::MAX),
            "decision": decision,
        });
        if let Err(error) = writeln!(file.borrow_mut(), "{line}") {
            eprintln!("warning: could not write the audit log: {error}");
        }
    }
}

fn failed(why: &str) -> HookRun {
    HookRun {
        exit: HookExit::Failed(why.to_owned()),
        stdout: String::new(),
        stderr: String::new(),
        duration: Duration::ZERO,
    }
}

/// Output as it may go anywhere: secrets redacted, terminal controls shown as escapes (a
/// JSON text stays valid JSON: a raw control character becomes its `\uXXXX` escape).
fn clean(text: &str) -> String {
    visible(&redact_text(text)).into_owned()
}

async fn run_http(url: &str, headers: &[(String, String)], spec: &HookSpec, body: &str) -> HookRun {
    let client = match reqwest::Client::builder()
        .timeout(spec.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(client) => client,
        Err(error) => return failed(&format!("http client: {error}")),
    };
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) if error.is_timeout() => {
            return HookRun {
                exit: HookExit::TimedOut(spec.timeout),
                ..failed("")
            }
        }
        Err(error) => return failed(&format!("POST {url}: {error}")),
    };
    let status = response.status();
    let mut stream = response;
    let mut capture = Capture::default();
    loop {
        match stream.chunk().await {
            Ok(Some(chunk)) => capture.push(&chunk),
            Ok(None) => break,
            Err(error) => return failed(&format!("POST {url}: reading the answer: {error}")),
        }
    }
    if status.is_success() {
        HookRun {
            exit: HookExit::Code(0),
            stdout: capture.text(),
            ..failed("")
        }
    } else {
        HookRun {
            exit: HookExit::Failed(format!("POST {url} answered {status}")),
            ..failed("")
        }
    }
}

/// Ends the hook's whole process tree (as the `bash` tool's guard does): after it exits, at
/// its timeout, and when its run is dropped (Ctrl-C).
struct TreeGuard {
    leader: Tracked,
    /// The hook itself was reaped: what it left is in its group or among our orphans.
    reaped: AtomicBool,
    /// The run ended normally, its tree already ended at exit: dropping it only kills the
    /// group again (cheap), without a second look for orphans.
    settled: AtomicBool,
}

impl TreeGuard {
    /// Kills the hook's group (and, while it lives, its descendants that left the group).
    fn kill_group(&self) {
        if let Some(pid) = self.leader.pid() {
            // While the hook lives its descendants are found from it (a scan of every
            // process); once it is reaped, what it left is in its group or our orphans.
            if !self.reaped.load(Ordering::Relaxed) {
                reaper::kill_descendants(pid);
            }
            let _ = killpg(pid, Signal::SIGKILL);
        }
    }

    /// Kills the group and sweeps the orphans now (timeout, interrupted run).
    fn kill(&self) {
        self.kill_group();
        // The full sweep scans every process: only when there is an orphan to find.
        if reaper::has_orphans() {
            reaper::sweep_orphans();
        }
    }

    /// After the hook exited: its group, and the orphans it left (a `setsid` daemon keeping
    /// the hook's pipes open would otherwise hold the call until the hook's timeout).
    fn kill_after_exit(&self) {
        self.reaped.store(true, Ordering::Relaxed);
        self.kill();
    }
}

impl Drop for TreeGuard {
    fn drop(&mut self) {
        if self.settled.load(Ordering::Relaxed) {
            self.kill_group();
        } else {
            self.kill();
        }
    }
}

/// The first [`MAX_OUTPUT_BYTES`] of a stream, and how much more there was.
#[derive(Default)]
struct Capture {
    kept: Vec<u8>,
    dropped: u64,
}

impl Capture {
    fn push(&mut self, data: &[u8]) {
        let room = MAX_OUTPUT_BYTES.saturating_sub(self.kept.len());
        let take = room.min(data.len());
        self.kept.extend_from_slice(&data[..take]);
        self.dropped += (data.len() - take) as u64;
    }

    fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!("\n[hook output cut: {} more bytes]", self.dropped));
        }
        text
    }
}

async fn pump(mut pipe: impl AsyncRead + Unpin, capture: &mut Capture) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => capture.push(&buf[..n]),
        }
    }
}
