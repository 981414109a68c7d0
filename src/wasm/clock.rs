//! Time and tasks on the JS event loop: `performance.now()`, `setTimeout`, `spawn_local`.

use super::diagnostics::{Held, Kind};
use super::js::{clear_timeout, performance_now, set_timeout};
use crate::driver::Clock;
use crate::time::Instant;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use wasm_bindgen::prelude::*;

/// `setTimeout` takes a signed 32-bit delay; a longer one fires at once, so waits are cut into
/// pieces no longer than this.
const MAX_TIMEOUT_MS: u64 = i32::MAX as u64;

/// The JS clock: monotonic milliseconds from `performance.now()`, sleeps with `setTimeout`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct JsClock;

impl Clock for JsClock {
    fn now(&self) -> Instant {
        // performance.now() is a non-negative fraction of a millisecond; whole ms suffice.
        Instant::from_millis(performance_now().max(0.0) as u64)
    }

    async fn sleep_until(&self, deadline: Instant) {
        loop {
            let now = self.now();
            if now >= deadline {
                return;
            }
            let wait = (deadline.as_millis() - now.as_millis()).min(MAX_TIMEOUT_MS);
            Timer::start(wait).await;
        }
    }
}

/// One `setTimeout`, cleared when the future is dropped: the driver races timers against
/// messages all the time, and a forgotten timer would keep Node's event loop (and so the host
/// process) alive until it fired.
struct Timer {
    fired: oneshot::Receiver<()>,
    handle: JsValue,
    /// Kept alive until the timer is cleared, so JS never calls a dropped closure.
    _callback: Closure<dyn FnMut()>,
    /// Counted in the runtime's diagnostics while it lives.
    _held: Held,
}

impl Timer {
    fn start(ms: u64) -> Timer {
        let (tx, fired) = oneshot::channel();
        let mut tx = Some(tx);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(tx) = tx.take() {
                let _ = tx.send(());
            }
        });
        let handle = set_timeout(callback.as_ref().unchecked_ref(), ms as f64);
        Timer {
            fired,
            handle,
            _callback: callback,
            _held: Held::new(Kind::Timer),
        }
    }
}

impl std::future::Future for Timer {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        std::pin::Pin::new(&mut self.fired).poll(cx).map(|_| ())
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
    }
}

/// Runs a future on the JS event loop, in the background.
pub(crate) fn spawn(future: LocalBoxFuture<'static, ()>) {
    wasm_bindgen_futures::spawn_local(future);
}
