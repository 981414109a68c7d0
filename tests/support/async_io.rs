//! Async test plumbing: a manual clock and an in-memory transport.

use agentwire::driver::{Clock, Transport};
use agentwire::Instant;
use futures::channel::mpsc;
use futures::lock::Mutex;
use futures::StreamExt;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Time that moves only when the test says so.
#[derive(Clone, Default)]
pub struct ManualClock {
    now: Rc<Cell<u64>>,
    sleepers: Rc<RefCell<Vec<Waker>>>,
    sleeps: Rc<Cell<usize>>,
    live: Rc<Cell<usize>>,
}

impl ManualClock {
    /// How many sleeps were started so far (each a host timer on a real clock).
    pub fn sleeps_started(&self) -> usize {
        self.sleeps.get()
    }

    /// Sleeps created and not yet dropped (timers a real host would still hold).
    pub fn live_sleeps(&self) -> usize {
        self.live.get()
    }

    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
        for waker in self.sleepers.borrow_mut().drain(..) {
            waker.wake();
        }
    }
}

struct Sleep {
    clock: ManualClock,
    until: u64,
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.clock.live.set(self.clock.live.get() - 1);
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.clock.now.get() >= self.until {
            return Poll::Ready(());
        }
        self.clock.sleepers.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        Instant::from_millis(self.now.get())
    }
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> {
        self.sleeps.set(self.sleeps.get() + 1);
        self.live.set(self.live.get() + 1);
        Sleep {
            clock: self.clone(),
            until: deadline.as_millis(),
        }
    }
}

/// The client's end of an in-memory pipe.
pub struct MemoryTransport {
    pub to_server: mpsc::UnboundedSender<Vec<u8>>,
    pub from_server: Mutex<mpsc::UnboundedReceiver<Vec<u8>>>,
    pub closed: Rc<Cell<bool>>,
    /// Authorization rounds the test announces (see [`MemoryTransport::authorization_signal`]).
    authorizing: Mutex<Option<mpsc::UnboundedReceiver<bool>>>,
}

impl MemoryTransport {
    /// Where the test announces authorization rounds: `true` when one starts, `false` when it
    /// ends, as an HTTP transport with OAuth would.
    pub fn authorization_signal(&mut self) -> mpsc::UnboundedSender<bool> {
        let (tx, rx) = mpsc::unbounded();
        self.authorizing = Mutex::new(Some(rx));
        tx
    }
}

impl Transport for MemoryTransport {
    async fn send(&self, bytes: Vec<u8>) -> Result<(), String> {
        self.to_server
            .unbounded_send(bytes)
            .map_err(|_| "server gone".to_owned())
    }
    async fn recv(&self) -> Option<Result<Vec<u8>, String>> {
        self.from_server.lock().await.next().await.map(Ok)
    }
    async fn closed_reason(&self) -> String {
        "scripted server hung up".into()
    }
    async fn close(&self) {
        self.closed.set(true);
    }
    async fn authorizing(&self) -> bool {
        let mut signal = self.authorizing.lock().await;
        match signal.as_mut() {
            Some(rx) => match rx.next().await {
                Some(authorizing) => authorizing,
                None => std::future::pending().await,
            },
            None => std::future::pending().await,
        }
    }
}

/// A transport and the server's ends of its two pipes.
pub fn memory_pipe() -> (
    MemoryTransport,
    mpsc::UnboundedReceiver<Vec<u8>>,
    mpsc::UnboundedSender<Vec<u8>>,
) {
    let (c2s_tx, c2s_rx) = mpsc::unbounded();
    let (s2c_tx, s2c_rx) = mpsc::unbounded();
    let transport = MemoryTransport {
        to_server: c2s_tx,
        from_server: Mutex::new(s2c_rx),
        closed: Rc::new(Cell::new(false)),
        authorizing: Mutex::new(None),
    };
    (transport, c2s_rx, s2c_tx)
}
