//! Child processes that must not outlive their purpose: `bash` jobs that escape with `setsid`,
//! double forks or `nohup`, and what MCP servers leave in their process groups.
//!
//! Once a `bash` call has run, agentwire is a child subreaper (`PR_SET_CHILD_SUBREAPER`): a
//! process orphaned anywhere below it is re-parented to agentwire instead of init, so it can
//! still be found. The children agentwire starts on purpose (servers, bash) are *tracked*;
//! any other child is such an orphan, and [`sweep_orphans`] ends it (SIGKILL) and reaps it.
//! Descendants of a live process are found through `/proc` parent links.
//!
//! Not covered: a process that double-forks out of a server *while agentwire has never run
//! bash* goes to init, as before; and a child started by other code in the same process
//! without [`spawn_tracked`] would count as an orphan (the CLI starts none while bash runs
//! but the OAuth browser opener).

use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Whether this process became a subreaper (only then can it have adopted orphans).
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Pids of the children agentwire started on purpose and still owns (each leads its group).
static TRACKED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// How long [`sweep_orphans`] waits for killed orphans to die before calling them survivors.
const REAP_WITHIN: Duration = Duration::from_secs(2);
/// Rounds of kill-and-look-again: each round catches what the previous one orphaned.
const MAX_ROUNDS: usize = 50;

/// A tracked child; dropping it stops tracking (after the child has been reaped).
#[derive(Debug)]
pub struct Tracked(Option<i32>);

impl Tracked {
    /// The child's pid, which is also its process group id.
    pub fn pid(&self) -> Option<Pid> {
        self.0.map(Pid::from_raw)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            let mut tracked = TRACKED.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(at) = tracked.iter().position(|p| *p == pid) {
                tracked.swap_remove(at);
            }
        }
    }
}

/// Spawns `command` and tracks the child, atomically with respect to [`sweep_orphans`], so a
/// sweep on another thread never mistakes a new child for an orphan.
pub fn spawn_tracked(
    command: &mut tokio::process::Command,
) -> std::io::Result<(tokio::process::Child, Tracked)> {
    let mut tracked = TRACKED.lock().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn()?;
    let pid = child.id().and_then(|p| i32::try_from(p).ok());
    tracked.extend(pid);
    Ok((child, Tracked(pid)))
}

/// Makes this process the subreaper of its descendants (once; later calls do nothing). Failure
/// (an old kernel) leaves orphans to init, as without it.
pub fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if nix::sys::prctl::set_child_subreaper(true).is_ok() {
            SUBREAPER.store(true, Ordering::SeqCst);
        }
    });
}

/// One line of `/proc/PID/stat`: the fields this module needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ProcInfo {
    pid: i32,
    ppid: i32,
    pgrp: i32,
    zombie: bool,
}

/// Parses `/proc/PID/stat`; the command name is in parentheses and may hold anything, so the
/// fields are read after the last `)`.
fn parse_stat(pid: i32, stat: &str) -> Option<ProcInfo> {
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(ProcInfo {
        pid,
        ppid,
        pgrp,
        zombie: state == "Z" || state == "X",
    })
}

/// Every process this user can see.
fn processes() -> Vec<ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        parse_stat(pid, &stat)
    })
    .collect()
}

/// The live descendants of `root` (children, their children, ...), not `root` itself.
fn descendants(root: i32, procs: &[ProcInfo]) -> Vec<i32> {
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for p in procs.iter().filter(|p| p.ppid == parent && !p.zombie) {
            if !found.contains(&p.pid) {
                found.push(p.pid);
                frontier.push(p.pid);
            }
        }
    }
    found
}

/// SIGKILLs every descendant of `root` (whatever session or group it moved to), round after
/// round until none is left alive, so a process forking meanwhile is caught too.
pub fn kill_descendants(root: Pid) {
    for _ in 0..MAX_ROUNDS {
        let alive = descendants(root.as_raw(), &processes());
        if alive.is_empty() {
            return;
        }
        for pid in alive {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// Whether any process other than a zombie is still in process group `group`.
pub fn group_alive(group: Pid) -> bool {
    processes()
        .iter()
        .any(|p| p.pgrp == group.as_raw() && !p.zombie)
}

/// Whether this process has a child it did not start on purpose (an orphan re-parented to it
/// as subreaper). Cheap: it reads the kernel's child lists of this process's threads instead
/// of every process's `stat`, so callers can skip [`sweep_orphans`] when there is nothing to
/// sweep. Where the kernel has no child lists it answers `true` (sweep, to be safe).
pub fn has_orphans() -> bool {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return false;
    }
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return true;
    };
    let tracked = TRACKED.lock().unwrap_or_else(|e| e.into_inner());
    for task in tasks.filter_map(|t| t.ok()) {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            return true;
        };
        let untracked = children
            .split_whitespace()
            .filter_map(|pid| pid.parse::<i32>().ok())
            .any(|pid| !tracked.contains(&pid));
        if untracked {
            return true;
        }
    }
    false
}

/// Ends (SIGKILL) and reaps every child of this process that it did not start on purpose:
/// orphans re-parented to it as subreaper. Returns how many were still alive after
/// `REAP_WITHIN` (0 when the tree is gone). Does nothing unless this process is a subreaper:
/// otherwise every child is one somebody started on purpose.
pub fn sweep_orphans() -> usize {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return 0;
    }
    let me = std::process::id() as i32;
    let deadline = Instant::now() + REAP_WITHIN;
    let mut rounds = 0;
    loop {
        let orphans: Vec<ProcInfo> = {
            let tracked = TRACKED.lock().unwrap_or_else(|e| e.into_inner());
            let procs = processes();
            let orphans: Vec<ProcInfo> = procs
                .iter()
                .filter(|p| p.ppid == me && !tracked.contains(&p.pid))
                .copied()
                .collect();
            for orphan in orphans.iter().filter(|p| !p.zombie) {
                // Its own children would be orphaned again when it dies: end them first.
                for pid in descendants(orphan.pid, &procs) {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                }
                let _ = kill(Pid::from_raw(orphan.pid), Signal::SIGKILL);
            }
            orphans
        };
        let left = orphans
            .iter()
            .filter(|o| {
                let reaped = waitpid(Pid::from_raw(o.pid), Some(WaitPidFlag::WNOHANG));
                matches!(reaped, Ok(WaitStatus::StillAlive))
            })
            .count();
        rounds += 1;
        if orphans.is_empty() || rounds >= MAX_ROUNDS || Instant::now() >= deadline {
            return left;
        }
        if left > 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// SIGKILLs the process group of every tracked child and reaps the children (for at most
/// `REAP_WITHIN`): the last resort when the CLI must exit before the polite shutdown has
/// finished (a second Ctrl-C, or the shutdown's time ran out).
pub fn kill_tracked_groups() {
    let pids: Vec<Pid> = {
        let tracked = TRACKED.lock().unwrap_or_else(|e| e.into_inner());
        tracked.iter().map(|p| Pid::from_raw(*p)).collect()
    };
    for pid in &pids {
        let _ = killpg(*pid, Signal::SIGKILL);
    }
    let deadline = Instant::now() + REAP_WITHIN;
    let mut left = pids;
    while !left.is_empty() && Instant::now() < deadline {
        left.retain(|pid| {
            matches!(
                waitpid(*pid, Some(WaitPidFlag::WNOHANG)),
                Ok(WaitStatus::StillAlive)
            )
        });
        if !left.is_empty() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_after_the_command_name() {
        let line = "4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 0";
        assert_eq!(
            parse_stat(4242, line),
            Some(ProcInfo {
                pid: 4242,
                ppid: 17,
                pgrp: 4242,
                zombie: false
            })
        );
        let zombie = parse_stat(9, "9 (sh) Z 1 9 9").unwrap();
        assert!(zombie.zombie);
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn descendants_follow_parent_links_through_every_level() {
        let p = |pid, ppid| ProcInfo {
            pid,
            ppid,
            pgrp: pid,
            zombie: false,
        };
        let procs = [p(10, 1), p(11, 10), p(12, 11), p(13, 1), p(14, 12)];
        let mut found = descendants(10, &procs);
        found.sort();
        assert_eq!(found, [11, 12, 14]);
        assert!(descendants(13, &procs).is_empty());
    }
}
