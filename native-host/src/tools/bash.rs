//! `bash`: runs `bash -c` in the workspace with a timeout and an output budget.
//!
//! The command runs in its own process group with a clean environment (the allow-list MCP
//! servers get, plus `--bash-env` names). When bash exits, on a timeout, and when the call is
//! cancelled (its future dropped), its whole tree is killed: the group, every descendant, and
//! whatever escaped with `setsid`, a double fork or `nohup` (orphans come back to agentwire as
//! subreaper: see [`crate::os::reaper`]), so no background job outlives the call or holds its pipes.
//! Everything killed is reaped.

use super::args::Args;
use super::sandbox_policy::{self, SandboxSettings};
use super::{BuiltinTool, ToolContext, Workspace, RISK_EXECUTE};
use crate::os::reaper::{self, Tracked};
use crate::os::sandbox::{Capabilities, Mode, Prepared, PrivateTmp};
use crate::transport::stdio::INHERITED_ENV;
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use nix::sys::signal::{killpg, Signal};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
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
        let output = run(&self.ws, args, ctx)
            .await
            .unwrap_or_else(ToolOutput::error);
        with_mode(output, ctx.sandbox.mode)
    }
}

/// Ends the command's whole process tree: its process group, every descendant (whatever
/// session or group it moved to), and what was orphaned under agentwire as subreaper. Runs after
/// bash exits, on a timeout, and when the call is cancelled (dropped).
struct TreeGuard {
    leader: Tracked,
    /// Set once bash has been reaped: its pid may then belong to someone else, so its
    /// descendants are no longer looked up by it (they are orphans of ours by then anyway).
    reaped: AtomicBool,
}

impl TreeGuard {
    /// Kills everything the command started; returns how many processes survived.
    fn kill(&self) -> usize {
        if let Some(pid) = self.leader.pid() {
            if !self.reaped.load(Ordering::Relaxed) {
                reaper::kill_descendants(pid);
            }
            // ESRCH (nobody left in the group) is the normal case after a clean exit.
            let _ = killpg(pid, Signal::SIGKILL);
        }
        reaper::sweep_orphans()
    }

    /// Like [`TreeGuard::kill`], once bash itself has been reaped.
    fn kill_after_exit(&self) -> usize {
        self.reaped.store(true, Ordering::Relaxed);
        self.kill()
    }
}

impl Drop for TreeGuard {
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
    let env = clean_env(&ctx.bash_env);
    let path = env.iter().find(|(name, _)| name == "PATH").map(|(_, v)| v);
    let mut child = Command::new(program_on_path("bash", path.map(|p| p.as_os_str())));
    child.arg("-c").arg(&command).env_clear().envs(env);
    // Removed (with what the command left in it) when the call ends.
    let _private_tmp = confine(&mut child, ws, &ctx.sandbox)?;
    child
        .current_dir(ws.root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    // Orphans of the command (`setsid`, double forks, `nohup`) come back to us, not to init.
    reaper::become_subreaper();
    let (mut child, tracked) =
        reaper::spawn_tracked(&mut child).map_err(|e| format!("cannot start bash: {e}"))?;
    let guard = TreeGuard {
        leader: tracked,
        reaped: AtomicBool::new(false),
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("internal error: bash started without pipes".into());
    };
    let budget = ctx.max_output_bytes.max(64);
    let mut out = Capture::new(budget);
    let mut err = Capture::new(budget);
    let finished = tokio::time::timeout(timeout, async {
        let waiting = async {
            let status = child.wait().await;
            guard.kill_after_exit();
            status
        };
        let (status, _, _) = tokio::join!(waiting, pump(stdout, &mut out), pump(stderr, &mut err));
        status
    })
    .await;
    let status = match finished {
        Ok(Ok(status)) => status,
        Ok(Err(e)) => return Err(format!("waiting for bash failed: {e}")),
        Err(_) => {
            guard.kill();
            // Reap it now; after SIGKILL this is immediate.
            let reaped = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            let mut survivors = guard.kill_after_exit();
            if !matches!(reaped, Ok(Ok(_))) {
                survivors += 1;
            }
            let ended = Ended::TimedOut { timeout, survivors };
            return Ok(render(&out, &err, ended, budget));
        }
    };
    Ok(render(&out, &err, Ended::Exited(status), budget))
}

/// Notes the sandbox mode the call ran under in its structured result (the audit keeps it).
fn with_mode(mut output: ToolOutput, mode: Mode) -> ToolOutput {
    if let Some(Value::Object(map)) = &mut output.structured_content {
        map.insert("sandbox".into(), json!(mode.as_str()));
    }
    output
}

/// Confines `child` per `settings` (nothing for [`Mode::Off`]): a private temporary folder as
/// `TMPDIR`, and the kernel rules applied in the child before `exec`.
fn confine(
    child: &mut Command,
    ws: &Workspace,
    settings: &SandboxSettings,
) -> Result<Option<PrivateTmp>, String> {
    if settings.mode == Mode::Off {
        return Ok(None);
    }
    let tmp = PrivateTmp::new("bash")
        .map_err(|e| format!("sandbox: cannot make a temporary folder: {e}"))?;
    let mut plan = sandbox_policy::plan(settings, ws, tmp.path());
    let caps = Capabilities::probe();
    if !caps.mount_namespace {
        // Said at start; the rest of the sandbox still holds.
        plan.read_only_mounts.clear();
        plan.pinned.clear();
    }
    if !caps.tcp() {
        // Without Landlock's TCP rules nothing would check the port: no socket at all.
        plan.tcp_ports.clear();
    }
    let mut prepared =
        Prepared::new(&plan).map_err(|e| format!("sandbox: cannot prepare the rules: {e}"))?;
    child.env("TMPDIR", tmp.path());
    // SAFETY: the closure runs between fork and exec; it only makes system calls on objects
    // prepared above (no allocation on success, no locks).
    unsafe {
        child.pre_exec(move || prepared.apply_in_child());
    }
    Ok(Some(tmp))
}

/// `name` by absolute path: the first executable file of that name in `path`'s folders, as the
/// command's own `PATH` lookup would find it (empty and relative entries skipped); `name`
/// itself when none has it, so starting it fails as before. A bare name with a `PATH` of the
/// command's own makes the standard library fall back from `posix_spawn` (a vfork-like start)
/// to a full `fork` of agentwire and a `PATH` search in the child, one failed `execve` per
/// folder before the one holding it.
fn program_on_path(name: &str, path: Option<&std::ffi::OsStr>) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let found = path
        .into_iter()
        .flat_map(std::env::split_paths)
        .find_map(|dir| {
            let candidate = dir.join(name);
            let meta = std::fs::metadata(&candidate).ok()?;
            (dir.is_absolute() && meta.is_file() && meta.permissions().mode() & 0o111 != 0)
                .then_some(candidate)
        });
    found.unwrap_or_else(|| name.into())
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

/// How the command ended.
enum Ended {
    /// bash exited (its background jobs were then ended).
    Exited(ExitStatus),
    /// The timeout fired; `survivors` processes of the tree could not be ended.
    TimedOut { timeout: Duration, survivors: usize },
}

fn render(out: &Capture, err: &Capture, ended: Ended, budget: usize) -> ToolOutput {
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
    let status = match ended {
        Ended::Exited(status) => Some(status),
        Ended::TimedOut { .. } => None,
    };
    let (exit_code, failed) = match ended {
        Ended::Exited(s) => match (s.code(), s.signal()) {
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
        Ended::TimedOut {
            timeout,
            survivors: 0,
        } => {
            text.push_str(&format!(
                "[timed out after {} ms; the command and its children were killed]",
                timeout.as_millis()
            ));
            (None, true)
        }
        Ended::TimedOut { timeout, survivors } => {
            text.push_str(&format!(
                "[timed out after {} ms; the command was killed, but {survivors} of its \
                 processes could not be ended]",
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

#[cfg(test)]
mod tests {
    use super::program_on_path;
    use std::ffi::OsString;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_program_is_the_first_executable_file_of_its_name_on_the_path() {
        let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
        let [plain, folder, first, second] = [0, 1, 2, 3].map(|i| dirs[i].path());
        // Not executable, and a folder of that name: skipped.
        std::fs::write(plain.join("tool"), "").unwrap();
        std::fs::create_dir(folder.join("tool")).unwrap();
        for dir in [first, second] {
            std::fs::write(dir.join("tool"), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(dir.join("tool"), PermissionsExt::from_mode(0o755)).unwrap();
        }
        let path = |dirs: &[&std::path::Path]| -> OsString {
            std::env::join_paths(dirs.iter().map(|d| d.to_path_buf())).unwrap()
        };
        let on = |dirs: &[&std::path::Path]| program_on_path("tool", Some(&path(dirs)));
        assert_eq!(on(&[plain, folder, first, second]), first.join("tool"));
        assert_eq!(on(&[second, first]), second.join("tool"));
        // Nowhere (or no PATH at all): the bare name, so starting it fails as it would have.
        assert_eq!(on(&[plain, folder]), std::path::PathBuf::from("tool"));
        assert_eq!(
            program_on_path("tool", None),
            std::path::PathBuf::from("tool")
        );
        // A relative entry is never resolved (it would depend on the current folder), even
        // one that leads to a folder holding it from here.
        let cwd = std::env::current_dir().unwrap();
        let up = "../".repeat(cwd.components().count() - 1);
        let relative = format!("{up}{}", first.strip_prefix("/").unwrap().display());
        assert!(std::path::Path::new(&relative).join("tool").is_file());
        let entries = OsString::from(format!("{relative}:{}", second.display()));
        assert_eq!(program_on_path("tool", Some(&entries)), second.join("tool"));
    }
}
