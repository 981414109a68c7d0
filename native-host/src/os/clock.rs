//! The core's clock on tokio: milliseconds since the host started.

use agentwire::driver::Clock;
use agentwire::Instant;
use std::sync::OnceLock;

fn origin() -> tokio::time::Instant {
    static ORIGIN: OnceLock<tokio::time::Instant> = OnceLock::new();
    *ORIGIN.get_or_init(tokio::time::Instant::now)
}

/// The host clock: `now` counts from the first use; sleeps use tokio's timer.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioClock;

impl TokioClock {
    /// The current time as the core sees it.
    pub fn instant() -> Instant {
        let elapsed = origin().elapsed().as_millis();
        Instant::from_millis(u64::try_from(elapsed).unwrap_or(u64::MAX))
    }
}

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        Self::instant()
    }

    async fn sleep_until(&self, deadline: Instant) {
        let at = origin() + std::time::Duration::from_millis(deadline.as_millis());
        tokio::time::sleep_until(at).await;
    }
}
