//! Time and tasks on the JS event loop: `performance.now()`, `setTimeout`, `spawn_local`.

use super::diagnostics::{Held, Kind};
use super::js::{clear_timeout, performance_now, set_timeout};
use crate::driver::Clock;
use crate::time::Instant;
use futures::future::LocalBoxFuture;
use std::cell::RefCell;
use std::task::Waker;
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

/// Where a [`Timer`] stands: still waiting (with the task to wake), or fired.
enum Slot {
    Free,
    Waiting(Option<Waker>),
    Fired,
}

/// Every live timer of the module, by the id its `setTimeout` passes back to [`FIRE`]. The
/// driver arms a timer per request deadline, so one shared JS callback taking an id replaces
/// a closure (and its finalizer registration) per timer.
#[derive(Default)]
struct Timers {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Timers {
    fn take_slot(&mut self) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Slot::Waiting(None);
                id
            }
            None => {
                self.slots.push(Slot::Waiting(None));
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, id: u32) {
        self.slots[id as usize] = Slot::Free;
        self.free.push(id);
    }

    /// Marks `id` fired and hands back the task to wake; an id that is not waiting (which a
    /// cleared `setTimeout` never produces) changes nothing.
    fn fire(&mut self, id: u32) -> Option<Waker> {
        let slot = self.slots.get_mut(id as usize)?;
        match std::mem::replace(slot, Slot::Fired) {
            Slot::Waiting(waker) => waker,
            other => {
                *slot = other;
                None
            }
        }
    }
}

thread_local! {
    static TIMERS: RefCell<Timers> = RefCell::default();
    /// The one callback every timer's `setTimeout` calls, with the timer's id; it lives as
    /// long as the module.
    static FIRE: Closure<dyn FnMut(u32)> = Closure::new(|id: u32| {
        // Woken outside the borrow: the task may start another timer as it runs.
        let waker = TIMERS.with(|t| t.borrow_mut().fire(id));
        if let Some(waker) = waker {
            waker.wake();
        }
    });
}

/// One `setTimeout`, cleared when the future is dropped: the driver races timers against
/// messages all the time, and a forgotten timer would keep Node's event loop (and so the host
/// process) alive until it fired.
struct Timer {
    id: u32,
    handle: JsValue,
    /// Counted in the runtime's diagnostics while it lives.
    _held: Held,
}

impl Timer {
    fn start(ms: u64) -> Timer {
        let id = TIMERS.with(|t| t.borrow_mut().take_slot());
        let handle = FIRE.with(|fire| set_timeout(fire.as_ref().unchecked_ref(), ms as f64, id));
        Timer {
            id,
            handle,
            _held: Held::new(Kind::Timer),
        }
    }
}

impl std::future::Future for Timer {
    type Output = ();
    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        TIMERS.with(|t| match &mut t.borrow_mut().slots[self.id as usize] {
            Slot::Fired => std::task::Poll::Ready(()),
            Slot::Waiting(waker) => {
                if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *waker = Some(cx.waker().clone());
                }
                std::task::Poll::Pending
            }
            // Never the case (a live timer owns its slot); ending the wait is the safe answer.
            Slot::Free => std::task::Poll::Ready(()),
        })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        TIMERS.with(|t| {
            let mut timers = t.borrow_mut();
            if !matches!(timers.slots[self.id as usize], Slot::Fired) {
                // Cleared before it fired, so the shared callback never sees this id again
                // and the slot can be reused at once.
                clear_timeout(&self.handle);
            }
            timers.release(self.id);
        });
    }
}

/// Runs a future on the JS event loop, in the background.
pub(crate) fn spawn(future: LocalBoxFuture<'static, ()>) {
    wasm_bindgen_futures::spawn_local(future);
}
