//! Progress of running MCP calls, from the connection to the run's observer.
//!
//! A server may send `notifications/progress` (or, for a task, a `statusMessage` per poll) as
//! fast as it can write. The connection routes each to the call it is about, into a
//! [`ProgressWatch`] that keeps only the latest, so a flood costs one slot per call; the run
//! shows a call's latest at most once per [`PROGRESS_INTERVAL`] as a `tool_progress` event.

use super::backends::RunObserver;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::agent::{ToolInvocation, UiEvent};
use crate::registry::{char_prefix, ToolSource};
use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::Duration;

/// The least time between two `tool_progress` events of one call.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// Most characters of a server's progress message shown (the rest is cut).
pub const PROGRESS_MESSAGE_CHARS: usize = 200;

/// What a server last said about a call's progress.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Progress so far (for a task: milliseconds since it started).
    pub progress: f64,
    /// Total, if known.
    pub total: Option<f64>,
    /// The server's message, if any (untrusted text).
    pub message: Option<String>,
}

#[derive(Default)]
struct Slot {
    latest: Option<Progress>,
    waker: Option<Waker>,
}

/// One call's latest progress: the connection overwrites it, the reader takes it. Cheap to
/// clone; clones share the slot.
#[derive(Clone, Default)]
pub struct ProgressWatch(Rc<RefCell<Slot>>);

impl ProgressWatch {
    /// Replaces what is kept with `progress` and wakes the reader.
    pub(super) fn offer(&self, progress: Progress) {
        let mut slot = self.0.borrow_mut();
        slot.latest = Some(progress);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    }

    /// The latest progress not yet taken, once there is one.
    pub async fn next(&self) -> Progress {
        std::future::poll_fn(|cx| {
            let mut slot = self.0.borrow_mut();
            match slot.latest.take() {
                Some(progress) => Poll::Ready(progress),
                None => {
                    slot.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }
}

/// Whose call it is when a child runs it: the child's agent name and the parent's `Agent`
/// call id, for the [`UiEvent::Subagent`] wrapper.
pub(super) type ChildLabel<'a> = Option<(&'a str, &'a str)>;

impl<C: Clock> Runtime<C> {
    /// Shows `call`'s progress from `watch` to `observer` until dropped (with the call): the
    /// latest at most once per [`PROGRESS_INTERVAL`], its message cut to
    /// [`PROGRESS_MESSAGE_CHARS`]. Never ends by itself.
    pub(super) async fn report_progress(
        &self,
        watch: &ProgressWatch,
        call: &ToolInvocation,
        child: ChildLabel<'_>,
        observer: &dyn RunObserver,
    ) -> Infallible {
        let server = match &call.target {
            ToolSource::Mcp { server, .. } => Some(server.as_str()),
            _ => None,
        };
        loop {
            let Progress {
                progress,
                total,
                message,
            } = watch.next().await;
            let mut event = UiEvent::ToolProgress {
                id: call.call_id.clone(),
                name: call.name.clone(),
                server: server.map(str::to_owned),
                progress,
                total,
                message: message.map(|m| char_prefix(&m, PROGRESS_MESSAGE_CHARS).0.to_owned()),
            };
            if let Some((agent, parent)) = child {
                event = UiEvent::Subagent {
                    agent: agent.to_owned(),
                    parent_tool_use_id: parent.to_owned(),
                    event: Box::new(event),
                };
            }
            observer.on_event(&event);
            // Whatever arrives meanwhile overwrites the slot: only the latest is shown next.
            let until = self.clock.now() + PROGRESS_INTERVAL;
            self.clock.sleep_until(until).await;
        }
    }
}
