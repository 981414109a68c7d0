//! `McpClient`: an async handle over one [`ClientSession`], driven by a background future.

use super::connection::{drive, refused, Completion, Inner, Shared, Waiter};
use super::events::{EventSink, EventStream, EVENT_QUEUE_CAPACITY};
use super::progress::ProgressWatch;
use super::traits::{Clock, Spawn, Transport};
use crate::content::ToolOutput;
use crate::jsonrpc::{ErrorObject, Id};
use crate::mcp::{
    CallOptions, ClientSession, RequestError, RequestId, ServerDetails, SessionConfig, SessionError,
};
use crate::time::Instant;
use futures::channel::{mpsc, oneshot};
use serde_json::Value;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

pub use super::connection::RequestHandler;

/// Why `connect` produced no client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectError(pub String);

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConnectError {}

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
            shared.waiters.remove(request);
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
            waiters: super::waiters::Waiters::new(),
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
        self.call_tool_watched(name, arguments, options, None).await
    }

    /// [`call_tool`](Self::call_tool), with the call's progress (legacy `notifications/progress`,
    /// a task's status messages) kept in `progress` instead of the event stream.
    pub async fn call_tool_watched(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
        progress: Option<ProgressWatch>,
    ) -> Result<ToolOutput, RequestError> {
        match self
            .command_watched(
                |s, now| s.call_tool(now, name, arguments, options),
                progress,
            )
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

    /// Answers a [`SessionEvent::ServerRequest`](crate::mcp::SessionEvent::ServerRequest).
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

    /// Requests sent and not yet answered, failed or cancelled (a diagnostic: zero once every
    /// run and call has ended).
    pub fn in_flight(&self) -> usize {
        self.inner.shared.borrow().session.in_flight()
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
        self.command_watched(issue, None).await
    }

    async fn command_watched<F>(
        &self,
        issue: F,
        progress: Option<ProgressWatch>,
    ) -> Result<Completion, RequestError>
    where
        F: FnOnce(&mut ClientSession, Instant) -> Result<RequestId, SessionError>,
    {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut shared = self.inner.shared.borrow_mut();
            let now = (self.inner.now)();
            let request = issue(&mut shared.session, now).map_err(refused)?;
            shared
                .waiters
                .insert(request, Waiter { done: tx, progress });
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
