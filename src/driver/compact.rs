//! `/compact [focus]` and `agent.compact(focus)`: one summary request through the runtime's
//! model, the conversation replaced by the summary and the latest request.

use super::backends::RunObserver;
use super::interrupt::unless_interrupted;
use super::runtime::{Active, Runtime};
use super::traits::Clock;
use super::turn::RunError;
use crate::agent::Action;
use std::rc::Rc;

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
        let mut outcome = None;
        let mut failed = None;
        loop {
            self.drain_outputs(observer, &mut outcome);
            if let Some(Err(error)) = outcome.take() {
                failed = Some(error);
            }
            let action = self.agent.borrow_mut().poll_action();
            match action {
                Some(Action::CallModel(request)) => {
                    let model = Rc::clone(&self.model.borrow());
                    let on_stream = |_: super::backends::ModelStream<'_>| {};
                    let work = model.complete(request, &on_stream);
                    let now_result = unless_interrupted(&self.interrupt, work).await;
                    let now = self.clock.now();
                    let mut agent = self.agent.borrow_mut();
                    let _ = match now_result {
                        Ok(response) => agent.handle_model_response(now, response),
                        Err(reason) => agent.interrupt_run(now, &reason),
                    };
                }
                Some(_) => {
                    // A compaction asks only the model; anything else ends it.
                    let now = self.clock.now();
                    let _ = self.agent.borrow_mut().cancel_run(now);
                }
                None if self.agent.borrow().is_running() => {
                    let now = self.clock.now();
                    let _ = self.agent.borrow_mut().cancel_run(now);
                }
                None => break,
            }
        }
        self.drain_outputs(observer, &mut outcome);
        if let Some(Err(error)) = outcome {
            failed = Some(error);
        }
        self.after_compaction(summaries, observer).await;
        match failed {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
