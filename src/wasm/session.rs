//! Sessions for JS: the conversation kept in a store the host chooses (`createAgent({ session })`),
//! entry by entry in the transcript format, and runs that pause for approval and resume later,
//! possibly in another runtime.
//!
//! The JS layer reads the store's contents with the `ext` module's `parseTranscriptText` (the
//! strict reader stays out of this module) into `setHistory`, and every new entry goes to its
//! `append` function as recorded; the JS layer passes it through the `ext` module's
//! `StoreRedactor` ([`crate::transcript::stored_line`]: the same redaction the CLI's session
//! files get) before the store sees it, so no secret of the host reaches the store and the
//! redaction stays out of this module.

use super::agent::WasmAgent;
use crate::agent::Approval;
use crate::driver::TranscriptSink;
use crate::json::to_text;
use crate::transcript::Entry;
use js_sys::Function;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// `{callId: "yes" | "no" | "always"}` as the runtime's decisions.
pub(super) fn decisions_from(json: &str) -> Result<Vec<(String, Approval)>, String> {
    let Ok(Value::Object(map)) = crate::json::parse_str(json) else {
        return Err("the approvals must be an object { callId: answer }".into());
    };
    // A plain loop: collecting into a `Result<Vec<_>, _>` compiles a generic adapter of its own.
    let mut decisions = Vec::with_capacity(map.len());
    for (id, answer) in &map {
        match Approval::parse(answer.as_str().unwrap_or_default()) {
            Ok(answer) => decisions.push((id.clone(), answer)),
            Err(e) => return Err(["approvals.", id, ": ", &e].concat()),
        }
    }
    Ok(decisions)
}

impl WasmAgent {
    /// Writes the whole history to the session as entries (after `setHistory`): the store then
    /// rebuilds what the agent has.
    fn record_history(&self, sink: &TranscriptSink) {
        self.runtime().flush_transcript();
        // Inside the agent's borrow: the sink only queues each line in the JS layer.
        self.runtime().with_agent(|agent| {
            for message in agent.history() {
                sink(&Entry::from_message(message, None));
            }
        });
    }

    /// After `setHistory`: the new history goes to the session's store, if any.
    pub(super) fn record_set_history(&self) {
        if let Some(sink) = self.session().borrow().clone() {
            self.record_history(&sink);
        }
    }
}

#[wasm_bindgen]
impl WasmAgent {
    /// From now on every transcript entry goes to `append(lineJson)` (its JSON line, not
    /// redacted yet: the JS layer redacts it with the `ext` module's `StoreRedactor` before
    /// any store sees it); runs without an approver pause instead of declining.
    #[wasm_bindgen(js_name = setSession)]
    pub fn set_session(&self, append: Function) {
        let sink: TranscriptSink = Rc::new(move |entry: &Entry| {
            let line = entry.to_line();
            // The JS layer queues the line and never throws back into the run.
            let _ = append.call1(&JsValue::NULL, &JsValue::from_str(line.trim_end()));
        });
        self.runtime().set_transcript_sink(Some(Rc::clone(&sink)));
        *self.session().borrow_mut() = Some(sink);
    }

    /// The calls a paused conversation waits on, as JSON `[{id, name, arguments}]` (empty when
    /// it is not paused): each in the shape of a model's tool call, which the JS layer shows as
    /// `{id, name, args}`.
    pub fn pending(&self) -> String {
        let calls = self.runtime().with_agent(|agent| agent.paused_calls());
        let mut list = Vec::with_capacity(calls.len());
        for call in &calls {
            list.push(call.to_value());
        }
        to_text(&Value::Array(list))
    }
}
