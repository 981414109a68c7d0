//! Gated calls outside the model loop: a command's shell snippets (origin `command:/name`) and
//! calls made by plugin code (origin `plugin:<p>`).
//!
//! Unlike direct calls (the user's own hand, which never ask), these pass the whole gate: a
//! deny rule refuses them, an ask rule or a risky tool asks the user, and nothing an extension
//! supplies can answer for the user. Each call yields exactly one audit record with its origin.

use super::direct::DirectCall;
use super::Agent;
use crate::agent::call::Target;
use crate::agent::{Approval, ApprovalRequest, DirectCallError, ToolInvocation};
use crate::audit::{AuditRecord, Outcome};
use crate::policy::Decision;
use crate::time::Instant;
use serde_json::Value;

/// The gate's verdict on a gated call that may go ahead.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Gated {
    /// Run it, then report with [`Agent::finish_direct_call`].
    Run(ToolInvocation),
    /// Ask the user, then answer with [`Agent::answer_gated_call`].
    Ask(ApprovalRequest),
}

impl Agent {
    /// Passes a call of `name` made on behalf of `origin` (`command:/name`, `plugin:<p>`)
    /// through the gate. A refusal (unknown tool, bad arguments, deny rule) is audited once and
    /// returned; otherwise the host runs the invocation or asks the user first.
    pub fn begin_gated_call(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Value,
        origin: &str,
    ) -> Result<Gated, DirectCallError> {
        self.direct.issued += 1;
        let call_id = format!("gated-{}", self.direct.issued);
        let refuse = |agent: &mut Agent, outcome, target: Option<&Target>, err: DirectCallError| {
            let record = AuditRecord::new(
                now,
                &call_id,
                name,
                target.and_then(Target::server),
                &arguments,
                outcome,
            )
            .with_error(&err.to_string())
            .with_source(target.map(|t| &t.source))
            .with_origin(origin);
            agent.out.audit.push(record);
            Err(err)
        };
        let Some(spec) = self.registry.get(name) else {
            return refuse(
                self,
                Outcome::Error,
                None,
                DirectCallError::UnknownTool(name.into()),
            );
        };
        let target = Target::of(spec);
        if !arguments.is_object() {
            let err = DirectCallError::InvalidArguments(name.into());
            return refuse(self, Outcome::Error, Some(&target), err);
        }
        let decision = self.policy.decide_call(spec, &arguments);
        if let Decision::Deny { rule } = decision {
            let err = DirectCallError::Denied {
                tool: name.into(),
                rule,
            };
            return refuse(self, Outcome::Denied, Some(&target), err);
        }
        let call = DirectCall {
            started: now,
            name: name.to_owned(),
            arguments,
            target,
            origin: origin.to_owned(),
        };
        if decision == Decision::Allow {
            let invocation = invocation(&call_id, &call);
            self.direct.running.insert(call_id, call);
            return Ok(Gated::Run(invocation));
        }
        let request = ApprovalRequest {
            call_id: call_id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            risk: call.target.risk,
            agent: None,
        };
        self.direct.asking.insert(call_id, call);
        Ok(Gated::Ask(request))
    }

    /// The user's answer to a gated call's [`Gated::Ask`]: the invocation to run, or `None`
    /// when declined (audited as denied). `Always` also allows the tool for the session.
    pub fn answer_gated_call(
        &mut self,
        now: Instant,
        call_id: &str,
        approval: Approval,
    ) -> Result<Option<ToolInvocation>, crate::agent::AgentError> {
        let mut call = self
            .direct
            .asking
            .remove(call_id)
            .ok_or_else(|| crate::agent::AgentError::UnknownCall(call_id.to_owned()))?;
        match approval {
            Approval::No => {
                let record = AuditRecord::new(
                    now,
                    call_id,
                    &call.name,
                    call.target.server(),
                    &call.arguments,
                    Outcome::Denied,
                )
                .with_error("the user declined")
                .with_source(Some(&call.target.source))
                .with_origin(&call.origin);
                self.out.audit.push(record);
                Ok(None)
            }
            other => {
                if other == Approval::Always {
                    self.policy.allow_always(&call.name);
                }
                call.started = now;
                let invocation = invocation(call_id, &call);
                self.direct.running.insert(call_id.to_owned(), call);
                Ok(Some(invocation))
            }
        }
    }
}

fn invocation(call_id: &str, call: &DirectCall) -> ToolInvocation {
    ToolInvocation {
        call_id: call_id.to_owned(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        target: call.target.source.clone(),
        timeout: call.target.timeout,
    }
}
