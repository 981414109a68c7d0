//! The legacy HTTP+SSE transport (MCP 2024-11-05): the core's [`LegacySse`] machine executed
//! with reqwest.
//!
//! One tokio task owns the machine: it performs the event stream's `GET` and each message's
//! `POST` in tasks of their own (through the same request code as Streamable HTTP, so redirects
//! keep configured headers within their origin and body chunks pass a bounded queue), feeds
//! what they report back, and hands JSON-RPC lines to [`Transport::recv`] through a bounded
//! queue (while it is full the driver stops reading the stream, so a flood waits in the
//! socket). Dropping or closing the transport ends the task, which drops the stream.

use crate::transport::http_transport::{perform, validate, Io, IO_QUEUE, MESSAGE_QUEUE};
use agentwire::driver::Transport;
use agentwire::mcp::http::{HttpConfig, HttpRequestId, LegacySse};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, Mutex};
use tokio::task::AbortHandle;

/// How long connecting to the server may take before the request fails.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

enum Command {
    Send(Vec<u8>),
    Close(oneshot::Sender<()>),
}

/// An MCP server reached over the legacy HTTP+SSE transport. Implements [`Transport`].
pub struct SseTransport {
    url: String,
    commands: mpsc::UnboundedSender<Command>,
    inbox: Mutex<mpsc::Receiver<Vec<u8>>>,
    closed: Arc<StdMutex<Option<String>>>,
}

impl SseTransport {
    /// Opens the event stream at `config.url` (its `headers` go with every request). Must be
    /// called inside a tokio runtime; a URL or header that is not valid HTTP is an error
    /// naming it.
    pub fn connect(config: HttpConfig) -> Result<SseTransport, String> {
        validate(&config)?;
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            // Followed by hand, so configured headers stay within their origin.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("could not set up an HTTP client: {e}"))?;
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (messages, inbox) = mpsc::channel(MESSAGE_QUEUE);
        let closed = Arc::new(StdMutex::new(None));
        let driver = Driver {
            machine: LegacySse::new(&config),
            client,
            messages,
            outbox: VecDeque::new(),
            tasks: HashMap::new(),
            closed: Arc::clone(&closed),
        };
        tokio::spawn(driver.run(commands_rx));
        Ok(SseTransport {
            url: config.url,
            commands,
            inbox: Mutex::new(inbox),
            closed,
        })
    }
}

struct Driver {
    machine: LegacySse,
    client: reqwest::Client,
    messages: mpsc::Sender<Vec<u8>>,
    outbox: VecDeque<Vec<u8>>,
    tasks: HashMap<HttpRequestId, AbortHandle>,
    closed: Arc<StdMutex<Option<String>>>,
}

impl Driver {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let (io_tx, mut io_rx) = mpsc::channel::<(HttpRequestId, Io)>(IO_QUEUE);
        let mut close_waiter = None;
        loop {
            self.drain(&io_tx);
            if self.machine.is_closed() {
                break;
            }
            let outbox_full = !self.outbox.is_empty();
            tokio::select! {
                permit = self.messages.reserve(), if outbox_full => match permit {
                    Ok(permit) => {
                        if let Some(line) = self.outbox.pop_front() {
                            permit.send(line);
                        }
                    }
                    Err(_) => self.outbox.clear(),
                },
                command = commands.recv() => match command {
                    Some(Command::Send(bytes)) => {
                        // The session writes whole lines, possibly several at once.
                        for line in bytes.split_inclusive(|b| *b == b'\n') {
                            if !line.iter().all(u8::is_ascii_whitespace) {
                                let _ = self.machine.send(line);
                            }
                        }
                    }
                    Some(Command::Close(done)) => {
                        close_waiter = Some(done);
                        self.machine.close();
                    }
                    None => self.machine.close(),
                },
                Some((id, io)) = io_rx.recv(), if !outbox_full => match io {
                    Io::Head(status, headers) => {
                        self.machine.handle_response_head(id, status, &headers)
                    }
                    Io::Chunk(bytes) => self.machine.handle_body_chunk(id, &bytes),
                    Io::End => {
                        self.tasks.remove(&id);
                        self.machine.handle_body_end(id);
                    }
                    Io::Error(message) => {
                        self.tasks.remove(&id);
                        self.machine.handle_request_error(id, &message);
                    }
                },
            }
        }
        for (_, task) in self.tasks.drain() {
            task.abort();
        }
        if let Ok(mut closed) = self.closed.lock() {
            *closed = self.machine.closed_reason().map(str::to_owned);
        }
        // The last lines still go to the session (it reads until `recv` ends).
        while let Some(line) = self.outbox.pop_front() {
            if self.messages.send(line).await.is_err() {
                break;
            }
        }
        drop(close_waiter);
    }

    /// Moves everything the machine produced to where it goes.
    fn drain(&mut self, io: &mpsc::Sender<(HttpRequestId, Io)>) {
        while let Some(request) = self.machine.poll_request() {
            let id = request.id;
            let task = tokio::spawn(perform(self.client.clone(), request, io.clone()));
            self.tasks.insert(id, task.abort_handle());
        }
        while let Some(line) = self.machine.poll_line() {
            self.outbox.push_back(line);
        }
        while let Some(line) = self.outbox.pop_front() {
            match self.messages.try_send(line) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(line)) => {
                    self.outbox.push_front(line);
                    break;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => self.outbox.clear(),
            }
        }
        // Warnings are worth a line in the server's log at most; nothing reads them here yet.
        while self.machine.poll_warning().is_some() {}
    }
}

impl Transport for SseTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        self.commands.send(Command::Send(bytes)).map_err(|_| {
            let reason = self.closed.lock().ok().and_then(|c| c.clone());
            format!(
                "the SSE transport to {} is closed: {}",
                self.url,
                reason.unwrap_or_else(|| "stopped".into())
            )
        })
    }

    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        let mut inbox = self.inbox.lock().await;
        let mut bytes = inbox.recv().await?;
        while let Ok(line) = inbox.try_recv() {
            bytes.extend_from_slice(&line);
        }
        Some(Ok(bytes))
    }

    async fn closed_reason(&self) -> String {
        let reason = self.closed.lock().ok().and_then(|c| c.clone());
        reason.unwrap_or_else(|| format!("the SSE transport to {} stopped", self.url))
    }

    async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.commands.send(Command::Close(done)).is_ok() {
            // Resolves when the driver is gone.
            let _ = wait.await;
        }
    }
}
