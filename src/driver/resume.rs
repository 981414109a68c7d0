//! Continuing a paused run with the user's decisions, possibly in another process or runtime.

use super::backends::RunObserver;
use super::runtime::{Active, Runtime};
use super::traits::Clock;
use super::turn::RunError;
use crate::agent::Approval;

impl<C: Clock> Runtime<C> {
    /// Continues the paused run of the conversation (its history rebuilt from the transcript)
    /// with `decisions` (call id, answer), to its end, like [`run`](Runtime::run).
    pub async fn resume(
        &self,
        decisions: &[(String, Approval)],
        observer: &dyn RunObserver,
    ) -> Result<String, RunError> {
        let _active = Active::new(&self.interrupt);
        self.refresh_servers(observer).await;
        self.agent
            .borrow_mut()
            .resume_paused(self.clock.now(), decisions)
            .map_err(|e| RunError(e.to_string()))?;
        self.drive(observer).await
    }
}
