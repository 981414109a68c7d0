//! Ctrl-C (SIGINT) and SIGTERM for the CLI.
//!
//! What each signal does, decided by [`decide`] from what is going on:
//! - SIGINT while a run (or `mcp call`) is active, the first time: interrupt it. Calls in flight
//!   are cancelled (MCP servers get `notifications/cancelled`, `bash` trees are killed), they are
//!   audited as `interrupted`, and the run ends with an `error` event. `agentwire run` then exits
//!   with status 130; the interactive session goes back to its prompt.
//! - SIGINT again before that run has ended, or with nothing to interrupt outside the
//!   interactive session: exit (130). At the prompt, Ctrl-C is the line editor's (it clears the
//!   line) and a SIGINT from elsewhere is ignored.
//! - SIGTERM: interrupt whatever runs, then exit (143).
//!
//! Exiting always shuts the servers down in the documented order (close stdin, 2 s, SIGTERM,
//! 2 s, SIGKILL); one more signal during that shutdown kills their process groups at once.

use std::io;
use tokio::signal::unix::{signal, Signal, SignalKind};

/// Which signal arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl Stop {
    /// The name used in messages and in the `interrupted` event.
    pub fn reason(self) -> &'static str {
        match self {
            Stop::Interrupt => "Ctrl-C",
            Stop::Terminate => "SIGTERM",
        }
    }

    /// The conventional exit status after this signal (128 + its number).
    pub fn exit_code(self) -> i32 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
        }
    }
}

/// The CLI's handlers for SIGINT and SIGTERM; installing them replaces "die at once".
pub struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    /// Installs both handlers (needs a tokio runtime).
    pub fn install() -> io::Result<Signals> {
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// The next signal.
    pub async fn recv(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
        }
    }
}

/// What the CLI does with a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    /// Interrupt the active run and carry on (back to the prompt, or to the end of `run`).
    InterruptRun,
    /// Interrupt whatever is active, let it record that, then exit with this status.
    Exit(i32),
    /// Nothing to do (a SIGINT at the interactive prompt, which is the line editor's).
    Ignore,
}

/// What is going on when a signal arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Situation {
    /// A run or direct call is active.
    pub active: bool,
    /// An interruption was already asked for and the run has not ended yet.
    pub interrupting: bool,
    /// The interactive session (which survives an interrupted run).
    pub interactive: bool,
}

/// The policy of the module doc, as a function.
pub fn decide(stop: Stop, now: Situation) -> Response {
    match stop {
        Stop::Terminate => Response::Exit(stop.exit_code()),
        Stop::Interrupt if now.active && !now.interrupting => Response::InterruptRun,
        Stop::Interrupt if now.interactive && !now.active => Response::Ignore,
        Stop::Interrupt => Response::Exit(stop.exit_code()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(active: bool, interrupting: bool, interactive: bool) -> Situation {
        Situation {
            active,
            interrupting,
            interactive,
        }
    }

    #[test]
    fn first_ctrl_c_interrupts_a_second_exits_sigterm_always_exits() {
        use Response::*;
        for interactive in [false, true] {
            let running = at(true, false, interactive);
            let stopping = at(true, true, interactive);
            assert_eq!(decide(Stop::Interrupt, running), InterruptRun);
            assert_eq!(decide(Stop::Interrupt, stopping), Exit(130));
            assert_eq!(decide(Stop::Terminate, running), Exit(143));
            assert_eq!(
                decide(Stop::Terminate, at(false, false, interactive)),
                Exit(143)
            );
        }
        assert_eq!(decide(Stop::Interrupt, at(false, false, false)), Exit(130));
        assert_eq!(decide(Stop::Interrupt, at(false, false, true)), Ignore);
    }
}
