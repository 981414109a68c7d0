//! Task status through `subscriptions/listen` (the Tasks extension): once a `tools/call` became
//! a task, the session opens a `subscriptions/listen` for that task's id
//! (`{"notifications": {"taskIds": [id]}}`). When the server acknowledges it
//! (`notifications/subscriptions/acknowledged`, whose `_meta` names the stream by the listen
//! request's id, listing the task among what it will send), each `notifications/tasks` on it
//! carries the whole task, as `tasks/get` would have answered, and is handled the same way;
//! `tasks/get` is then only a fallback, sent when the stream has been quiet for
//! [`TASK_FALLBACK_POLL`]. A stream the server refuses, does not acknowledge for the task, or
//! ends puts the task back on ordinary polling. When the task ends its stream is cancelled.

use super::events::RequestId;
use super::session::ClientSession;
use super::tasks::MAX_TASK_POLL;
use crate::jsonrpc::{Id, Message, Request};
use crate::time::Instant;
use serde_json::{json, Value};
use std::time::Duration;

/// How long a task whose status is pushed may go without news before `tasks/get` asks.
pub const TASK_FALLBACK_POLL: Duration = MAX_TASK_POLL;

/// The `_meta` key naming the stream a notification belongs to (the listen request's id).
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

impl ClientSession {
    /// Opens the status stream of task `op` (modern era only; not in the pending table: it
    /// stays open as long as the task, and its end is handled in [`Self::task_listen_ended`]).
    pub(super) fn listen_for_task(&mut self, op: RequestId) {
        let (Some(at), Some(envelope)) = (self.task_at(op), &self.envelope) else {
            return;
        };
        let id = self.peek_next_id();
        self.pending.skip_id();
        let filter = json!({"notifications": {"taskIds": [self.tasks[at].task_id()]}});
        let request = Request {
            id: Id::from(id),
            method: "subscriptions/listen".into(),
            params: envelope.wrap(Some(filter), self.log_level.as_deref()),
        };
        self.transmit
            .push_back(crate::framing::encode_line(&Message::Request(request)));
        self.tasks[at].listen = Some(id);
    }

    /// A notification about task streams: `true` when it was one (and was handled).
    pub(super) fn task_notification(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<&Value>,
    ) -> bool {
        let params = params.unwrap_or(&Value::Null);
        match method {
            "notifications/subscriptions/acknowledged" => {
                self.task_listen_acknowledged(now, params)
            }
            "notifications/tasks" => {
                let id = params.get("taskId").and_then(Value::as_str);
                let followed = self.tasks.iter().find(|t| Some(t.task_id()) == id);
                // News of a task this session does not follow says nothing to act on.
                if let Some(op) = followed.map(|t| t.op()) {
                    self.task_state(now, op, params.clone());
                }
                true
            }
            _ => false,
        }
    }

    /// The server acknowledged a stream: if it is a task's and lists the task, its status is
    /// pushed from now on (the next poll moves out to the fallback interval).
    fn task_listen_acknowledged(&mut self, now: Instant, params: &Value) -> bool {
        let stream = params
            .get("_meta")
            .and_then(|m| m.get(SUBSCRIPTION_ID))
            .and_then(Value::as_u64);
        let Some(task) = self
            .tasks
            .iter_mut()
            .find(|t| stream.is_some() && t.listen == stream)
        else {
            // Not a task's stream (the list_changed one's): reported as before.
            return false;
        };
        let accepted = params
            .pointer("/notifications/taskIds")
            .and_then(Value::as_array)
            .is_some_and(|ids| ids.iter().any(|id| id.as_str() == Some(task.task_id())));
        task.pushed = accepted;
        if accepted {
            let give_up_at = task.give_up_at();
            if let Some(due) = task.next_poll.as_mut() {
                *due = (now + TASK_FALLBACK_POLL).min(give_up_at);
            }
        }
        true
    }

    /// A response to a task's stream: it ended (or was refused), and the task is polled again
    /// as usual. `false` for other ids.
    pub(super) fn task_listen_ended(&mut self, now: Instant, wire_id: u64) -> bool {
        let Some(task) = self.tasks.iter_mut().find(|t| t.listen == Some(wire_id)) else {
            return false;
        };
        task.listen = None;
        task.pushed = false;
        let soon = now + task.interval();
        if let Some(due) = task.next_poll.as_mut() {
            *due = (*due).min(soon);
        }
        true
    }
}
