//! When a failed model request is worth repeating, and how long to wait first.

use std::time::{Duration, SystemTime};

/// Bounded exponential backoff for rate limits (429) and server errors (5xx).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3, so at most 4 requests).
    pub max_retries: u32,
    /// Wait before the first retry; doubled for each further one (default 0.5 s).
    pub base_delay: Duration,
    /// Cap on the computed wait (default 8 s).
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured (default 60 s); a server asking for more fails the
    /// request at once rather than leaving the user staring at a silent terminal.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// What to do after a retryable failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NextStep {
    /// Wait this long, then try again.
    Wait(Duration),
    /// Every retry is used up.
    Exhausted,
    /// The server asked for a wait longer than [`RetryPolicy::max_retry_after`].
    TooLong(Duration),
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The computed wait before retry number `retry` (0 for the first): `base · 2^retry`, capped.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
        self.base_delay
            .checked_mul(factor)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// The step after `retries_done` retries have already failed; the server's `Retry-After`
    /// wins over the computed backoff because the server knows its own limits.
    pub(crate) fn next_step(&self, retries_done: u32, retry_after: Option<Duration>) -> NextStep {
        if retries_done >= self.max_retries {
            return NextStep::Exhausted;
        }
        match retry_after {
            Some(wait) if wait > self.max_retry_after => NextStep::TooLong(wait),
            Some(wait) => NextStep::Wait(wait),
            None => NextStep::Wait(self.backoff(retries_done)),
        }
    }
}

/// Whether an HTTP status is worth retrying: 408, 429, and server errors other than
/// "not implemented" (501) and "version not supported" (505), which will not change.
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 429) || (500..=599).contains(&status) && !matches!(status, 501 | 505)
}

/// The wait a server asks for: `retry-after-ms` (milliseconds, sent by some gateways) first,
/// then `Retry-After` as seconds or as an HTTP date (relative to `now`). Unreadable values are
/// ignored, so the computed backoff applies.
pub fn parse_retry_after(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now: SystemTime,
) -> Option<Duration> {
    let from_ms = retry_after_ms
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok());
    if from_ms.is_some() {
        return from_ms;
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let at = httpdate::parse_http_date(value).ok()?;
    // A date in the past means "now".
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy::default();
        let waits: Vec<u128> = (0..7).map(|n| policy.backoff(n).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
        assert_eq!(policy.backoff(200), policy.max_delay);
    }

    #[test]
    fn next_step_honours_retry_after_and_the_bounds() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.next_step(1, None),
            NextStep::Wait(Duration::from_secs(1))
        );
        assert_eq!(
            policy.next_step(0, Some(Duration::from_secs(7))),
            NextStep::Wait(Duration::from_secs(7))
        );
        assert_eq!(
            policy.next_step(0, Some(Duration::from_secs(61))),
            NextStep::TooLong(Duration::from_secs(61))
        );
        assert_eq!(policy.next_step(3, None), NextStep::Exhausted);
        assert_eq!(RetryPolicy::none().next_step(0, None), NextStep::Exhausted);
    }

    #[test]
    fn retryable_statuses() {
        let retryable: Vec<u16> = [400, 401, 403, 404, 408, 409, 429, 500, 501, 502, 503, 505]
            .into_iter()
            .filter(|s| is_retryable(*s))
            .collect();
        assert_eq!(retryable, [408, 429, 500, 502, 503]);
    }

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let parse = |ms, s| parse_retry_after(ms, s, now);
        assert_eq!(parse(None, Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(
            parse(None, Some(" 1.5 ")),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse(Some("250"), Some("9")),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            parse(None, Some("Wed, 21 Oct 2015 07:28:30 GMT")),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse(None, Some("Wed, 21 Oct 2015 07:00:00 GMT")),
            Some(Duration::ZERO)
        );
        assert_eq!(parse(None, Some("soon")), None);
        assert_eq!(parse(Some("-5"), None), None);
        assert_eq!(parse(None, None), None);
    }
}
