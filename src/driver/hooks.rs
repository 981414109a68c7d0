//! Hooks in the driver: the hooks the agent asks for ([`crate::agent::Action::RunHooks`]: tool
//! calls, `Stop` / `SubagentStop` on a final answer, `SubagentStart` when a child starts,
//! `SessionStart` after an automatic compaction) and the session events the runtime fires
//! itself (`SessionStart`, `UserPromptSubmit`, `SessionEnd`, `Notification`, `PreCompact`),
//! all through the host's [`HookRunner`].

use super::backends::RunObserver;
use super::runtime::Runtime;
use super::traits::Clock;
use crate::agent::UiEvent;
use crate::hooks::{hook_input, verdict, HookEvent, HookRun, HookSpec, HookVerdict};
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use std::rc::Rc;

/// Runs hooks for the runtime (processes natively, functions in the npm package): `(event,
/// input JSON, hooks)` → one run per hook, in order, all started at once.
pub type HookRunner =
    Rc<dyn Fn(HookEvent, Value, Vec<HookSpec>) -> LocalBoxFuture<'static, Vec<HookRun>>>;

impl<C: Clock> Runtime<C> {
    /// Sets (or removes) the host's hook runner. Without one no hook runs: tool hooks are
    /// answered with a failure each (a non-blocking error), session hooks are skipped.
    pub fn set_hook_runner(&self, runner: Option<HookRunner>) {
        *self.hook_runner.borrow_mut() = runner;
    }

    /// Runs `hooks` on `event` with `input`: each one's run, or a failure each when the host has
    /// no runner.
    pub(super) async fn run_hooks(
        &self,
        event: HookEvent,
        input: Value,
        hooks: Vec<HookSpec>,
    ) -> Vec<HookRun> {
        let runner = self.hook_runner.borrow().clone();
        match runner {
            Some(runner) => runner(event, input, hooks).await,
            None => hooks
                .iter()
                .map(|_| HookRun {
                    exit: crate::hooks::HookExit::Failed("this host runs no hooks".into()),
                    stdout: String::new(),
                    stderr: String::new(),
                    duration: std::time::Duration::ZERO,
                })
                .collect(),
        }
    }

    /// Fires `event` (matcher value `value`, event fields `fields`) and shows its notices;
    /// `None` when no hook fired.
    pub async fn fire_hooks(
        &self,
        event: HookEvent,
        value: &str,
        fields: Value,
        observer: &dyn RunObserver,
    ) -> Option<HookVerdict> {
        let (hooks, input) = {
            let agent = self.agent.borrow();
            let hooks = agent.hooks().matching(event, value);
            (hooks, hook_input(agent.hook_context(), event, fields))
        };
        if hooks.is_empty() || self.hook_runner.borrow().is_none() {
            return None;
        }
        let runs = self.run_hooks(event, input, hooks.clone()).await;
        let verdict = verdict(event, &hooks, &runs);
        for message in &verdict.notices {
            observer.on_event(&UiEvent::HookNotice {
                event: event.as_str().to_owned(),
                message: message.clone(),
            });
        }
        Some(verdict)
    }

    /// Fires `SessionStart` with `source` (`startup`, `resume`, `clear`, `compact`); the
    /// context its hooks give joins the next prompt (the conversation, not the prefix).
    pub async fn session_start(&self, source: &str, observer: &dyn RunObserver) {
        let fields = json!({"source": source});
        if let Some(verdict) = self
            .fire_hooks(HookEvent::SessionStart, source, fields, observer)
            .await
        {
            self.hook_notes.borrow_mut().extend(verdict.context);
        }
    }

    /// Fires `SessionEnd` with `reason` (`clear`, `logout`, `prompt_input_exit`, `other`).
    pub async fn session_end(&self, reason: &str, observer: &dyn RunObserver) {
        let fields = json!({"reason": reason});
        self.fire_hooks(HookEvent::SessionEnd, reason, fields, observer)
            .await;
    }

    /// `prompt` with the context session hooks gave: `UserPromptSubmit` hooks run first;
    /// `Err(reason)` when one blocked the prompt or stopped the session.
    pub(super) async fn hooked_prompt(
        &self,
        prompt: &str,
        observer: &dyn RunObserver,
    ) -> Result<String, String> {
        let fields = json!({"prompt": prompt});
        if let Some(verdict) = self
            .fire_hooks(HookEvent::UserPromptSubmit, "", fields, observer)
            .await
        {
            if let Some(reason) = verdict.block.or(verdict.stop) {
                return Err(format!("the prompt was not sent: {reason}"));
            }
            self.hook_notes.borrow_mut().extend(verdict.context);
        }
        let notes: Vec<String> = self.hook_notes.borrow_mut().drain(..).collect();
        if notes.is_empty() {
            return Ok(prompt.to_owned());
        }
        Ok(with_hook_context(&notes, prompt))
    }

    /// Fires `Notification` (`permission_prompt`) for an approval the user is asked for.
    pub(super) async fn notify_approval(&self, tool: &str, observer: &dyn RunObserver) {
        let fields = json!({
            "message": format!("agentwire needs your permission to use {tool}"),
            "notification_type": "permission_prompt",
        });
        self.fire_hooks(
            HookEvent::Notification,
            "permission_prompt",
            fields,
            observer,
        )
        .await;
    }

    /// Fires `PreCompact` (`trigger` `manual` or `auto`; `custom_instructions` is the focus
    /// `/compact` was given). A hook cannot stop a compaction (an automatic one keeps the next
    /// request inside the window); what it says is shown.
    pub(super) async fn pre_compact(
        &self,
        trigger: &str,
        instructions: Option<&str>,
        observer: &dyn RunObserver,
    ) {
        let fields = json!({
            "trigger": trigger,
            "custom_instructions": instructions.unwrap_or_default(),
        });
        self.fire_hooks(HookEvent::PreCompact, trigger, fields, observer)
            .await;
    }

    /// Fires `SessionStart` `compact` when the agent adopted a summary since it had adopted
    /// `summaries_before`, after `/compact` (the context its hooks give joins the next prompt;
    /// after an automatic compaction the agent asks for these hooks itself).
    pub(super) async fn after_compaction(&self, summaries_before: u64, observer: &dyn RunObserver) {
        let now = self.agent.borrow().summary_compactions();
        if now > summaries_before {
            self.session_start("compact", observer).await;
        }
    }
}

/// `prompt` with `notes` (hook context) ahead of it, each in a `<hook-context>` block.
pub(super) fn with_hook_context(notes: &[String], prompt: &str) -> String {
    let mut text = String::new();
    for note in notes {
        text.push_str("<hook-context>\n");
        text.push_str(note);
        text.push_str("\n</hook-context>\n\n");
    }
    text.push_str(prompt);
    text
}
