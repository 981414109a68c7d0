//! Gated calls made outside the model loop: a command's shell snippets (origin
//! `command:/name`) and calls made by plugin code (origin `plugin:<p>`). Unlike the user's
//! direct calls they can ask: the observer's `approve` answers, and no approver means no.

use super::backends::RunObserver;
use super::direct_call::DirectCallOutput;
use super::interrupt::unless_interrupted;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::agent::{Approval, DirectCallError, Gated, ToolFailure};
use serde_json::Value;
use std::fmt;

/// Why a gated call did not run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NotRun {
    /// Refused by the gate (unknown tool, bad arguments, a deny rule); audited.
    Refused(DirectCallError),
    /// The user declined when asked (or no one could be asked); audited as denied.
    Declined(String),
}

impl fmt::Display for NotRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotRun::Refused(error) => error.fmt(f),
            NotRun::Declined(name) => write!(f, "{name} was not approved"),
        }
    }
}

impl<C: Clock> Runtime<C> {
    /// Calls `name` on behalf of `origin` through the whole gate: deny rules refuse it, ask
    /// rules and risky tools ask `observer`, and exactly one audit record carries `origin`.
    pub async fn call_gated(
        &self,
        name: &str,
        arguments: Value,
        origin: &str,
        observer: &dyn RunObserver,
    ) -> Result<DirectCallOutput, NotRun> {
        self.call_gated_for(name, arguments, origin, None, observer)
            .await
    }

    /// [`Runtime::call_gated`] for a shell snippet of a command from `source` (`plugin:<p>`,
    /// ...), which the host's tools see ([`super::LocalTools::call_for`]).
    pub async fn call_gated_for(
        &self,
        name: &str,
        arguments: Value,
        origin: &str,
        source: Option<&str>,
        observer: &dyn RunObserver,
    ) -> Result<DirectCallOutput, NotRun> {
        let now = self.clock.now();
        let begun = self
            .agent
            .borrow_mut()
            .begin_gated_call(now, name, arguments, origin);
        self.drain_audit(observer);
        let invocation = match begun.map_err(NotRun::Refused)? {
            Gated::Run(invocation) => invocation,
            Gated::Ask(request) => {
                // An interruption while asking is a no (audited as denied).
                let answer = unless_interrupted(&self.interrupt, observer.approve(&request))
                    .await
                    .unwrap_or(Approval::No);
                let now = self.clock.now();
                let answered =
                    self.agent
                        .borrow_mut()
                        .answer_gated_call(now, &request.call_id, answer);
                self.drain_audit(observer);
                match answered {
                    Ok(Some(invocation)) => invocation,
                    _ => return Err(NotRun::Declined(name.to_owned())),
                }
            }
        };
        // A run's Ctrl-C stops a snippet too: the wait is dropped (which kills a `bash` tree)
        // and the call is audited as interrupted.
        let result = unless_interrupted(&self.interrupt, self.invoke_for(&invocation, source))
            .await
            .unwrap_or_else(|reason| Err(ToolFailure::Interrupted(reason)));
        Ok(self.finish_call(&invocation, result, observer))
    }
}
