//! Time as plain data: the core never reads a clock, hosts pass `now` in.

use std::ops::{Add, Sub};
use std::time::Duration;

/// A point in time, in milliseconds since an origin chosen by the host.
///
/// The origin is irrelevant to the core: only differences and ordering matter, so a native host
/// can count from process start and a JS host can use `performance.now()`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Instant {
    /// The instant `ms` milliseconds after the host's origin.
    pub const fn from_millis(ms: u64) -> Self {
        Instant(ms)
    }

    /// Milliseconds since the host's origin.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Time elapsed from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

/// `d` in whole milliseconds, saturating at `u64::MAX`. Messages print this rather than
/// `Duration::as_millis()` (a `u128`): 128-bit formatting is code the wasm module need not carry.
pub fn whole_millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant(self.0.saturating_add(whole_millis(rhs)))
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_since(rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates_instead_of_overflowing() {
        let t = Instant::from_millis(u64::MAX - 1);
        assert_eq!((t + Duration::from_secs(10)).as_millis(), u64::MAX);
        assert_eq!(
            Instant::from_millis(5) - Instant::from_millis(9),
            Duration::ZERO
        );
        assert_eq!(
            Instant::from_millis(9) - Instant::from_millis(5),
            Duration::from_millis(4)
        );
    }
}
