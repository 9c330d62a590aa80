//! When to try again and how long to wait: exponential backoff with jitter, `Retry-After` honoured.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use super::endpoint::Role;

/// Backoff settings, shared by all endpoints of a client (the retry *count* is per endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Delay before the first retry; doubles with each further retry.
    pub base: Duration,
    /// Longest computed backoff.
    pub cap: Duration,
    /// Longest wait a server's `Retry-After` may impose.
    pub retry_after_cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            retry_after_cap: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Delay before retry number `retry` (1-based). A server hint wins (capped);
    /// otherwise "equal jitter": half the exponential step fixed, half random, so
    /// several episodes hitting one rate limit do not retry in lockstep.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(hint) = retry_after {
            return hint.min(self.retry_after_cap);
        }
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        let step = self.base.saturating_mul(factor).min(self.cap);
        let half = step / 2;
        half + half.mul_f64(random_unit())
    }
}

/// A uniform number in [0, 1) from the std hasher's per-instance random keys (no `rand` needed).
fn random_unit() -> f64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(0x9e37_79b9_7f4a_7c15);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// `Retry-After` in seconds (integer or decimal), or OpenAI's `retry-after-ms`.
/// HTTP-date forms are ignored (the caller falls back to backoff).
pub(crate) fn parse_retry_after(seconds: Option<&str>, millis: Option<&str>) -> Option<Duration> {
    let from_ms = millis
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|ms| Duration::from_secs_f64((ms / 1000.0).min(86_400.0)));
    from_ms.or_else(|| {
        seconds
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(86_400.0)))
    })
}

/// Told to the caller before each retry, e.g. to show "retrying in 2.0s (attempt 2/4)".
#[derive(Debug, Clone, PartialEq)]
pub struct RetryInfo {
    pub role: Role,
    pub model: String,
    pub base_url: String,
    /// The attempt about to be made (2 for the first retry).
    pub next_attempt: u32,
    /// `max_retries + 1`.
    pub max_attempts: u32,
    /// How long we wait before it.
    pub delay: Duration,
    /// Why the previous attempt failed (key redacted).
    pub reason: String,
}

impl fmt::Display for RetryInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} model `{}`: {}; retrying in {:.1}s (attempt {}/{})",
            self.role,
            self.model,
            self.reason,
            self.delay.as_secs_f64(),
            self.next_attempt,
            self.max_attempts
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let p = RetryPolicy {
            base: Duration::from_millis(100),
            cap: Duration::from_millis(350),
            retry_after_cap: Duration::from_secs(5),
        };
        for _ in 0..50 {
            let d1 = p.delay(1, None);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            let d2 = p.delay(2, None);
            assert!(d2 >= Duration::from_millis(100) && d2 <= Duration::from_millis(200));
            let d9 = p.delay(40, None);
            assert!(d9 >= Duration::from_millis(175) && d9 <= Duration::from_millis(350));
        }
        let distinct: std::collections::HashSet<_> = (0..20).map(|_| p.delay(3, None)).collect();
        assert!(distinct.len() > 1, "jitter varies the delay");
        assert_eq!(p.delay(1, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(p.delay(1, Some(Duration::from_secs(600))), Duration::from_secs(5));
    }

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after(Some("3"), None), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(Some(" 1.5 "), None), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after(Some("3"), Some("250")), Some(Duration::from_millis(250)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT"), None), None);
        assert_eq!(parse_retry_after(Some("-1"), None), None);
        assert_eq!(parse_retry_after(Some("NaN"), None), None);
    }

    #[test]
    fn retry_info_reads_well() {
        let info = RetryInfo {
            role: Role::Assistant,
            model: "m".into(),
            base_url: "http://h".into(),
            next_attempt: 2,
            max_attempts: 4,
            delay: Duration::from_millis(1500),
            reason: "HTTP 429: slow down".into(),
        };
        assert_eq!(
            info.to_string(),
            "assistant model `m`: HTTP 429: slow down; retrying in 1.5s (attempt 2/4)"
        );
    }
}
