//! One connection's state, shared by its [`McpClient`](super::McpClient) handles and its
//! driver, and the driver: the background future that moves bytes between the transport and
//! the session, fires timers and routes what the session says to waiting commands.

use super::events::{EventSink, EventStream, Offered, EVENT_QUEUE_CAPACITY};
use super::progress::{Progress, ProgressWatch};
use super::traits::{Clock, Transport};
use crate::content::ToolOutput;
use crate::jsonrpc::{ErrorObject, Id};
use crate::mcp::{ClientSession, RequestError, ServerDetails, SessionError, SessionEvent};
use crate::time::Instant;
use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// Answers a server's request (`method`, `params`), such as `sampling/createMessage`; see
/// [`McpClient::connect_serving`](super::McpClient::connect_serving).
pub type RequestHandler =
    Rc<dyn Fn(&str, Option<Value>) -> LocalBoxFuture<'static, Result<Value, ErrorObject>>>;

/// A server request being answered by the handler: its id and the answer to come.
type Answering = LocalBoxFuture<'static, (Id, Result<Value, ErrorObject>)>;

/// What a waiting command receives.
pub(super) enum Completion {
    Tools(Result<Vec<Value>, RequestError>),
    Tool(Result<ToolOutput, RequestError>),
    Value(Result<Value, RequestError>),
}

/// A command waiting for its answer, and where its progress goes (a watched `tools/call`).
pub(super) struct Waiter {
    /// Told the outcome.
    pub(super) done: oneshot::Sender<Completion>,
    /// Told each `Progress` about the request, in place of the event stream.
    pub(super) progress: Option<ProgressWatch>,
}

/// What the client handles and the driver share.
pub(super) struct Shared {
    /// The sans-IO session.
    pub(super) session: ClientSession,
    /// Commands waiting for their answer, by request.
    pub(super) waiters: super::waiters::Waiters<Waiter>,
    /// Told once when the handshake ends, or fails.
    pub(super) ready: Option<oneshot::Sender<Result<ServerDetails, String>>>,
    /// Events no command waits for (list_changed, logs, progress, server requests), bounded.
    pub(super) events: EventSink,
    /// The event stream, until a handle takes it.
    pub(super) events_rx: Option<EventStream>,
    /// The session's own count of dropped events, as last added to `events`.
    pub(super) session_dropped: u64,
    /// Why the session closed, once it did.
    pub(super) closed: Option<String>,
    /// Answers server requests in place of the event stream (see `connect_serving`).
    pub(super) handler: Option<RequestHandler>,
    /// Server requests for the handler, started by the driver.
    pub(super) to_answer: Vec<(Id, String, Option<Value>)>,
}

impl Shared {
    /// Routes the session's events to waiting commands; the rest go to the event stream.
    pub(super) fn dispatch(&mut self) {
        while let Some(event) = self.session.poll_event() {
            let (request, completion) = match event {
                SessionEvent::Ready(details) => {
                    if let Some(ready) = self.ready.take() {
                        let _ = ready.send(Ok(details));
                    }
                    continue;
                }
                SessionEvent::ToolsListed {
                    request,
                    tools: items,
                }
                | SessionEvent::Listed { request, items } => {
                    (request, Completion::Tools(Ok(items)))
                }
                SessionEvent::ToolResult { request, result } => (request, Completion::Tool(result)),
                SessionEvent::Response { request, result } => (request, Completion::Value(result)),
                SessionEvent::Failed { request, error } => (request, Completion::Value(Err(error))),
                SessionEvent::Closed { reason } => {
                    if let Some(ready) = self.ready.take() {
                        let _ = ready.send(Err(reason.clone()));
                    }
                    self.closed = Some(reason.clone());
                    self.events.offer(SessionEvent::Closed { reason });
                    continue;
                }
                SessionEvent::ServerRequest { id, method, params } if self.handler.is_some() => {
                    self.to_answer.push((id, method, params));
                    continue;
                }
                SessionEvent::Progress {
                    request,
                    progress,
                    total,
                    message,
                } if self.watched(request).is_some() => {
                    if let Some(watch) = self.watched(request) {
                        watch.offer(Progress {
                            progress,
                            total,
                            message,
                        });
                    }
                    continue;
                }
                other => {
                    if let Offered::Dropped(Some(SessionEvent::ServerRequest { id, .. })) =
                        self.events.offer(other)
                    {
                        // Nobody will answer it: say so now rather than let the server wait.
                        let busy = ErrorObject::new(
                            crate::jsonrpc::codes::INTERNAL_ERROR,
                            format!(
                                "the client is not keeping up: {EVENT_QUEUE_CAPACITY} events \
                                 already wait to be handled"
                            ),
                        );
                        let _ = self.session.respond(&id, Err(busy));
                    }
                    continue;
                }
            };
            if let Some(waiter) = self.waiters.remove(request) {
                let _ = waiter.done.send(completion);
            }
        }
        let dropped = self.session.dropped_events();
        self.events.count_dropped(dropped - self.session_dropped);
        self.session_dropped = dropped;
    }
}

impl Shared {
    /// Where the progress of `request` goes, when its caller watches it.
    fn watched(&self, request: crate::mcp::RequestId) -> Option<&ProgressWatch> {
        self.waiters.get(request)?.progress.as_ref()
    }
}

/// The shared state with the session's clock and the driver's wake-up channel.
pub(super) struct Inner {
    /// The state the handles and the driver share.
    pub(super) shared: RefCell<Shared>,
    /// The session's clock.
    pub(super) now: Box<dyn Fn() -> Instant>,
    /// Wakes the driver when a handle issued something.
    pub(super) wake: mpsc::UnboundedSender<()>,
}

/// The background future: moves bytes between the transport and the session, fires timers,
/// and routes events, until the session closes or every client handle is dropped.
///
/// It holds the shared state weakly so that dropping the last [`McpClient`] ends the connection.
pub(super) async fn drive<T: Transport, C: Clock + 'static>(
    inner: Weak<Inner>,
    transport: T,
    clock: Rc<C>,
    mut wake: mpsc::UnboundedReceiver<()>,
) {
    let with = |f: &mut dyn FnMut(&mut Shared)| match inner.upgrade() {
        Some(inner) => {
            f(&mut inner.shared.borrow_mut());
            true
        }
        None => false,
    };
    let mut answering: FuturesUnordered<Answering> = FuturesUnordered::new();
    // The sleep until the session's earliest deadline, kept across turns of the loop while
    // that deadline stays the same: every message and every command is a turn, and a host
    // timer re-armed per turn (a `setTimeout` and a `clearTimeout` on JS) costs more than the
    // turn. It is dropped, and the host timer cleared, only once the deadline moves or goes.
    let mut timer: Option<(Instant, LocalBoxFuture<'static, ()>)> = None;
    loop {
        let mut outgoing = Vec::new();
        let mut deadline = None;
        let mut closed = true;
        with(&mut |shared| {
            shared.dispatch();
            if let Some(handler) = shared.handler.clone() {
                for (id, method, params) in shared.to_answer.drain(..) {
                    let answer = handler(&method, params);
                    answering.push(Box::pin(async move { (id, answer.await) }));
                }
            }
            while let Some(line) = shared.session.poll_transmit() {
                outgoing.extend_from_slice(&line);
            }
            deadline = shared.session.poll_timeout();
            closed = shared.session.is_closed();
        });
        if !outgoing.is_empty() && !closed {
            if let Err(error) = transport.send(outgoing).await {
                let reason = format!("writing to the server failed: {error}");
                with(&mut |shared| shared.session.handle_transport_closed(&reason));
                continue;
            }
        }
        if closed {
            transport.close().await;
            return;
        }
        match deadline {
            None => timer = None,
            Some(at) if timer.as_ref().map(|(armed, _)| *armed) != Some(at) => {
                let clock = Rc::clone(&clock);
                timer = Some((at, Box::pin(async move { clock.sleep_until(at).await })));
            }
            Some(_) => {}
        }
        let mut fired = false;
        let sleep = async {
            match timer.as_mut() {
                Some((_, sleep)) => sleep.as_mut().await,
                None => futures::future::pending().await,
            }
        };
        futures::select_biased! {
            chunk = transport.recv().fuse() => match chunk {
                Some(Ok(bytes)) => {
                    let now = clock.now();
                    with(&mut |shared| shared.session.handle_bytes(now, &bytes));
                }
                Some(Err(error)) => {
                    let reason = format!("reading from the server failed: {error}");
                    with(&mut |shared| shared.session.handle_transport_closed(&reason));
                }
                None => {
                    let reason = transport.closed_reason().await;
                    with(&mut |shared| shared.session.handle_eof(&reason));
                }
            },
            (id, answer) = answering.select_next_some() => {
                // A request the server cancelled meanwhile is answered no more (the session
                // refuses); nothing else to do.
                with(&mut |shared| {
                    let _ = shared.session.respond(&id, answer.clone());
                });
            }
            authorizing = transport.authorizing().fuse() => {
                let now = clock.now();
                with(&mut |shared| match authorizing {
                    true => shared.session.pause_timeouts(now),
                    false => shared.session.resume_timeouts(now),
                });
            }
            _ = sleep.fuse() => {
                fired = true;
                let now = clock.now();
                with(&mut |shared| shared.session.handle_timeout(now));
            }
            signal = wake.next() => {
                if signal.is_none() {
                    // Every client handle is gone: nobody can use this connection any more.
                    transport.close().await;
                    return;
                }
            }
        }
        if fired {
            // A finished sleep must not be awaited again; the next turn arms a new one.
            timer = None;
        }
    }
}

/// A session refusal, as the error a command reports.
pub(super) fn refused(error: SessionError) -> RequestError {
    match error {
        SessionError::Closed(reason) => RequestError::Closed(reason),
        other => RequestError::Refused(other.to_string()),
    }
}
