//! Client-side request pacing per role, so a batch stays under a provider's
//! requests-per-minute limit instead of hitting 429s and retrying.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::endpoint::Role;
use super::per_role::PerRole;

/// Spaces requests at least `60s / rpm` apart, shared by every caller holding it.
///
/// An interval limiter (a token bucket of depth one): no burst, so a provider
/// that counts requests over any sliding minute never sees more than `rpm`.
#[derive(Debug)]
pub struct RateLimiter {
    interval: Duration,
    /// The earliest time the next request may go out.
    next: Mutex<Option<Instant>>,
}

impl RateLimiter {
    /// `None` for 0 (no limit).
    pub fn per_minute(rpm: u32) -> Option<RateLimiter> {
        if rpm == 0 {
            return None;
        }
        Some(RateLimiter { interval: Duration::from_secs(60) / rpm, next: Mutex::new(None) })
    }

    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Waits for this caller's slot. Slots are handed out in call order, so
    /// concurrent callers queue up rather than all waking at once.
    pub async fn acquire(&self) {
        let now = Instant::now();
        let slot = {
            // A poisoned lock only means another caller panicked mid-update; the value is still usable.
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + self.interval);
            slot
        };
        if slot > now {
            tokio::time::sleep_until(slot).await;
        }
    }
}

/// One optional limiter per role.
#[derive(Debug, Default, Clone)]
pub struct RateLimits(PerRole<Option<Arc<RateLimiter>>>);

impl RateLimits {
    /// From requests-per-minute per role (`None` or 0: unlimited).
    pub fn from_rpm(attacker: Option<u32>, assistant: Option<u32>, judge: Option<u32>) -> RateLimits {
        let rpm = PerRole::new(attacker, assistant, judge);
        RateLimits(rpm.map(|rpm| rpm.and_then(RateLimiter::per_minute).map(Arc::new)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|(_, limiter)| limiter.is_none())
    }

    pub fn for_role(&self, role: Role) -> Option<&RateLimiter> {
        self.0[role].as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn spaces_requests_by_the_interval() {
        // 6000/min: one request per 10 ms, so the 3rd of 3 back-to-back calls goes out 20 ms in at the earliest.
        let limiter = RateLimiter::per_minute(6000).unwrap();
        assert_eq!(limiter.interval(), Duration::from_millis(10));
        let start = Instant::now();
        for _ in 0..3 {
            limiter.acquire().await;
        }
        assert!(start.elapsed() >= Duration::from_millis(20), "{:?}", start.elapsed());
    }

    #[test]
    fn zero_means_unlimited() {
        assert!(RateLimiter::per_minute(0).is_none());
        assert!(RateLimits::from_rpm(None, Some(0), None).is_empty());
    }
}
