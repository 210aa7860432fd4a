//! One principal's or one server's limits as they stand: [`Limiter`].

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::call_quota::CallQuota;
use super::exceeded::{LimitExceeded, LimitKind, LimitScope};
use super::limits_hit::LimitsHit;
use super::monotonic::Monotonic;
use super::rate::Rate;
#[cfg(feature = "redis")]
use crate::shared::lease::Lease;

/// A call's place among the calls in flight, freed when dropped: a place of this replica's
/// limiter, or a lease in the shared store.
#[derive(Debug)]
pub struct LimitPermit {
    _place: Option<OwnedSemaphorePermit>,
    #[cfg(feature = "redis")]
    _lease: Option<Lease>,
}

impl LimitPermit {
    pub fn unlimited() -> Self {
        LimitPermit::local(None)
    }

    fn local(place: Option<OwnedSemaphorePermit>) -> Self {
        LimitPermit {
            _place: place,
            #[cfg(feature = "redis")]
            _lease: None,
        }
    }

    /// A place the shared store gave (`None`: no cap in flight, nothing to give back).
    #[cfg(feature = "redis")]
    pub fn leased(lease: Option<Lease>) -> Self {
        LimitPermit {
            _place: None,
            _lease: lease,
        }
    }
}

/// A [`CallQuota`] applied: its token bucket (governor), its places in flight, and how many
/// calls each refused.
#[derive(Debug)]
pub struct Limiter {
    quota: CallQuota,
    bucket: Option<Bucket>,
    in_flight: Option<Arc<Semaphore>>,
    pub refused: Refused,
}

/// Calls refused, by limit.
#[derive(Debug, Default)]
pub struct Refused {
    pub rate: AtomicU64,
    pub in_flight: AtomicU64,
}

/// How long a client is told to wait when every place in flight is taken: when one frees
/// cannot be known.
pub const IN_FLIGHT_RETRY: Duration = Duration::from_secs(1);

impl Limiter {
    pub fn new(quota: CallQuota) -> Self {
        Limiter {
            quota,
            bucket: quota
                .rate_limit()
                .map(|rate| RateLimiter::direct_with_clock(bucket(&rate), Monotonic)),
            in_flight: quota
                .in_flight_limit()
                .map(|calls| Arc::new(Semaphore::new(calls.get() as usize))),
            refused: Refused::default(),
        }
    }
    pub fn quota(&self) -> CallQuota {
        self.quota
    }

    /// Counts a refusal decided elsewhere (by the shared store) with this limiter's own.
    #[cfg(feature = "redis")]
    pub fn count_refusal(&self, kind: &LimitKind) {
        let refused = match kind {
            LimitKind::Rate(_) => &self.refused.rate,
            LimitKind::InFlight(_) => &self.refused.in_flight,
        };
        refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether none of its places in flight is taken: such a limiter can be forgotten
    /// without letting its calls in flight be counted again from zero.
    pub fn is_idle(&self) -> bool {
        match (&self.in_flight, self.quota.in_flight_limit()) {
            (Some(places), Some(max)) => places.available_permits() >= max.get() as usize,
            _ => true,
        }
    }
    pub fn hit(&self) -> LimitsHit {
        LimitsHit {
            rate: self.refused.rate.load(Ordering::Relaxed),
            in_flight: self.refused.in_flight.load(Ordering::Relaxed),
        }
    }

    /// A place for one more call, or which limit refuses it. The place in flight is taken
    /// first, so that a call refused for it spends no token.
    pub fn admit(&self, scope: LimitScope, name: &str) -> Result<LimitPermit, LimitExceeded> {
        let permit = match (&self.in_flight, self.quota.in_flight_limit()) {
            (Some(places), Some(max)) => match Arc::clone(places).try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    self.refused.in_flight.fetch_add(1, Ordering::Relaxed);
                    let kind = LimitKind::InFlight(max.get());
                    return Err(LimitExceeded::new(scope, name, kind, IN_FLIGHT_RETRY));
                }
            },
            _ => None,
        };
        if let (Some(bucket), Some(rate)) = (&self.bucket, self.quota.rate_limit())
            && let Err(not_until) = bucket.check()
        {
            self.refused.rate.fetch_add(1, Ordering::Relaxed);
            let wait = not_until.wait_time_from(Monotonic.now());
            let kind = LimitKind::Rate(rate);
            return Err(LimitExceeded::new(scope, name, kind, wait));
        }
        Ok(LimitPermit::local(permit))
    }
}

/// A token bucket of governor's, on the limits' own clock.
type Bucket = RateLimiter<NotKeyed, InMemoryState, Monotonic, NoOpMiddleware<Nanos>>;

/// `rate` as governor's quota: a token back every `1 / per_second`, `burst` tokens at most.
fn bucket(rate: &Rate) -> Quota {
    let burst = NonZeroU32::new(rate.burst()).unwrap_or(NonZeroU32::MIN);
    // `Rate::new` keeps the period at one microsecond or more: never zero.
    Quota::with_period(Duration::from_secs_f64(1.0 / rate.per_second()))
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
        .allow_burst(burst)
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;
    use crate::limit::Rate;

    fn name() -> &'static str {
        "alice"
    }

    #[test]
    fn a_bucket_admits_its_burst_then_refuses_until_the_next_token() {
        let rate = Rate::new(0.5, 3).expect("as set up");
        let limiter = Limiter::new(CallQuota::default().rate(rate));
        for _ in 0..3 {
            limiter
                .admit(LimitScope::Principal, name())
                .expect("as set up");
        }
        let refused = limiter
            .admit(LimitScope::Principal, name())
            .expect_err("refused");
        assert_eq!(refused.kind(), LimitKind::Rate(rate));
        // One token every 2 s: the next comes within 2 s, and is told as 1 or 2 s.
        assert!(refused.retry_after() <= Duration::from_secs(2));
        assert!((1..=2).contains(&refused.retry_after_seconds()));
        assert_eq!(limiter.refused.rate.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn places_in_flight_free_when_a_call_ends_and_a_refusal_spends_no_token() {
        let quota = CallQuota::default()
            .rate(Rate::new(0.001, 2).expect("as set up"))
            .max_in_flight(NonZeroU32::new(1).expect("as set up"));
        let limiter = Limiter::new(quota);
        let first = limiter
            .admit(LimitScope::Server, name())
            .expect("as set up");
        let refused = limiter
            .admit(LimitScope::Server, name())
            .expect_err("refused");
        assert_eq!(refused.kind(), LimitKind::InFlight(1));
        assert_eq!(refused.retry_after_seconds(), 1);
        drop(first);
        // The refused call took no token: the second of the burst is still there.
        limiter
            .admit(LimitScope::Server, name())
            .expect("as set up");
        assert_eq!(limiter.refused.in_flight.load(Ordering::Relaxed), 1);
        assert_eq!(limiter.refused.rate.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn no_quota_admits_everything() {
        let limiter = Limiter::new(CallQuota::default());
        for _ in 0..1000 {
            limiter
                .admit(LimitScope::Server, name())
                .expect("as set up");
        }
    }
}
