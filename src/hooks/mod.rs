//! Hooks in Claude Code's format, sans-IO: configuration, matchers, event inputs, reading what
//! a hook said, and merging several hooks into one verdict that can only tighten the gate.
//!
//! # Driving contract
//! The host reads settings files and plugins and hands each JSON text to
//! [`HookSet::add_settings`] with its [`HookSource`] (a source from an untrusted workspace is
//! added with `blocked` set: listed, never run). The [`crate::agent::Agent`] owns the set
//! ([`crate::agent::Agent::set_hooks`]): for tool events it emits
//! [`crate::agent::Action::RunHooks`] with the matching hooks and the input JSON; the host runs
//! them (in parallel, each under its timeout), and answers with
//! [`crate::agent::Agent::handle_hook_runs`], one [`HookRun`] per hook in the same order. The
//! agent reads each run ([`read_run`]), merges them ([`merge`]) and applies the verdict with
//! [`gate`]. Session events (`SessionStart`, `UserPromptSubmit`, `Stop`, …) are run by the
//! driver the same way, through [`crate::driver::Runtime::set_hook_runner`].
//!
//! Nothing a hook prints can register a tool, change a tool's risk, enable sampling or answer
//! an approval: the verdict has no field for any of those.

mod config;
mod event;
mod matcher;
mod merge;
mod output;
mod regex;

pub use config::{HookHandler, HookSet, HookSource, HookSpec, DEFAULT_TIMEOUT, MAX_TIMEOUT};
pub use event::{hook_input, tool_fields, HookContext, HookEvent};
pub use matcher::Matcher;
pub use merge::{gate, merge, GateOutcome, HookVerdict, RuleVerdict};
pub use output::{read_run, HookExit, HookResult, HookRun, Permission, MAX_CONTEXT_CHARS};
pub use regex::Regex;

/// Reads and merges the runs of `hooks` (same order) on `event`.
pub fn verdict(event: HookEvent, hooks: &[HookSpec], runs: &[HookRun]) -> HookVerdict {
    let results: Vec<HookResult> = hooks
        .iter()
        .zip(runs)
        // The name reaches the model and the user: a command line may carry a token.
        .map(|(spec, run)| read_run(event, &crate::audit::redact_text(spec.name()), run))
        .collect();
    let mut merged = merge(&results);
    if runs.len() < hooks.len() {
        merged.notices.push(format!(
            "{} of {} {} hooks reported no result",
            hooks.len() - runs.len(),
            hooks.len(),
            event.as_str()
        ));
    }
    merged
}
