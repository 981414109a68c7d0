//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), off by default
//! ([`SessionConfig::tasks`]): a modern server may answer `tools/call` with
//! `resultType: "task"` and a task id instead of the result. The session then follows the task
//! with `tasks/get` (at the server's `pollIntervalMs`, or backing off from
//! [`FIRST_TASK_POLL`] to [`MAX_TASK_POLL`]), answers its `input_required` requests through the
//! same paths as multi-round-trip requests and sends them with `tasks/update`, reports each
//! status message as progress, and ends the call with the task's result or error. The caller
//! cancelling the call, or the call's total time ([`CallOptions::max_total`], else
//! [`MAX_INPUT_WAIT`], as for multi-round-trip requests) running out, sends `tasks/cancel`. Other requests go on meanwhile: a
//! task is only a timer and, now and then, one small request.
//!
//! [`SessionConfig::tasks`]: super::SessionConfig::tasks
//! [`CallOptions::max_total`]: super::CallOptions::max_total
//! [`MAX_INPUT_WAIT`]: super::MAX_INPUT_WAIT

use super::events::{RequestError, RequestId, SessionEvent};
use super::mrtr::{Sent, MAX_INPUT_WAIT};
use super::session::{ClientSession, Purpose};
use crate::jsonrpc::ErrorObject;
use crate::rpc::Deadlines;
use crate::time::Instant;
use serde_json::{json, Value};
use std::time::Duration;

/// The extension's name in `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// First wait before `tasks/get` when the server suggests no interval.
pub const FIRST_TASK_POLL: Duration = Duration::from_millis(500);
/// Shortest wait between two polls, whatever the server suggests.
pub const MIN_TASK_POLL: Duration = Duration::from_millis(100);
/// Longest wait between two polls (the backoff stops growing there).
pub const MAX_TASK_POLL: Duration = Duration::from_secs(30);
/// Longest task id accepted, in bytes.
pub const MAX_TASK_ID_BYTES: usize = 1024;

/// A task the session follows on behalf of a `tools/call`.
#[derive(Debug)]
pub(super) struct Task {
    /// The caller's handle of the `tools/call`.
    op: RequestId,
    id: String,
    /// When the next `tasks/get` goes out (`None` while one is in flight, or while the task
    /// waits for the host's answers to its input requests).
    pub(super) next_poll: Option<Instant>,
    interval: Duration,
    /// `tasks/get` sent so far (the backoff grows with them).
    polls: u32,
    started: Instant,
    give_up_at: Instant,
    /// The wire id of the `subscriptions/listen` asking for this task's status, while open.
    pub(super) listen: Option<u64>,
    /// Whether the server acknowledged that stream for this task: its status then comes
    /// pushed, and `tasks/get` is only the fallback, every [`TASK_FALLBACK_POLL`].
    pub(super) pushed: bool,
}

impl Task {
    /// The server's task id.
    pub(super) fn task_id(&self) -> &str {
        &self.id
    }

    /// The caller's handle of the `tools/call`.
    pub(super) fn op(&self) -> RequestId {
        self.op
    }

    /// When the session gives up on it.
    pub(super) fn give_up_at(&self) -> Instant {
        self.give_up_at
    }

    /// The wait between two polls, as things stand.
    pub(super) fn interval(&self) -> Duration {
        self.interval
    }
}

impl ClientSession {
    /// A `tools/call` answered with a task: follow it (or, in its first answer already
    /// terminal, end it at once).
    pub(super) fn task_created(
        &mut self,
        now: Instant,
        op: RequestId,
        sent: Option<Sent>,
        result: Value,
    ) {
        let id = match result.get("taskId").and_then(Value::as_str) {
            Some(id) if !id.is_empty() && id.len() <= MAX_TASK_ID_BYTES => id.to_owned(),
            _ => {
                let what = "a task without a usable taskId (a string of 1 to 1024 bytes)";
                let error = self.peer_error("tools/call", what);
                return self.fail(op.0, Purpose::CallTool { op }, error);
            }
        };
        let give_up_at = sent.map_or(now + MAX_INPUT_WAIT, |s| s.give_up_at.max(now));
        let task = Task {
            op,
            id,
            next_poll: None,
            interval: FIRST_TASK_POLL,
            polls: 0,
            started: now,
            give_up_at,
            listen: None,
            pushed: false,
        };
        self.tasks.push(task);
        self.task_state(now, op, result);
        // Still going: ask for its status on `subscriptions/listen` (`src/mcp/task_listen.rs`).
        if self.task_at(op).is_some() {
            self.listen_for_task(op);
        }
    }

    pub(super) fn task_at(&self, op: RequestId) -> Option<usize> {
        self.tasks.iter().position(|t| t.op == op)
    }

    /// A task's state, from its creation, a `tasks/get` or a `tasks/update` acknowledgement.
    pub(super) fn task_state(&mut self, now: Instant, op: RequestId, state: Value) {
        let Some(at) = self.task_at(op) else { return };
        let purpose = Purpose::CallTool { op };
        let status = state.get("status").and_then(Value::as_str);
        if let Some(message) = state.get("statusMessage").and_then(Value::as_str) {
            let elapsed = now.saturating_since(self.tasks[at].started).as_millis() as f64;
            self.push_droppable(SessionEvent::Progress {
                request: op,
                progress: elapsed,
                total: None,
                message: Some(message.to_owned()),
            });
        }
        match status {
            Some("completed") => {
                self.drop_task(at);
                let result = state.get("result").cloned().unwrap_or(Value::Null);
                if result.is_object() {
                    return self.handle_result(now, purpose, result);
                }
                let error = self.peer_error("tasks/get", "a completed task without a result");
                self.fail(op.0, purpose, error);
            }
            Some("failed") => {
                self.drop_task(at);
                let error = state.get("error");
                let error = ErrorObject {
                    code: error
                        .and_then(|e| e.get("code"))
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                    message: error
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("the task failed")
                        .to_owned(),
                    data: error.and_then(|e| e.get("data")).cloned(),
                };
                self.fail(op.0, purpose, RequestError::Rpc(error));
            }
            Some("cancelled") => {
                self.drop_task(at);
                let reason = "the server cancelled the task".to_owned();
                self.fail(op.0, purpose, RequestError::Cancelled(reason));
            }
            Some("input_required") => {
                // Pushed and polled states may both say so: the host is asked once.
                if self.waiting.iter().any(|w| w.op == op) {
                    return;
                }
                // Answered like a multi-round-trip request, then sent with `tasks/update`.
                let task = &mut self.tasks[at];
                task.next_poll = None;
                let sent = Sent {
                    params: Some(json!({"taskId": task.id})),
                    rounds: 0,
                    started: task.started,
                    give_up_at: task.give_up_at,
                };
                let timeout = self.config.request_timeout;
                self.input_required(
                    now,
                    "tasks/update".into(),
                    timeout,
                    Purpose::Task { op },
                    sent,
                    state,
                );
            }
            Some("working") | None => {
                let task = &mut self.tasks[at];
                let hint = state.get("pollIntervalMs").and_then(Value::as_u64);
                task.interval = match hint {
                    Some(ms) => Duration::from_millis(ms).clamp(MIN_TASK_POLL, MAX_TASK_POLL),
                    // No hint: each wait half again as long as the last, up to the cap.
                    None if task.polls > 0 => (task.interval * 3 / 2).min(MAX_TASK_POLL),
                    None => FIRST_TASK_POLL,
                };
                // Pushed status: a poll only if the stream goes quiet for that long.
                let wait = match task.pushed {
                    true => task.interval.max(super::task_listen::TASK_FALLBACK_POLL),
                    false => task.interval,
                };
                task.next_poll = Some((now + wait).min(task.give_up_at));
            }
            Some(other) => {
                let what = format!("a task status {}", crate::json::quoted(other));
                self.end_task(now, at, RequestError::InvalidResult(what));
            }
        }
    }

    /// A `tasks/get` or `tasks/update` for task `op` failed (or its input could not be
    /// answered): the task ends with the error, and `tasks/cancel` tells the server not to go
    /// on working for nobody. A step of a task that has ended already is dropped.
    pub(super) fn task_step_failed(&mut self, op: RequestId, error: RequestError) {
        if let Some(at) = self.task_at(op) {
            self.end_task(self.last_input, at, error);
        }
    }

    /// Ends task `at` with `error`, telling the server with `tasks/cancel`.
    fn end_task(&mut self, now: Instant, at: usize, error: RequestError) {
        let task = self.drop_task(at);
        let params = json!({"taskId": task.id});
        let deadlines = Deadlines::starting_at(now, self.config.request_timeout, None);
        // Its answer (or failure) finds no task any more and is dropped quietly.
        let step = Purpose::Task { op: task.op };
        self.send_request(now, "tasks/cancel", Some(params), deadlines, step);
        self.cancel_waiting(task.op, "");
        self.fail(task.op.0, Purpose::CallTool { op: task.op }, error);
    }

    /// Removes task `at`, closing the status stream opened for it.
    fn drop_task(&mut self, at: usize) -> Task {
        let task = self.tasks.remove(at);
        if let Some(listen) = task.listen {
            self.send_cancelled(listen, "the task ended");
        }
        task
    }

    /// Sends the `tasks/get` that are due and gives up on tasks whose time is up.
    pub(super) fn poll_tasks(&mut self, now: Instant) {
        while let Some(at) = self.tasks.iter().position(|t| t.give_up_at <= now) {
            let waited = now.saturating_since(self.tasks[at].started);
            let error = RequestError::Timeout {
                method: "tools/call (a task)".into(),
                waited,
            };
            self.end_task(now, at, error);
        }
        for at in 0..self.tasks.len() {
            let task = &mut self.tasks[at];
            if task.next_poll.is_none_or(|due| due > now) {
                continue;
            }
            task.next_poll = None;
            task.polls += 1;
            let (op, params) = (task.op, json!({"taskId": task.id}));
            let deadline = Deadlines::starting_at(now, self.config.request_timeout, None);
            self.send_request(
                now,
                "tasks/get",
                Some(params),
                deadline,
                Purpose::Task { op },
            );
        }
    }

    /// The next time a task needs the session: a poll, or its time running out.
    pub(super) fn next_task_time(&self) -> Option<Instant> {
        let due = |t: &Task| t.next_poll.map_or(t.give_up_at, |p| p.min(t.give_up_at));
        self.tasks.iter().map(due).min()
    }

    /// The caller gave up on `op`: if it is a task, `tasks/cancel` goes out and the call ends
    /// cancelled; `false` when `op` is not a task.
    pub(super) fn cancel_task(&mut self, op: RequestId, reason: &str) -> bool {
        let Some(at) = self.task_at(op) else {
            return false;
        };
        // A poll in flight for it finds no task when answered, and is dropped.
        let now = self.last_input;
        self.end_task(now, at, RequestError::Cancelled(reason.to_owned()));
        true
    }

    /// Fails every task: the session closed.
    pub(super) fn close_tasks(&mut self, reason: &str) {
        for task in std::mem::take(&mut self.tasks) {
            let error = RequestError::Closed(reason.to_owned());
            self.fail(task.op.0, Purpose::CallTool { op: task.op }, error);
        }
    }
}
