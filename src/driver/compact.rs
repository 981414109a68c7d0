//! `/compact [focus]` and `agent.compact(focus)`: one summary request through the runtime's
//! model, the conversation replaced by the summary and the latest request.

use super::backends::RunObserver;
use super::interrupt::unless_interrupted;
use super::runtime::{Active, Runtime};
use super::traits::Clock;
use super::turn::RunError;

impl<C: Clock> Runtime<C> {
    /// Compacts the conversation now with a summary the model writes (`focus` steers it).
    /// Events (`compacted`, or `error`) go to `observer`; fails while a run is active, when
    /// there is nothing to compact, or when the summary request fails.
    pub async fn compact(
        &self,
        focus: Option<&str>,
        observer: &dyn RunObserver,
    ) -> Result<(), RunError> {
        let _active = Active::new(&self.interrupt);
        let summaries = self.agent.borrow().summary_compactions();
        self.agent
            .borrow_mut()
            .compact(self.clock.now(), focus)
            .map_err(|e| RunError(e.to_string()))?;
        // Only once the agent accepted: a refused `/compact` fires no hook.
        let _ =
            unless_interrupted(&self.interrupt, self.pre_compact("manual", focus, observer)).await;
        // The run loop carries the summary request out (the agent asks for nothing else while
        // it summarises), so the module has one copy of it.
        let mut outcome = None;
        self.drive_agent(&self.agent, None, observer, &mut outcome)
            .await;
        self.drain_outputs(observer, &mut outcome);
        // No run follows, so `SessionStart` `compact`'s context joins the next prompt.
        self.after_compaction(summaries, observer).await;
        match outcome {
            Some(Err(error)) => Err(error),
            _ => Ok(()),
        }
    }
}
