//! What a host provides to drive the core: bytes, time and a place to run a future.

use crate::time::Instant;
use futures::future::LocalBoxFuture;
use std::future::Future;

/// A byte pipe to one MCP server (a child's stdio, a JS bridge, ...).
///
/// `send` should only enqueue: a transport whose `send` waits for the peer to read can deadlock
/// with a peer that is itself waiting for us to read its output. `recv` must be cancel-safe
/// (dropping its future loses no data), because the driver races it against timers.
pub trait Transport {
    /// Writes bytes (whole lines) to the server.
    fn send(&self, bytes: Vec<u8>) -> impl Future<Output = Result<(), String>>;
    /// The next chunk of bytes from the server; `None` at end of stream.
    fn recv(&self) -> impl Future<Output = Option<Result<Vec<u8>, String>>>;
    /// Why the stream ended, asked once after `recv` returned `None` or an error; a process
    /// transport reports the exit status and the last lines of stderr here.
    fn closed_reason(&self) -> impl Future<Output = String> {
        async { "the server closed the connection".to_owned() }
    }
    /// Shuts the transport down (close stdin, terminate the process, ...).
    fn close(&self) -> impl Future<Output = ()>;
    /// Completes when the transport starts (`true`) or finishes (`false`) authorizing, such as
    /// an OAuth flow waiting for the user's consent in a browser. Request timeouts stop
    /// meanwhile: the time goes to the user, not to a slow server. Must be cancel-safe, like
    /// `recv`. The default never completes (a transport that never authorizes).
    fn authorizing(&self) -> impl Future<Output = bool> {
        futures::future::pending()
    }
}

/// The host's clock and timer.
pub trait Clock {
    /// The current time.
    fn now(&self) -> Instant;
    /// Completes at or after `deadline`.
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()>;
}

/// Runs a `!Send` future to completion in the background (tokio's `spawn_local`,
/// `wasm_bindgen_futures::spawn_local`, a test executor, ...).
pub trait Spawn {
    /// Starts the future.
    fn spawn(&self, future: LocalBoxFuture<'static, ()>);
}

impl<F: Fn(LocalBoxFuture<'static, ()>)> Spawn for F {
    fn spawn(&self, future: LocalBoxFuture<'static, ()>) {
        self(future)
    }
}
