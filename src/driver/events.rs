//! The bounded queue between a connection's driver and whoever reads its events
//! ([`McpClient::take_events`](super::McpClient::take_events)).
//!
//! A server may send notifications that no request waits for as fast as it can write; a reader
//! that looks only between agent runs (or never) must not turn that into unbounded memory. So
//! the queue holds at most [`EVENT_QUEUE_CAPACITY`] events, each kind with a stated policy:
//! - `Closed` is always queued (it comes once, and ends the stream's meaning);
//! - `ToolsListChanged` and `ListChanged` are coalesced: one queued means "list again", a
//!   second of the same kind adds nothing;
//! - a `ServerRequest` that finds the queue full is refused by the caller (answered with an
//!   error, so the server does not wait forever) and counted;
//! - everything else (logs, progress, other notifications, protocol errors, unexpected
//!   responses) is dropped and counted when the queue is full.
//!
//! Drops are reported in band: the next event read after a drop is
//! [`SessionEvent::EventsDropped`] with how many were lost since the last report.

use crate::mcp::SessionEvent;
use futures::Stream;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Whether two events are the same list change (compared by kind alone: a full `==` on
/// events would carry the comparison of every event's contents into the wasm build).
fn same_list_change(a: &SessionEvent, b: &SessionEvent) -> bool {
    use SessionEvent::{ListChanged, ToolsListChanged};
    match (a, b) {
        (ToolsListChanged, ToolsListChanged) => true,
        (ListChanged(a), ListChanged(b)) => a == b,
        _ => false,
    }
}

/// Most events one connection keeps for a reader that has not read them yet.
pub const EVENT_QUEUE_CAPACITY: usize = 256;

/// What became of an event offered to the queue.
#[derive(Debug, PartialEq)]
pub(super) enum Offered {
    /// Queued for the reader.
    Queued,
    /// Merged with an equal event already queued.
    Coalesced,
    /// The queue was full: the event was dropped and counted. A server request comes back so
    /// the caller can answer it.
    Dropped(Option<SessionEvent>),
}

#[derive(Debug, Default)]
struct Queue {
    events: VecDeque<SessionEvent>,
    /// Dropped since the last `EventsDropped` report.
    unreported: u64,
    /// Dropped since the connection started.
    total: u64,
    /// The writing side is gone: once empty, the stream ends.
    ended: bool,
    waker: Option<Waker>,
}

impl Queue {
    fn wake(&mut self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }
}

/// The writing end, held by the connection; dropping it ends the stream once drained.
#[derive(Debug)]
pub(super) struct EventSink {
    queue: Rc<RefCell<Queue>>,
    capacity: usize,
}

impl EventSink {
    /// A queue of at most `capacity` events (besides `Closed`), and its reading end.
    pub(super) fn new(capacity: usize) -> (EventSink, EventStream) {
        let queue = Rc::new(RefCell::new(Queue::default()));
        let stream = EventStream {
            queue: Rc::clone(&queue),
        };
        (EventSink { queue, capacity }, stream)
    }

    /// Offers one event, applying the policy of its kind (see the module documentation).
    pub(super) fn offer(&self, event: SessionEvent) -> Offered {
        let mut queue = self.queue.borrow_mut();
        let offered = match event {
            SessionEvent::Closed { .. } => {
                queue.events.push_back(event);
                Offered::Queued
            }
            SessionEvent::ToolsListChanged | SessionEvent::ListChanged(_)
                if queue.events.iter().any(|e| same_list_change(e, &event)) =>
            {
                Offered::Coalesced
            }
            _ if queue.events.len() >= self.capacity => {
                queue.unreported += 1;
                queue.total += 1;
                let refused = matches!(event, SessionEvent::ServerRequest { .. });
                Offered::Dropped(refused.then_some(event))
            }
            _ => {
                queue.events.push_back(event);
                Offered::Queued
            }
        };
        queue.wake();
        offered
    }

    /// Counts events dropped before they reached this queue (by the session's own cap).
    pub(super) fn count_dropped(&self, count: u64) {
        if count > 0 {
            let mut queue = self.queue.borrow_mut();
            queue.unreported += count;
            queue.total += count;
            queue.wake();
        }
    }

    /// Events dropped since the connection started.
    pub(super) fn dropped(&self) -> u64 {
        self.queue.borrow().total
    }
}

impl Drop for EventSink {
    fn drop(&mut self) {
        let mut queue = self.queue.borrow_mut();
        queue.ended = true;
        queue.wake();
    }
}

/// The queue was empty (see [`EventStream::try_recv`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Empty;

/// The events of one connection that no command waits for, bounded (see the module
/// documentation). A [`Stream`] that ends when the connection is gone and everything was read.
#[derive(Debug)]
pub struct EventStream {
    queue: Rc<RefCell<Queue>>,
}

impl EventStream {
    /// The next event without waiting, or [`Empty`].
    pub fn try_recv(&mut self) -> Result<SessionEvent, Empty> {
        let mut queue = self.queue.borrow_mut();
        if queue.unreported > 0 {
            let count = std::mem::take(&mut queue.unreported);
            return Ok(SessionEvent::EventsDropped { count });
        }
        queue.events.pop_front().ok_or(Empty)
    }

    /// How many events are waiting to be read.
    pub fn len(&self) -> usize {
        self.queue.borrow().events.len()
    }

    /// Whether no event waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Stream for EventStream {
    type Item = SessionEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SessionEvent>> {
        let this = self.get_mut();
        if let Ok(event) = this.try_recv() {
            return Poll::Ready(Some(event));
        }
        let mut queue = this.queue.borrow_mut();
        if queue.ended {
            return Poll::Ready(None);
        }
        queue.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log(n: u64) -> SessionEvent {
        SessionEvent::Log {
            level: "info".into(),
            logger: None,
            data: json!(n),
        }
    }

    fn drain(stream: &mut EventStream) -> Vec<SessionEvent> {
        std::iter::from_fn(|| stream.try_recv().ok()).collect()
    }

    #[test]
    fn a_full_queue_drops_and_counts_and_reports_in_band() {
        let (sink, mut stream) = EventSink::new(3);
        for n in 0..10 {
            sink.offer(log(n));
        }
        assert_eq!(sink.dropped(), 7);
        let events = drain(&mut stream);
        assert_eq!(
            events,
            vec![
                SessionEvent::EventsDropped { count: 7 },
                log(0),
                log(1),
                log(2)
            ]
        );
        // Room again: events queue, and the count restarts from the last report.
        sink.offer(log(10));
        assert_eq!(drain(&mut stream), vec![log(10)]);
        assert_eq!(sink.dropped(), 7, "the total keeps counting from the start");
    }

    #[test]
    fn closed_always_queues_list_changed_coalesces_server_requests_come_back() {
        let (sink, mut stream) = EventSink::new(2);
        assert_eq!(sink.offer(SessionEvent::ToolsListChanged), Offered::Queued);
        assert_eq!(
            sink.offer(SessionEvent::ToolsListChanged),
            Offered::Coalesced
        );
        assert_eq!(sink.offer(log(1)), Offered::Queued);
        let request = SessionEvent::ServerRequest {
            id: crate::jsonrpc::Id::from(5),
            method: "roots/list".into(),
            params: None,
        };
        assert_eq!(sink.offer(request.clone()), Offered::Dropped(Some(request)));
        assert_eq!(sink.offer(log(2)), Offered::Dropped(None));
        let closed = SessionEvent::Closed { reason: "r".into() };
        assert_eq!(sink.offer(closed.clone()), Offered::Queued);
        assert_eq!(
            drain(&mut stream),
            vec![
                SessionEvent::EventsDropped { count: 2 },
                SessionEvent::ToolsListChanged,
                log(1),
                closed
            ]
        );
    }

    #[test]
    fn the_stream_ends_when_the_sink_is_gone_and_drained() {
        use futures::StreamExt;
        let (sink, mut stream) = EventSink::new(2);
        sink.offer(log(1));
        sink.count_dropped(3);
        drop(sink);
        let events = futures::executor::block_on(async {
            let mut all = Vec::new();
            while let Some(event) = stream.next().await {
                all.push(event);
            }
            all
        });
        assert_eq!(
            events,
            vec![SessionEvent::EventsDropped { count: 3 }, log(1)]
        );
    }
}
