//! User-typed `/name args`: the command or skill rendered into the run's user message, its
//! shell snippets run first as gated `bash` calls (origin `command:/name`).

use super::backends::RunObserver;
use super::runtime::{RunError, Runtime};
use super::traits::Clock;
use crate::agent::{DirectCallError, Gated, ToolFailure, UiEvent};
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
        let (rendered, name, qualified, source) = {
            let agent = self.agent.borrow();
            let Some(invocation) = agent.skills().resolve(input) else {
                return Ok(None);
            };
            if let Some(refusal) = invocation.refusal() {
                return Err(RunError(refusal));
            }
            let typed = input.trim_start()[1..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
            let rendered = agent.skills().render(&invocation, agent.skill_context());
            let skill = invocation.skill;
            (
                rendered,
                typed,
                skill.qualified.clone(),
                skill.scope.label(),
            )
        };
        let origin = format!("command:/{qualified}");
        let mut outputs = Vec::new();
        for snippet in &rendered.snippets {
            let command = &snippet.command;
            let fail = |why: String| {
                Err(RunError(format!(
                    "/{qualified}: {why}; nothing was sent to the model"
                )))
            };
            let now = self.clock.now();
            let arguments = json!({ "command": command });
            let begun = self
                .agent
                .borrow_mut()
                .begin_gated_call(now, "bash", arguments, &origin);
            self.drain_audit(observer);
            let invocation = match begun {
                Ok(Gated::Run(invocation)) => invocation,
                Ok(Gated::Ask(request)) => {
                    let answer = observer.approve(&request).await;
                    let now = self.clock.now();
                    let answered =
                        self.agent
                            .borrow_mut()
                            .answer_gated_call(now, &request.call_id, answer);
                    self.drain_audit(observer);
                    match answered {
                        Ok(Some(invocation)) => invocation,
                        _ => {
                            return fail(format!(
                                "`{command}` was not approved (--allow bash runs it)"
                            ))
                        }
                    }
                }
                Err(DirectCallError::UnknownTool(_)) => {
                    return fail(format!(
                        "this command runs shell commands (`{command}`), which this host cannot run"
                    ))
                }
                Err(error) => return fail(error.to_string()),
            };
            let result = self.invoke(&invocation).await;
            let now = self.clock.now();
            let finished = self.agent.borrow_mut().finish_direct_call(
                now,
                &invocation.call_id,
                result.clone(),
            );
            self.drain_audit(observer);
            match (result, finished) {
                (Ok(_), Ok(shaped)) if !shaped.is_error => outputs.push(shaped.text),
                (Err(ToolFailure::Timeout), _) => return fail(format!("`{command}` timed out")),
                (_, Ok(shaped)) => return fail(format!("`{command}` failed: {}", shaped.text)),
                (_, Err(error)) => return fail(error.to_string()),
            }
        }
        let text = rendered.fill(&outputs);
        observer.on_event(&UiEvent::CommandExpanded {
            name,
            qualified,
            source,
            chars: text.chars().count(),
        });
        Ok(Some(text))
    }
}
