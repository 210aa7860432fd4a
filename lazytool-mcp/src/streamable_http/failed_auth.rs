//! A limit on failed authentication per client address: [`FailedAuthentications`]. Each
//! refused token costs a signature check and an audit line; an address takes a place in its
//! bucket before its token is checked and gets it back when the token is accepted, so that
//! no flood, however concurrent, has more tokens checked than its bucket holds. Past the
//! limit, an address is answered 429 before its token is looked at, and its refusals are
//! audited one in a while.
//!
//! The bucket is a few lines of its own rather than governor's: governor's cell-rate
//! algorithm cannot give a place back.

use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use lru::LruCache;
use tokio::time::Instant;

use crate::limit::Rate;

/// The default of [`McpHttp::failed_authentication_limit`](crate::McpHttp::failed_authentication_limit): 60 failures a minute per client
/// address, all at once if they come so, then one a second.
pub(crate) fn default_rate() -> Option<Rate> {
    Rate::new(1.0, 60).ok()
}

/// The client addresses whose failures are tracked: the least recently seen dropped first.
const TRACKED_ADDRESSES: usize = 10_000;

/// How often a blocked address's refusals are written to the audit trail.
const AUDIT_EVERY: Duration = Duration::from_secs(10);

/// Failures of authentication, per client address.
pub(crate) struct FailedAuthentications {
    rate: Option<Rate>,
    table: Mutex<LruCache<IpAddr, Failures>>,
}

struct Failures {
    /// Places left for failures (and checks under way), refilled at the rate up to the burst.
    places: f64,
    refilled_at: Instant,
    /// Refusals since the last audited one.
    unaudited: u64,
    audited_at: Option<Instant>,
}

/// A place taken for one check of a token: given back unless [`failed`](Attempt::failed).
pub(crate) struct Attempt<'a> {
    limits: &'a FailedAuthentications,
    address: IpAddr,
    failed: bool,
}

/// An address over its limit: how long until it may try again, and whether this refusal is
/// the one in a while that the audit trail records (with how many were not).
pub(crate) struct Blocked {
    pub(crate) retry_after: Duration,
    pub(crate) audit: Option<u64>,
}

impl FailedAuthentications {
    pub(crate) fn new(rate: Option<Rate>) -> Self {
        let tracked = NonZeroUsize::new(TRACKED_ADDRESSES).unwrap_or(NonZeroUsize::MIN);
        FailedAuthentications {
            rate,
            table: Mutex::new(LruCache::new(tracked)),
        }
    }

    /// A place for one check of a token from `address`, or how long it must wait.
    pub(crate) fn attempt(&self, address: IpAddr) -> Result<Option<Attempt<'_>>, Blocked> {
        let Some(rate) = self.rate else {
            return Ok(None);
        };
        let now = Instant::now();
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let failures = table.get_or_insert_mut(address, || Failures {
            places: f64::from(rate.burst()),
            refilled_at: now,
            unaudited: 0,
            audited_at: None,
        });
        let elapsed = now.duration_since(failures.refilled_at).as_secs_f64();
        failures.places =
            (failures.places + elapsed * rate.per_second()).min(f64::from(rate.burst()));
        failures.refilled_at = now;
        if failures.places >= 1.0 {
            failures.places -= 1.0;
            return Ok(Some(Attempt {
                limits: self,
                address,
                failed: false,
            }));
        }
        failures.unaudited += 1;
        let audit = match failures.audited_at {
            Some(at) if now.duration_since(at) < AUDIT_EVERY => None,
            _ => {
                failures.audited_at = Some(now);
                Some(std::mem::take(&mut failures.unaudited))
            }
        };
        let wait = (1.0 - failures.places) / rate.per_second();
        Err(Blocked {
            retry_after: Duration::try_from_secs_f64(wait).unwrap_or(Duration::MAX),
            audit,
        })
    }

    fn give_back(&self, address: IpAddr) {
        let Some(rate) = self.rate else {
            return;
        };
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(failures) = table.peek_mut(&address) {
            failures.places = (failures.places + 1.0).min(f64::from(rate.burst()));
        }
    }
}

impl Attempt<'_> {
    /// The token was refused: its place stays taken.
    pub(crate) fn failed(mut self) {
        self.failed = true;
    }
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        if !self.failed {
            self.limits.give_back(self.address);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_address_past_its_failures_is_blocked_and_audited_one_in_a_while() {
        let limit = FailedAuthentications::new(Rate::new(0.001, 3).ok());
        let (flooding, other): (IpAddr, IpAddr) = (
            "203.0.113.9".parse().expect("an address"),
            "203.0.113.10".parse().expect("an address"),
        );
        // Accepted tokens give their places back.
        for _ in 0..10 {
            assert!(matches!(limit.attempt(flooding), Ok(Some(_))));
        }
        // Checks under way hold their places: a fourth at once is refused.
        let under_way: Vec<_> = (0..3)
            .map(|_| limit.attempt(flooding).ok().flatten().expect("a place"))
            .collect();
        let first = limit.attempt(flooding).err().expect("blocked");
        assert!(first.retry_after > Duration::from_secs(60));
        assert_eq!(first.audit, Some(1));
        under_way.into_iter().for_each(Attempt::failed);
        let second = limit.attempt(flooding).err().expect("still blocked");
        assert_eq!(second.audit, None, "sampled");
        assert!(
            matches!(limit.attempt(other), Ok(Some(_))),
            "one address only"
        );
        let unlimited = FailedAuthentications::new(None);
        for _ in 0..100 {
            assert!(matches!(unlimited.attempt(flooding), Ok(None)));
        }
    }
}
