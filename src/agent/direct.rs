//! Direct tool calls: a user or host calls one tool by name, outside the model loop.
//!
//! They pass the same registry lookup, deny rules, truncation and audit as the loop's calls, but
//! never ask: the user calling a tool by hand is the approval. Used by `agentwire mcp call` and
//! the JS `agent.callTool`. They do not touch the conversation history or the run's budget.

use super::call::{shape, Target};
use super::Agent;
use crate::agent::{AgentError, DirectCallError, DirectCallResult, ToolFailure, ToolInvocation};
use crate::audit::{AuditRecord, Outcome};
use crate::content::ToolOutput;
use crate::policy::Decision;
use crate::time::Instant;
use crate::vec_map::VecMap;
use serde_json::Value;

#[derive(Debug)]
pub(super) struct DirectCall {
    pub(super) started: Instant,
    pub(super) name: String,
    pub(super) arguments: Value,
    pub(super) target: Target,
    /// `user` for direct calls, `command:/name` or `plugin:<p>` for gated ones.
    pub(super) origin: String,
}

/// Direct calls in flight, by id.
#[derive(Debug, Default)]
pub(super) struct DirectCalls {
    pub(super) issued: u64,
    pub(super) running: VecMap<String, DirectCall>,
    /// Gated calls waiting for the user's answer, by id.
    pub(super) asking: VecMap<String, DirectCall>,
}

impl Agent {
    /// Checks a direct call of tool `name` against the registry and the deny rules.
    ///
    /// On success the host runs the returned invocation and reports with
    /// [`Agent::finish_direct_call`]. A refusal is audited (`error` or `denied`) and returned.
    pub fn begin_direct_call(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Value,
    ) -> Result<ToolInvocation, DirectCallError> {
        self.direct.issued += 1;
        let call_id = format!("direct-{}", self.direct.issued);
        let audit = |outcome, server: Option<String>, error: &str| {
            AuditRecord::new(now, &call_id, name, server, &arguments, outcome)
                .with_error(error)
                .with_origin("user")
        };
        let Some(spec) = self.registry.get(name) else {
            let err = DirectCallError::UnknownTool(name.to_owned());
            self.out
                .audit
                .push(audit(Outcome::Error, None, &err.to_string()));
            return Err(err);
        };
        let target = Target::of(spec);
        let err = if !arguments.is_object() {
            Some((
                Outcome::Error,
                DirectCallError::InvalidArguments(name.to_owned()),
            ))
        } else if let Decision::Deny { rule } = self.policy.decide_call(spec, &arguments) {
            let tool = name.to_owned();
            Some((Outcome::Denied, DirectCallError::Denied { tool, rule }))
        } else {
            None
        };
        if let Some((outcome, err)) = err {
            let record = audit(outcome, target.server(), &err.to_string());
            self.out
                .audit
                .push(record.with_source(Some(&target.source)));
            return Err(err);
        }
        let invocation = ToolInvocation {
            call_id: call_id.clone(),
            name: name.to_owned(),
            arguments: arguments.clone(),
            target: target.source.clone(),
            timeout: target.timeout,
        };
        self.direct.running.insert(
            call_id,
            DirectCall {
                started: now,
                name: name.to_owned(),
                arguments,
                target,
                origin: "user".into(),
            },
        );
        Ok(invocation)
    }

    /// Takes the result of a direct call: audits it and returns the text cut to the tool's limit.
    pub fn finish_direct_call(
        &mut self,
        now: Instant,
        call_id: &str,
        result: Result<ToolOutput, ToolFailure>,
    ) -> Result<DirectCallResult, AgentError> {
        let call = self
            .direct
            .running
            .remove(call_id)
            .ok_or_else(|| AgentError::UnknownCall(call_id.to_owned()))?;
        let shaped = shape(result, &call.target, None);
        let mut record = AuditRecord::new(
            call.started,
            call_id,
            &call.name,
            call.target.server(),
            &call.arguments,
            shaped.outcome,
        )
        .with_source(Some(&call.target.source))
        .with_origin(&call.origin);
        if let Some(error) = &shaped.error {
            record = record.with_error(error);
        }
        record.duration = now - call.started;
        record.output_chars = shaped.output_chars;
        record.truncated = shaped.truncated;
        self.out.audit.push(record);
        Ok(DirectCallResult {
            text: shaped.content,
            truncated: shaped.truncated,
            is_error: shaped.is_error,
        })
    }
}
