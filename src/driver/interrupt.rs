//! Stopping a run from outside: the host's Ctrl-C, SIGTERM or a stop button.
//!
//! A [`RunInterrupt`] is shared by the [`Runtime`](super::Runtime) and the host. The runtime
//! marks when a run (or a direct tool call) is active; the host calls
//! [`interrupt`](RunInterrupt::interrupt), which is refused with an `Err` when nothing is active
//! (so a host knows a Ctrl-C between runs is its own to handle). The runtime races every wait
//! of the run (model, tools, approval) against [`requested`](RunInterrupt::requested); when it
//! fires, the waits are dropped (which cancels MCP calls in flight and kills `bash`), and the
//! agent records the interruption.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Refusal of [`RunInterrupt::interrupt`]: no run or direct call is active.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NothingRunning;

impl fmt::Display for NothingRunning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no run is active")
    }
}

impl std::error::Error for NothingRunning {}

#[derive(Default)]
struct State {
    active: bool,
    reason: Option<String>,
    wakers: Vec<Waker>,
}

/// A handle that stops the active run of a runtime. Cheap to clone; single-threaded.
#[derive(Clone, Default)]
pub struct RunInterrupt {
    state: Rc<RefCell<State>>,
}

impl RunInterrupt {
    /// A handle with nothing active.
    pub fn new() -> Self {
        RunInterrupt::default()
    }

    /// Asks the active run to stop; `reason` names who asked (`"Ctrl-C"`, `"SIGTERM"`). A
    /// second request while the first is still being handled keeps the first reason.
    /// `Err(NothingRunning)`, and no change, when no run is active.
    pub fn interrupt(&self, reason: &str) -> Result<(), NothingRunning> {
        let wakers = {
            let mut state = self.state.borrow_mut();
            if !state.active {
                return Err(NothingRunning);
            }
            state.reason.get_or_insert_with(|| reason.to_owned());
            std::mem::take(&mut state.wakers)
        };
        wakers.into_iter().for_each(Waker::wake);
        Ok(())
    }

    /// Whether a run or direct call is active.
    pub fn is_active(&self) -> bool {
        self.state.borrow().active
    }

    /// Whether an interruption was asked for and not yet handled.
    pub fn is_requested(&self) -> bool {
        self.state.borrow().reason.is_some()
    }

    /// Who asked for the interruption not yet handled (`"Ctrl-C"`), if one was.
    pub fn reason(&self) -> Option<String> {
        self.state.borrow().reason.clone()
    }

    /// Marks the start (`true`) or end (`false`) of a run; either clears a pending request, so
    /// a Ctrl-C aimed at one run never stops the next.
    pub(crate) fn set_active(&self, active: bool) {
        let mut state = self.state.borrow_mut();
        state.active = active;
        state.reason = None;
        state.wakers.clear();
    }

    /// Completes with the reason once an interruption is asked for.
    pub(crate) fn requested(&self) -> Requested {
        Requested {
            state: Rc::clone(&self.state),
        }
    }
}

/// The future of [`RunInterrupt::requested`].
pub(crate) struct Requested {
    state: Rc<RefCell<State>>,
}

impl Future for Requested {
    type Output = String;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<String> {
        let mut state = self.state.borrow_mut();
        if let Some(reason) = &state.reason {
            return Poll::Ready(reason.clone());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// Runs `work` unless an interruption comes first: `Ok(output)`, or `Err(reason)` with `work`
/// dropped.
pub(crate) async fn unless_interrupted<T>(
    interrupt: &RunInterrupt,
    work: impl Future<Output = T>,
) -> Result<T, String> {
    let stop = interrupt.requested();
    futures::pin_mut!(work, stop);
    match futures::future::select(work, stop).await {
        futures::future::Either::Left((output, _)) => Ok(output),
        futures::future::Either::Right((reason, _)) => Err(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::future::{pending, ready};

    #[test]
    fn interrupt_is_refused_when_nothing_runs_and_stops_work_when_something_does() {
        let handle = RunInterrupt::new();
        assert_eq!(handle.interrupt("Ctrl-C"), Err(NothingRunning));
        assert!(
            !handle.is_requested(),
            "a refused request leaves nothing behind"
        );
        handle.set_active(true);
        assert_eq!(block_on(unless_interrupted(&handle, ready(7))), Ok(7));
        handle.interrupt("Ctrl-C").unwrap();
        handle.interrupt("SIGTERM").unwrap();
        assert!(handle.is_requested());
        assert_eq!(handle.reason().as_deref(), Some("Ctrl-C"));
        let stopped = block_on(unless_interrupted(&handle, pending::<()>()));
        assert_eq!(
            stopped,
            Err("Ctrl-C".to_owned()),
            "the first reason is kept"
        );
        // A new run starts clean.
        handle.set_active(false);
        assert!(!handle.is_active() && !handle.is_requested());
        assert_eq!(handle.reason(), None);
        handle.set_active(true);
        assert_eq!(block_on(unless_interrupted(&handle, ready(1))), Ok(1));
    }

    #[test]
    fn a_waiting_run_is_woken_by_the_interrupt() {
        let handle = RunInterrupt::new();
        handle.set_active(true);
        let mut pool = futures::executor::LocalPool::new();
        let result = Rc::new(RefCell::new(None));
        let (h, r) = (handle.clone(), Rc::clone(&result));
        futures::task::LocalSpawnExt::spawn_local(&pool.spawner(), async move {
            *r.borrow_mut() = Some(unless_interrupted(&h, pending::<()>()).await);
        })
        .unwrap();
        pool.run_until_stalled();
        assert!(result.borrow().is_none(), "still waiting");
        handle.interrupt("SIGTERM").unwrap();
        pool.run_until_stalled();
        assert_eq!(*result.borrow(), Some(Err("SIGTERM".to_owned())));
    }
}
