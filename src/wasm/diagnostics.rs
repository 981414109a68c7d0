//! Counters of what the runtime module holds open on the JS event loop, for leak checks: live
//! `setTimeout`s and model and tool calls whose promises are still awaited.

use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    static TIMERS: Cell<usize> = const { Cell::new(0) };
    static MODEL_CALLS: Cell<usize> = const { Cell::new(0) };
    static TOOL_CALLS: Cell<usize> = const { Cell::new(0) };
}

/// Which counter a [`Held`] guard counts in.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// A `setTimeout` not yet fired or cleared.
    Timer,
    /// A model call awaited by the runtime.
    ModelCall,
    /// A JS tool call awaited by the runtime.
    ToolCall,
}

fn counter(kind: Kind) -> &'static std::thread::LocalKey<Cell<usize>> {
    match kind {
        Kind::Timer => &TIMERS,
        Kind::ModelCall => &MODEL_CALLS,
        Kind::ToolCall => &TOOL_CALLS,
    }
}

/// Counts one held resource for as long as it lives.
pub(crate) struct Held(Kind);

impl Held {
    /// Counts one more of `kind` until the guard is dropped.
    pub(crate) fn new(kind: Kind) -> Held {
        counter(kind).with(|c| c.set(c.get() + 1));
        Held(kind)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        counter(self.0).with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// `{"timers", "modelCalls", "toolCalls"}`: what the runtime module holds right now, across
/// every agent. All zero when nothing runs.
#[wasm_bindgen(js_name = runtimeDiagnostics)]
pub fn runtime_diagnostics() -> String {
    let get = |kind| counter(kind).with(Cell::get);
    format!(
        "{{\"timers\":{},\"modelCalls\":{},\"toolCalls\":{}}}",
        get(Kind::Timer),
        get(Kind::ModelCall),
        get(Kind::ToolCall)
    )
}
