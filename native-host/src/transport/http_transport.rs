//! Streamable HTTP transport: the core's [`StreamableHttp`] machine executed with reqwest.
//!
//! One tokio task owns the machine. It performs each request the machine emits in a task of
//! its own (streaming the body back in chunks through a bounded channel, so a fast server waits
//! for us instead of filling memory), feeds heads, chunks, ends and errors back, fires the
//! machine's reconnection timers, and hands JSON-RPC lines to [`Transport::recv`]. The tasks
//! are `Send`, so this works on any tokio runtime, inside a `LocalSet` or not.
//!
//! Every queue between the server and the session is bounded: body chunks ([`IO_QUEUE`]),
//! lines for `recv` ([`MESSAGE_QUEUE`]; while it is full the driver stops taking chunks, so a
//! flooding SSE stream waits in the socket, not in memory), and warnings for
//! [`HttpTransport::take_events`] ([`EVENT_QUEUE`]; dropped and counted when full, see
//! [`HttpTransport::dropped_events`]).

use crate::os::clock::TokioClock;
use crate::transport::dpop::DpopKey;
use crate::transport::http_request::header_pairs;
use crate::transport::oauth::OAuthOptions;
use agentwire::driver::{Clock, Transport};
use agentwire::mcp::http::{HttpConfig, HttpEvent, HttpRequest, HttpRequestId, StreamableHttp};
use agentwire::mcp::oauth::dpop::{nonce_of, resource_nonce_challenge};
use futures::StreamExt;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch, Mutex};
use tokio::task::AbortHandle;

/// How long connecting to the server may take before the request fails.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Chunks buffered between the request tasks and the machine.
pub const IO_QUEUE: usize = 8;
/// JSON-RPC lines buffered between the machine and [`Transport::recv`].
pub const MESSAGE_QUEUE: usize = 16;
/// Warnings kept for a reader of [`HttpTransport::take_events`].
pub const EVENT_QUEUE: usize = 64;

enum Command {
    Send(Vec<u8>),
    Close(oneshot::Sender<()>),
}

/// What a request task reports about its request.
pub(crate) enum Io {
    Head(u16, Vec<(String, String)>),
    Chunk(Vec<u8>),
    End,
    Error(String),
}

/// An MCP server reached over Streamable HTTP. Implements [`Transport`], so
/// [`McpClient::connect`](agentwire::driver::McpClient::connect) drives it like a stdio server.
pub struct HttpTransport {
    url: String,
    commands: mpsc::UnboundedSender<Command>,
    inbox: Mutex<mpsc::Receiver<Vec<u8>>>,
    closed: Arc<StdMutex<Option<String>>>,
    events: StdMutex<Option<mpsc::Receiver<HttpEvent>>>,
    dropped_events: Arc<AtomicU64>,
    /// Never sent on: the driver drops its end when it stops, which wakes [`finished`].
    ///
    /// [`finished`]: HttpTransport::finished
    stopped: watch::Receiver<()>,
    /// Whether an OAuth flow is running (for [`Transport::authorizing`]).
    authorizing: Mutex<watch::Receiver<bool>>,
}

impl HttpTransport {
    /// A transport to the MCP endpoint `url`, sending `headers` (such as `Authorization`) with
    /// every request, with the default [`HttpConfig`]. Nothing is sent until the session's
    /// first message. Must be called inside a tokio runtime. Fails on a URL that is not
    /// `http(s)://` or a header that is not valid HTTP, naming the culprit.
    pub fn connect(
        url: &str,
        headers: impl IntoIterator<Item = (String, String)>,
    ) -> Result<HttpTransport, String> {
        let mut config = HttpConfig::new(url);
        config.headers = headers.into_iter().collect();
        Self::with_config(config)
    }

    /// Like [`connect`](Self::connect), with every knob of the machine.
    pub fn with_config(config: HttpConfig) -> Result<HttpTransport, String> {
        Self::with_oauth(config, None)
    }

    /// Like [`with_config`](Self::with_config); with `oauth`, a `401`/`403` starts an OAuth
    /// authorization ([`crate::transport::oauth::authorize`]) and the refused messages are re-sent with
    /// the token, instead of closing.
    ///
    /// With a token store in `oauth`, a token kept by an earlier run is sent from the first
    /// request (or refreshed when it has expired), and every new token is kept.
    pub fn with_oauth(
        mut config: HttpConfig,
        mut oauth: Option<OAuthOptions>,
    ) -> Result<HttpTransport, String> {
        config.oauth = oauth.is_some();
        validate(&config)?;
        let stored_token = oauth.as_mut().and_then(|o| o.restore(&config.url));
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            // Followed by hand, so configured headers stay within their origin.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("could not set up an HTTP client: {}", describe(&e)))?;
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (messages_tx, messages_rx) = mpsc::channel(MESSAGE_QUEUE);
        let (events_tx, events_rx) = mpsc::channel(EVENT_QUEUE);
        let dropped_events = Arc::new(AtomicU64::new(0));
        let closed = Arc::new(StdMutex::new(None));
        let url = config.url.clone();
        let (stopped_tx, stopped) = watch::channel(());
        let (authorizing_tx, authorizing) = watch::channel(false);
        let mut machine = StreamableHttp::new(config);
        if let Some(token) = stored_token {
            // Nothing is closed yet, so this cannot fail.
            let _ = machine.set_access_token(TokioClock::instant(), token);
        }
        let driver = Driver {
            _stopped: stopped_tx,
            machine,
            client,
            messages: messages_tx,
            outbox: VecDeque::new(),
            closing: false,
            events: events_tx,
            dropped_events: Arc::clone(&dropped_events),
            closed: Arc::clone(&closed),
            tasks: HashMap::new(),
            close_waiters: Vec::new(),
            oauth,
            auth_needed: None,
            authorizing: authorizing_tx,
        };
        tokio::spawn(driver.run(commands_rx));
        Ok(HttpTransport {
            url,
            commands,
            inbox: Mutex::new(messages_rx),
            closed,
            events: StdMutex::new(Some(events_rx)),
            dropped_events,
            stopped,
            authorizing: Mutex::new(authorizing),
        })
    }

    /// Completes once the transport has stopped for good: after `close` (its `DELETE` answered
    /// or timed out) or a fatal error. Lets a host that is about to exit wait for the `DELETE`
    /// even after handing the transport to an [`McpClient`](agentwire::driver::McpClient).
    pub fn finished(&self) -> impl std::future::Future<Output = ()> + 'static {
        let mut stopped = self.stopped.clone();
        async move { while stopped.changed().await.is_ok() {} }
    }

    /// Warnings and the session-expired notice, as they happen (the final `Closed` is reported
    /// through [`Transport::closed_reason`] instead). Available once; at most [`EVENT_QUEUE`]
    /// wait unread, later ones are dropped and counted.
    pub fn take_events(&self) -> Option<mpsc::Receiver<HttpEvent>> {
        self.events.lock().ok().and_then(|mut events| events.take())
    }

    /// Warnings dropped because [`EVENT_QUEUE`] of them waited unread.
    pub fn dropped_events(&self) -> u64 {
        self.dropped_events.load(Ordering::Relaxed)
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }
}

pub(crate) fn validate(config: &HttpConfig) -> Result<(), String> {
    let url = reqwest::Url::parse(&config.url)
        .map_err(|e| format!("invalid MCP server URL {:?}: {e}", config.url))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "invalid MCP server URL {:?}: the scheme must be http or https",
            config.url
        ));
    }
    for (name, value) in &config.headers {
        reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("invalid HTTP header name {name:?}"))?;
        reqwest::header::HeaderValue::from_str(value)
            .map_err(|_| format!("invalid value for HTTP header {name:?}"))?;
    }
    Ok(())
}

/// A reqwest error with its causes (the top level alone rarely says what went wrong).
pub(crate) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The task that owns the machine.
struct Driver {
    _stopped: watch::Sender<()>,
    machine: StreamableHttp,
    client: reqwest::Client,
    messages: mpsc::Sender<Vec<u8>>,
    /// Lines from the machine that `messages` had no room for yet, oldest first. Chunks are
    /// taken from the server only while it is empty, so it holds at most one chunk's lines.
    outbox: VecDeque<Vec<u8>>,
    /// `close` was asked for: lines from the server are no longer delivered.
    closing: bool,
    events: mpsc::Sender<HttpEvent>,
    dropped_events: Arc<AtomicU64>,
    closed: Arc<StdMutex<Option<String>>>,
    tasks: HashMap<HttpRequestId, AbortHandle>,
    close_waiters: Vec<oneshot::Sender<()>>,
    oauth: Option<OAuthOptions>,
    /// An `AuthorizationRequired` to act on: its status and `WWW-Authenticate`.
    auth_needed: Option<(u16, Option<String>)>,
    /// `true` while an OAuth flow runs, so the session stops its request timeouts.
    authorizing: watch::Sender<bool>,
}

impl Driver {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let (io_tx, mut io_rx) = mpsc::channel::<(HttpRequestId, Io)>(IO_QUEUE);
        let mut commands_open = true;
        loop {
            self.drain(&io_tx);
            if self.machine.is_closed() {
                break;
            }
            if let Some((status, challenge)) = self.auth_needed.take() {
                // The flow may wait minutes for a browser; messages arriving meanwhile are
                // held, and a close or every handle going away (the user's Ctrl-C dropped the
                // session) abandons it, so the task and its redirect listener end.
                let mut held = Vec::new();
                let abandoned = {
                    let flow = self.authorize(status, challenge);
                    tokio::pin!(flow);
                    loop {
                        tokio::select! {
                            _ = &mut flow => break false,
                            command = commands.recv(), if commands_open => match command {
                                // Its waiter wakes when `held` is dropped with the task.
                                Some(close @ Command::Close(_)) => {
                                    held.push(close);
                                    break true;
                                }
                                Some(command) => held.push(command),
                                None => break true,
                            },
                        }
                    }
                };
                if abandoned {
                    break;
                }
                for command in held {
                    self.command(Some(command), &mut commands_open);
                }
                continue;
            }
            let deadline = self.machine.poll_timeout();
            let timer = async {
                match deadline {
                    Some(at) => TokioClock.sleep_until(at).await,
                    None => futures::future::pending().await,
                }
            };
            let outbox_full = !self.outbox.is_empty();
            // Carried out after the select, whose branches borrow `self.messages`.
            let mut received = None;
            tokio::select! {
                permit = self.messages.reserve(), if outbox_full => {
                    match permit {
                        Ok(permit) => {
                            if let Some(line) = self.outbox.pop_front() {
                                permit.send(line);
                            }
                        }
                        // Nobody reads any more (the session is gone): drop what waits.
                        Err(_) => self.outbox.clear(),
                    }
                }
                command = commands.recv(), if commands_open => received = Some(command),
                Some((id, io)) = io_rx.recv(), if !outbox_full => {
                    let now = TokioClock::instant();
                    match io {
                        Io::Head(status, headers) => {
                            self.machine.handle_response_head(now, id, status, &headers)
                        }
                        Io::Chunk(bytes) => self.machine.handle_body_chunk(now, id, &bytes),
                        Io::End => {
                            self.tasks.remove(&id);
                            self.machine.handle_body_end(now, id);
                        }
                        Io::Error(message) => {
                            self.tasks.remove(&id);
                            self.machine.handle_request_error(now, id, &message);
                        }
                    }
                }
                _ = timer => self.machine.handle_timeout(TokioClock::instant()),
            }
            if let Some(command) = received {
                self.command(command, &mut commands_open);
            }
        }
        for (_, task) in self.tasks.drain() {
            task.abort();
        }
        // The last lines still go to the session (it reads until `recv` ends).
        while let Some(line) = self.outbox.pop_front() {
            if self.messages.send(line).await.is_err() {
                break;
            }
        }
        // Dropping the senders ends `recv` and wakes every `close`.
    }

    /// Carries out one command of the transport's handles; `None` means every handle is gone.
    fn command(&mut self, command: Option<Command>, commands_open: &mut bool) {
        let now = TokioClock::instant();
        match command {
            Some(Command::Send(bytes)) => {
                // A closing machine refuses; the session learns from recv's end.
                let _ = self.machine.send(now, &bytes);
            }
            Some(Command::Close(done)) => {
                self.close_waiters.push(done);
                self.machine.close(now);
                self.closing = true;
            }
            None => {
                // Every handle is gone: end the session politely.
                *commands_open = false;
                self.machine.close(now);
                self.closing = true;
            }
        }
    }

    /// Runs an OAuth flow and gives the machine its outcome. Other requests wait meanwhile
    /// (their tasks block on the bounded channel), which is what we want: without a token
    /// they would only be refused again.
    async fn authorize(&mut self, status: u16, challenge: Option<String>) {
        let Some(mut options) = self.oauth.clone() else {
            return;
        };
        // A 401 means the token expired or was revoked: a refresh may do. A 403 asks for more
        // scope, which a refresh of the old grant cannot give.
        if status != 401 {
            options.config.refresh_token = None;
        }
        let url = self.machine.config().url.clone();
        // Nobody listening (the session is gone) is fine.
        let _ = self.authorizing.send(true);
        let outcome =
            crate::transport::oauth::authorize(&options, &url, challenge.as_deref()).await;
        let _ = self.authorizing.send(false);
        match outcome {
            Ok(mut token) => {
                // The same client serves later rounds (step-up) without registering again, as
                // long as the authorization server stays the same.
                if let Some(oauth) = &mut self.oauth {
                    oauth.adopt(&mut token);
                    oauth.remember(&url, &token);
                }
                self.machine.set_token_dpop(token.dpop);
                let _ = self
                    .machine
                    .set_access_token(TokioClock::instant(), token.access_token);
            }
            Err(error) => self.machine.authorization_failed(error),
        }
    }

    /// Moves everything the machine produced to where it goes.
    fn drain(&mut self, io: &mpsc::Sender<(HttpRequestId, Io)>) {
        while let Some(id) = self.machine.poll_abort() {
            if let Some(task) = self.tasks.remove(&id) {
                task.abort();
            }
        }
        while let Some(request) = self.machine.poll_request() {
            let id = request.id;
            let dpop = self.oauth.as_ref().and_then(|o| o.dpop.clone());
            let task = tokio::spawn(perform_with_proof(
                self.client.clone(),
                request,
                io.clone(),
                dpop,
            ));
            self.tasks.insert(id, task.abort_handle());
        }
        while let Some(line) = self.machine.poll_message() {
            self.outbox.push_back(line);
        }
        if self.closing {
            // The session stopped reading when it asked to close: what still streams in (a
            // flood, say) must not hold up the `DELETE`'s answer behind it.
            self.outbox.clear();
        }
        while let Some(line) = self.outbox.pop_front() {
            match self.messages.try_send(line) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(line)) => {
                    self.outbox.push_front(line);
                    break;
                }
                // Nobody reads any more: the lines have nowhere to go.
                Err(mpsc::error::TrySendError::Closed(_)) => self.outbox.clear(),
            }
        }
        while let Some(event) = self.machine.poll_event() {
            match event {
                HttpEvent::AuthorizationRequired {
                    status,
                    www_authenticate,
                } => {
                    self.auth_needed = Some((status, www_authenticate));
                }
                HttpEvent::Closed { reason } => {
                    if let Ok(mut closed) = self.closed.lock() {
                        *closed = Some(reason);
                    }
                }
                other => {
                    if let Err(mpsc::error::TrySendError::Full(_)) = self.events.try_send(other) {
                        self.dropped_events.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
        if self.machine.is_closed() {
            for waiter in self.close_waiters.drain(..) {
                let _ = waiter.send(());
            }
        }
    }
}

/// Performs one request, reporting its head, body chunks and end (or error) to the machine.
pub(crate) async fn perform(
    client: reqwest::Client,
    request: HttpRequest,
    io: mpsc::Sender<(HttpRequestId, Io)>,
) {
    perform_with_proof(client, request, io, None).await
}

/// [`perform`], with a fresh DPoP proof on a request that presents a DPoP-bound token (see
/// [`DpopKey::add_proof`]). Every `DPoP-Nonce` the server hands is kept for later proofs, and
/// a `401` asking for one (RFC 9449 §9) is answered by sending the request once more with it;
/// what that answers goes to the machine as usual.
async fn perform_with_proof(
    client: reqwest::Client,
    request: HttpRequest,
    io: mpsc::Sender<(HttpRequestId, Io)>,
    dpop: Option<Arc<DpopKey>>,
) {
    let id = request.id;
    let fail = |error: String| {
        let io = io.clone();
        async move {
            let _ = io.send((id, Io::Error(error))).await;
        }
    };
    let mut retried = false;
    let response = loop {
        let sent = match &dpop {
            Some(key) => match key.add_proof(request.clone()) {
                Ok(sent) => sent,
                Err(error) => return fail(error).await,
            },
            None => request.clone(),
        };
        let response = match crate::transport::redirect::send(&client, sent, describe).await {
            Ok(response) => response,
            Err(error) => return fail(error).await,
        };
        let Some(key) = &dpop else { break response };
        let status = response.status().as_u16();
        let headers = header_pairs(response.headers());
        if let Some(nonce) = resource_nonce_challenge(status, &headers) {
            key.set_nonce(nonce);
            if !retried {
                retried = true;
                continue;
            }
        } else if let Some(nonce) = nonce_of(&headers) {
            key.set_nonce(nonce);
        }
        break response;
    };
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    if io.send((id, Io::Head(status, headers))).await.is_err() {
        return;
    }
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let report = match chunk {
            Ok(bytes) => Io::Chunk(bytes.to_vec()),
            Err(error) => {
                let _ = io.send((id, Io::Error(describe(&error)))).await;
                return;
            }
        };
        if io.send((id, report)).await.is_err() {
            return;
        }
    }
    let _ = io.send((id, Io::End)).await;
}

impl Transport for HttpTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        self.commands.send(Command::Send(bytes)).map_err(|_| {
            let reason = self.closed.lock().ok().and_then(|c| c.clone());
            format!(
                "the HTTP transport to {} is closed: {}",
                self.url,
                reason.unwrap_or_else(|| "stopped".into())
            )
        })
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        let mut inbox = self.inbox.lock().await;
        let mut bytes = inbox.recv().await?;
        // Whatever else already waits goes along (each line ends in `\n`): one pass of the
        // session's driver per batch rather than per message.
        while let Ok(line) = inbox.try_recv() {
            bytes.extend_from_slice(&line);
        }
        Some(Ok(bytes))
    }

    async fn closed_reason(&self) -> String {
        let reason = self.closed.lock().ok().and_then(|c| c.clone());
        reason.unwrap_or_else(|| format!("the HTTP transport to {} stopped", self.url))
    }

    async fn authorizing(&self) -> bool {
        let mut authorizing = self.authorizing.lock().await;
        match authorizing.changed().await {
            Ok(()) => *authorizing.borrow_and_update(),
            // The driver stopped: no more authorization rounds.
            Err(_) => std::future::pending().await,
        }
    }

    async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.commands.send(Command::Close(done)).is_ok() {
            // Resolves when the machine closed, or when the driver is gone.
            let _ = wait.await;
        }
    }
}
