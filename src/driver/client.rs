//! `McpClient`: an async handle over one [`ClientSession`], driven by a background future.

use super::events::{EventSink, EventStream, Offered, EVENT_QUEUE_CAPACITY};
use super::traits::{Clock, Spawn, Transport};
use crate::content::ToolOutput;
use crate::jsonrpc::{ErrorObject, Id};
use crate::mcp::{
    CallOptions, ClientSession, RequestError, RequestId, ServerDetails, SessionConfig,
    SessionError, SessionEvent,
};
use crate::time::Instant;
use futures::channel::{mpsc, oneshot};
use futures::future::LocalBoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::{Rc, Weak};

/// Why `connect` produced no client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectError(pub String);

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConnectError {}

/// Answers a server's request (`method`, `params`), such as `sampling/createMessage`; see
/// [`McpClient::connect_serving`].
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

struct Shared {
    session: ClientSession,
    waiters: HashMap<RequestId, oneshot::Sender<Completion>>,
    ready: Option<oneshot::Sender<Result<ServerDetails, String>>>,
    /// Events no command waits for (list_changed, logs, progress, server requests), bounded.
    events: EventSink,
    events_rx: Option<EventStream>,
    /// The session's own count of dropped events, as last added to `events`.
    session_dropped: u64,
    closed: Option<String>,
    /// Answers server requests in place of the event stream (see `connect_serving`).
    handler: Option<RequestHandler>,
    /// Server requests for the handler, started by the driver.
    to_answer: Vec<(Id, String, Option<Value>)>,
}

impl Shared {
    /// Routes the session's events to waiting commands; the rest go to the event stream.
    fn dispatch(&mut self) {
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
            if let Some(waiter) = self.waiters.remove(&request) {
                let _ = waiter.send(completion);
            }
        }
        let dropped = self.session.dropped_events();
        self.events.count_dropped(dropped - self.session_dropped);
        self.session_dropped = dropped;
    }
}

struct Inner {
    shared: RefCell<Shared>,
    now: Box<dyn Fn() -> Instant>,
    wake: mpsc::UnboundedSender<()>,
}

/// An async client for one MCP server. Cheap to clone; all clones share one connection, and
/// any number of calls may be in flight at once.
#[derive(Clone)]
pub struct McpClient {
    inner: Rc<Inner>,
}

/// Cancels a command whose future was dropped before it completed.
struct CancelOnDrop<'a> {
    client: &'a McpClient,
    request: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(request) = self.request.take() {
            let mut shared = self.client.inner.shared.borrow_mut();
            shared.waiters.remove(&request);
            if shared
                .session
                .cancel(request, "the caller stopped waiting")
                .is_ok()
            {
                shared.dispatch();
                drop(shared);
                self.client.wake();
            }
        }
    }
}

impl McpClient {
    /// Starts a session over `transport`, spawns its driver with `spawn`, and waits for the
    /// handshake. Fails with the session's reason (timeout, bad version, server gone, ...).
    pub async fn connect<T, C, S>(
        config: SessionConfig,
        transport: T,
        clock: C,
        spawn: S,
    ) -> Result<(McpClient, ServerDetails), ConnectError>
    where
        T: Transport + 'static,
        C: Clock + 'static,
        S: Spawn,
    {
        Self::connect_serving(config, transport, clock, spawn, None).await
    }

    /// Like [`connect`](Self::connect), with `handler` answering the server's requests (those
    /// whose capability `config` declares, such as `sampling`) concurrently with everything
    /// else, so a server may ask in the middle of its own tool call. Without a handler they go
    /// to the event stream ([`take_events`](Self::take_events)).
    pub async fn connect_serving<T, C, S>(
        config: SessionConfig,
        transport: T,
        clock: C,
        spawn: S,
        handler: Option<RequestHandler>,
    ) -> Result<(McpClient, ServerDetails), ConnectError>
    where
        T: Transport + 'static,
        C: Clock + 'static,
        S: Spawn,
    {
        let clock = Rc::new(clock);
        let session = ClientSession::new(config, clock.now());
        let (events_tx, events_rx) = EventSink::new(EVENT_QUEUE_CAPACITY);
        let (ready_tx, ready_rx) = oneshot::channel();
        let (wake_tx, wake_rx) = mpsc::unbounded();
        let shared = Shared {
            session,
            waiters: HashMap::new(),
            ready: Some(ready_tx),
            events: events_tx,
            events_rx: Some(events_rx),
            session_dropped: 0,
            closed: None,
            handler,
            to_answer: Vec::new(),
        };
        let now_clock = Rc::clone(&clock);
        let inner = Rc::new(Inner {
            shared: RefCell::new(shared),
            now: Box::new(move || now_clock.now()),
            wake: wake_tx,
        });
        let client = McpClient { inner };
        spawn.spawn(Box::pin(drive(
            Rc::downgrade(&client.inner),
            transport,
            clock,
            wake_rx,
        )));
        match ready_rx.await {
            Ok(Ok(details)) => Ok((client, details)),
            Ok(Err(reason)) => Err(ConnectError(reason)),
            Err(_) => Err(ConnectError(
                "the connection driver stopped during the handshake".into(),
            )),
        }
    }

    /// Lists every tool, across all pages.
    pub fn list_tools(
        &self,
    ) -> impl std::future::Future<Output = Result<Vec<Value>, RequestError>> + '_ {
        self.list(crate::mcp::ListKind::Tools)
    }

    /// Calls a tool. An execution error is `Ok` with `is_error` set.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<ToolOutput, RequestError> {
        match self
            .command(|s, now| s.call_tool(now, name, arguments, options))
            .await?
        {
            Completion::Tool(result) => result,
            Completion::Value(Err(e)) | Completion::Tools(Err(e)) => Err(e),
            _ => Err(RequestError::InvalidResult(
                "unexpected completion for tools/call".into(),
            )),
        }
    }

    /// Sends any request and returns its raw result.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        options: CallOptions,
    ) -> Result<Value, RequestError> {
        match self
            .command(|s, now| s.request(now, method, params, options))
            .await?
        {
            Completion::Value(result) => result,
            Completion::Tool(Err(e)) | Completion::Tools(Err(e)) => Err(e),
            _ => Err(RequestError::InvalidResult(format!(
                "unexpected completion for {method}"
            ))),
        }
    }

    /// Answers a [`SessionEvent::ServerRequest`].
    pub fn respond(&self, id: &Id, result: Result<Value, ErrorObject>) -> Result<(), SessionError> {
        self.inner.shared.borrow_mut().session.respond(id, result)?;
        self.wake();
        Ok(())
    }

    /// The stream of events no command waits for: `ToolsListChanged`, `Progress`, `Log`,
    /// `ServerRequest`, `ProtocolError`, `UnexpectedResponse`, `EventsDropped`, `Closed`.
    /// Bounded: see [`EventStream`] for what happens when nobody reads it. Available once.
    pub fn take_events(&self) -> Option<EventStream> {
        self.inner.shared.borrow_mut().events_rx.take()
    }

    /// How many events this connection dropped because its queues were full.
    pub fn dropped_events(&self) -> u64 {
        self.inner.shared.borrow().events.dropped()
    }

    /// What the server said about itself.
    pub fn server(&self) -> Option<ServerDetails> {
        self.inner.shared.borrow().session.server().cloned()
    }

    /// Why the connection closed, once it has.
    pub fn closed_reason(&self) -> Option<String> {
        self.inner.shared.borrow().closed.clone()
    }

    /// Closes the session: pending calls fail with `reason` and the transport is shut down.
    pub fn close(&self, reason: &str) {
        let mut shared = self.inner.shared.borrow_mut();
        shared.session.close(reason);
        shared.dispatch();
        drop(shared);
        self.wake();
    }

    /// Reads the session's state.
    pub(super) fn with_session<R>(&self, f: impl FnOnce(&ClientSession) -> R) -> R {
        f(&self.inner.shared.borrow().session)
    }

    fn wake(&self) {
        let _ = self.inner.wake.unbounded_send(());
    }

    pub(super) async fn command<F>(&self, issue: F) -> Result<Completion, RequestError>
    where
        F: FnOnce(&mut ClientSession, Instant) -> Result<RequestId, SessionError>,
    {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut shared = self.inner.shared.borrow_mut();
            let now = (self.inner.now)();
            let request = issue(&mut shared.session, now).map_err(super::mcp_features::refused)?;
            shared.waiters.insert(request, tx);
            request
        };
        self.wake();
        let mut guard = CancelOnDrop {
            client: self,
            request: Some(request),
        };
        let completion = rx.await;
        guard.request = None;
        completion.map_err(|_| RequestError::Closed("the connection driver stopped".into()))
    }
}

/// The background future: moves bytes between the transport and the session, fires timers,
/// and routes events, until the session closes or every client handle is dropped.
///
/// It holds the shared state weakly so that dropping the last [`McpClient`] ends the connection.
async fn drive<T: Transport, C: Clock + 'static>(
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
