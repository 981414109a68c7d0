//! Direct tool calls: the user's own call of one tool (deny rules and audit apply, it never
//! asks), and how a direct or gated call's result is reported.

use super::backends::RunObserver;
use super::interrupt::unless_interrupted;
use super::runtime::{Active, Runtime};
use super::traits::Clock;
use crate::agent::{DirectCallError, DirectCallResult, ToolFailure, ToolInvocation};
use crate::content::ToolOutput;
use crate::time::whole_millis;
use serde_json::Value;

/// The result of [`Runtime::call_tool`]: the raw output and what the model would have seen.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectCallOutput {
    /// The tool's output as it returned it (`None` if the call failed before any output).
    pub output: Option<ToolOutput>,
    /// Text cut to the tool's limit, as audited.
    pub shaped: DirectCallResult,
    /// Why the call failed, when it did not even produce an output.
    pub failure: Option<String>,
}

impl<C: Clock> Runtime<C> {
    /// Runs `work`, a host's wait outside a run (attaching `@server:uri` mentions, fetching a
    /// prompt), as interruptible as a run: the host's Ctrl-C makes it `Err(reason)`, `work`
    /// dropped (which cancels its MCP requests).
    pub async fn interruptible<T>(
        &self,
        work: impl std::future::Future<Output = T>,
    ) -> Result<T, String> {
        let _active = Active::new(&self.interrupt);
        unless_interrupted(&self.interrupt, work).await
    }

    /// Calls one tool directly (the user's own call, not the model's): deny rules still block
    /// it and it is audited, but it never asks.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        observer: &dyn RunObserver,
    ) -> Result<DirectCallOutput, DirectCallError> {
        let begun = self
            .agent
            .borrow_mut()
            .begin_direct_call(self.clock.now(), name, arguments);
        self.drain_audit(observer);
        let invocation = begun?;
        let result = {
            let _active = Active::new(&self.interrupt);
            unless_interrupted(&self.interrupt, self.invoke(&invocation))
                .await
                .unwrap_or_else(|reason| Err(ToolFailure::Interrupted(reason)))
        };
        Ok(self.finish_call(&invocation, result, observer))
    }

    /// Reports a direct or gated call's result to the agent (one audit record) and gives the
    /// output with what the model would have seen.
    pub(super) fn finish_call(
        &self,
        invocation: &ToolInvocation,
        result: Result<ToolOutput, ToolFailure>,
        observer: &dyn RunObserver,
    ) -> DirectCallOutput {
        let name = &invocation.name;
        let (output, failure) = match &result {
            Ok(output) => (Some(output.clone()), None),
            Err(ToolFailure::Timeout) => (
                None,
                Some(format!(
                    "{name} timed out after {} ms",
                    whole_millis(invocation.timeout)
                )),
            ),
            Err(ToolFailure::Error(message)) => (None, Some(message.clone())),
            Err(ToolFailure::Interrupted(reason)) => {
                (None, Some(format!("{reason} interrupted {name}")))
            }
            Err(_) => (None, Some(format!("{name} was cancelled"))),
        };
        let now = self.clock.now();
        let shaped = self
            .agent
            .borrow_mut()
            .finish_direct_call(now, &invocation.call_id, result);
        self.drain_audit(observer);
        let shaped = shaped.unwrap_or(DirectCallResult {
            text: String::new(),
            truncated: false,
            is_error: true,
        });
        DirectCallOutput {
            output,
            shaped,
            failure,
        }
    }

    pub(super) fn drain_audit(&self, observer: &dyn RunObserver) {
        loop {
            let record = self.agent.borrow_mut().poll_audit();
            match record {
                Some(record) => observer.on_audit(&record),
                None => return,
            }
        }
    }
}
