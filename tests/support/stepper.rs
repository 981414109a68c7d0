//! Drives one borrowed future alongside a `LocalPool` until it completes or stalls.
//!
//! `LocalPool::run_until` parks the thread when nothing is ready, so a run waiting on a timer
//! of the manual clock would hang the test. A `Stepper` instead returns `None` as soon as neither
//! the future nor any spawned task can make progress: the test then advances the clock (or
//! fails, saying the run stalled) instead of sleeping.

use futures::executor::LocalPool;
use futures::task::{waker, ArcWake};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

/// Set when the driven future's waker fires.
struct Flag(AtomicBool);

impl ArcWake for Flag {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.0.store(true, Ordering::SeqCst);
    }
}

/// A future polled by hand, between turns of the pool.
pub struct Stepper<F: Future> {
    future: Pin<Box<F>>,
    woken: Arc<Flag>,
}

impl<F: Future> Stepper<F> {
    /// Wraps `future`; nothing runs until [`Stepper::step`].
    pub fn new(future: F) -> Self {
        Stepper {
            future: Box::pin(future),
            // Woken at first so the first step polls.
            woken: Arc::new(Flag(AtomicBool::new(true))),
        }
    }

    /// Runs the future and the pool's tasks until the future completes (`Some`) or nothing can
    /// make progress any more (`None`).
    pub fn step(&mut self, pool: &mut LocalPool) -> Option<F::Output> {
        loop {
            if self.woken.0.swap(false, Ordering::SeqCst) {
                let waker = waker(Arc::clone(&self.woken));
                let mut cx = Context::from_waker(&waker);
                if let Poll::Ready(output) = self.future.as_mut().poll(&mut cx) {
                    return Some(output);
                }
                continue;
            }
            pool.run_until_stalled();
            if !self.woken.0.load(Ordering::SeqCst) {
                return None;
            }
        }
    }
}
