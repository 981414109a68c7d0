//! `bash`: runs `bash -c` in the workspace with a timeout and an output budget.
//!
//! The command runs in its own process group. When bash exits, the rest of the group
//! (background jobs) is killed so that their open pipes cannot keep the call waiting; on a timeout
//! or when the call is cancelled (its future dropped) the whole group is killed. tokio reaps the
//! killed child, so nothing is left as a zombie.

use super::args::Args;
use super::{BuiltinTool, ToolContext, Workspace, RISK_EXECUTE};
use crate::stdio::INHERITED_ENV;
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

/// Runs shell commands.
pub(crate) struct Bash {
    ws: Workspace,
}

impl Bash {
    pub(crate) fn new(ws: Workspace) -> Self {
        Bash { ws }
    }
}

#[async_trait]
impl BuiltinTool for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }
    fn description(&self) -> &'static str {
        "Run a command with `bash -c` in the workspace directory and return its stdout, \
         stderr and exit code. Each call is a fresh shell; background jobs are ended when the \
         command finishes. Default timeout 30 s (timeout_ms to change, capped); long output is \
         cut in the middle."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command"},
                "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds (default 30000)"},
                "description": {"type": "string", "description": "Short note on what the command does, for the user"}
            },
            "required": ["command"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_EXECUTE
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        run(&self.ws, args, ctx)
            .await
            .unwrap_or_else(ToolOutput::error)
    }
}

/// Kills the process group when dropped: on timeout, on cancellation, and after bash exits.
struct GroupGuard(Option<Pid>);

impl GroupGuard {
    fn kill(&self) {
        if let Some(pgid) = self.0 {
            // ESRCH (nobody left in the group) is the normal case after a clean exit.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn run(ws: &Workspace, args: Value, ctx: &ToolContext) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let command = args.string("command")?;
    if command.trim().is_empty() {
        return Err("the command is empty".into());
    }
    let timeout = match args.opt_u64("timeout_ms")? {
        None => ctx.bash_default_timeout,
        Some(0) => return Err("argument \"timeout_ms\" must be at least 1".into()),
        Some(ms) => Duration::from_millis(ms).min(ctx.bash_max_timeout),
    };
    let mut child = Command::new("bash");
    child
        .arg("-c")
        .arg(&command)
        .env_clear()
        .envs(clean_env(&ctx.bash_env))
        .current_dir(ws.root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = child
        .spawn()
        .map_err(|e| format!("cannot start bash: {e}"))?;
    let guard = GroupGuard(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    );
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("internal error: bash started without pipes".into());
    };
    let budget = ctx.max_output_bytes.max(64);
    let mut out = Capture::new(budget);
    let mut err = Capture::new(budget);
    let finished = tokio::time::timeout(timeout, async {
        let waiting = async {
            let status = child.wait().await;
            guard.kill();
            status
        };
        let (status, _, _) = tokio::join!(waiting, pump(stdout, &mut out), pump(stderr, &mut err));
        status
    })
    .await;
    let status = match finished {
        Ok(Ok(status)) => Some(status),
        Ok(Err(e)) => return Err(format!("waiting for bash failed: {e}")),
        Err(_) => {
            guard.kill();
            // Reap it now; after SIGKILL this is immediate.
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            None
        }
    };
    Ok(render(&out, &err, status, timeout, budget))
}

/// bash's environment: the same short allow-list MCP servers get, plus the variables the user
/// named on purpose. API keys and tokens of the host stay out of the model's reach (`env`,
/// `echo $OPENAI_API_KEY`) unless passed by name.
fn clean_env(extra: &[String]) -> Vec<(String, std::ffi::OsString)> {
    INHERITED_ENV
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str))
        .filter_map(|name| std::env::var_os(name).map(|value| (name.to_owned(), value)))
        .collect()
}

async fn pump(mut pipe: impl AsyncRead + Unpin, capture: &mut Capture) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => capture.push(&buf[..n]),
        }
    }
}

/// Keeps the first and last `keep / 2` bytes of a stream and counts the rest.
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    half: usize,
    total: usize,
}

impl Capture {
    fn new(keep: usize) -> Self {
        Capture {
            head: Vec::new(),
            tail: VecDeque::new(),
            half: keep / 2,
            total: 0,
        }
    }

    fn push(&mut self, data: &[u8]) {
        self.total += data.len();
        let room = self.half.saturating_sub(self.head.len()).min(data.len());
        self.head.extend_from_slice(&data[..room]);
        self.tail.extend(&data[room..]);
        if self.tail.len() > self.half {
            let excess = self.tail.len() - self.half;
            self.tail.drain(..excess);
        }
    }

    /// The stream within `share` bytes: whole, or head and tail around a note.
    fn render(&self, share: usize) -> String {
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if self.total <= share {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let head = &self.head[..(share / 2).min(self.head.len())];
        let tail = &tail[tail.len().saturating_sub(share / 2)..];
        format!(
            "{}\n[... {} bytes cut ...]\n{}",
            String::from_utf8_lossy(head),
            self.total - head.len() - tail.len(),
            String::from_utf8_lossy(tail)
        )
    }
}

fn render(
    out: &Capture,
    err: &Capture,
    status: Option<ExitStatus>,
    timeout: Duration,
    budget: usize,
) -> ToolOutput {
    // stderr usually explains a failure, so it keeps at least a quarter of the budget.
    let err_share = err
        .total
        .min((budget / 4).max(budget.saturating_sub(out.total)));
    let out_share = budget - err_share;
    let mut text = String::new();
    if out.total > 0 {
        text.push_str(&out.render(out_share));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if err.total > 0 {
        text.push_str("[stderr]\n");
        text.push_str(&err.render(err_share));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if text.is_empty() {
        text.push_str("(no output)\n");
    }
    let (exit_code, failed) = match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(0), _) => (Some(0), false),
            (Some(code), _) => {
                text.push_str(&format!("[exit code {code}]"));
                (Some(code), true)
            }
            (None, sig) => {
                text.push_str(&format!("[killed by signal {}]", sig.unwrap_or(0)));
                (None, true)
            }
        },
        None => {
            text.push_str(&format!(
                "[timed out after {} ms; the command and its children were killed]",
                timeout.as_millis()
            ));
            (None, true)
        }
    };
    let mut output = if failed {
        ToolOutput::error(text.trim_end())
    } else {
        ToolOutput::text(text.trim_end())
    };
    output.structured_content = Some(json!({
        "exit_code": exit_code,
        "timed_out": status.is_none(),
        "stdout_bytes": out.total,
        "stderr_bytes": err.total,
    }));
    output
}
