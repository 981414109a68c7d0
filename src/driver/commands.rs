//! User-typed `/name args`: the command or skill rendered into the run's user message, its
//! shell snippets run first as gated `bash` calls (origin `command:/name`).

use super::backends::RunObserver;
use super::gated::NotRun;
use super::runtime::Runtime;
use super::traits::Clock;
use super::turn::RunError;
use crate::agent::{DirectCallError, UiEvent};
use serde_json::json;

impl<C: Clock> Runtime<C> {
    /// Expands `input` when it starts with `/name` naming a command or skill: `Ok(None)` when
    /// it names none (the text then goes to the model as written). Each shell snippet passes
    /// the gate as a `bash` call: a deny rule or a declined approval aborts before any model
    /// request, and so does a failing snippet.
    pub async fn expand_command(
        &self,
        input: &str,
        observer: &dyn RunObserver,
    ) -> Result<Option<String>, RunError> {
        let expansion = match self.agent.borrow().expand_skill_command(input) {
            None => return Ok(None),
            Some(Err(refusal)) => return Err(RunError(refusal)),
            Some(Ok(expansion)) => expansion,
        };
        let qualified = expansion.qualified.clone();
        let origin = format!("command:/{qualified}");
        let mut outputs = Vec::new();
        for command in &expansion.snippets {
            let fail = |why: String| {
                Err(RunError(format!(
                    "/{qualified}: {why}; nothing was sent to the model"
                )))
            };
            let arguments = json!({ "command": command });
            let called = self
                .call_gated_for(
                    "bash",
                    arguments,
                    &origin,
                    Some(&expansion.source),
                    observer,
                )
                .await;
            if let Some(reason) = self.interrupt.reason() {
                // The snippet (or its question) was stopped: the run ends as any interrupted
                // run does, before any model request.
                return Err(RunError(format!("interrupted: {reason} stopped the run")));
            }
            match called {
                Ok(out) if !out.shaped.is_error => outputs.push(out.shaped.text),
                Ok(out) => {
                    let why = out.failure.unwrap_or(out.shaped.text);
                    return fail(if why.contains("timed out") {
                        format!("`{command}` timed out")
                    } else {
                        format!("`{command}` failed: {why}")
                    });
                }
                Err(NotRun::Declined(_)) => {
                    return fail(format!(
                        "`{command}` was not approved (--allow bash runs it)"
                    ))
                }
                Err(NotRun::Refused(DirectCallError::UnknownTool(_))) => {
                    return fail(format!(
                        "this command runs shell commands (`{command}`), which this host cannot run"
                    ))
                }
                Err(NotRun::Refused(error)) => return fail(error.to_string()),
            }
        }
        let text = expansion.fill(&outputs);
        self.agent
            .borrow_mut()
            .record_command(&expansion.typed, &qualified);
        observer.on_event(&UiEvent::CommandExpanded {
            name: expansion.typed,
            qualified,
            source: expansion.source,
            chars: text.chars().count(),
        });
        Ok(Some(text))
    }
}
