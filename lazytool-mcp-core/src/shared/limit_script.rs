//! The limits' Lua script (`limit.lua`, see the module's doc) and what it answers:
//! [`Verdict`].

use std::num::NonZeroU32;
use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;

use super::shared_store::SharedStore;
use crate::limit::StoreDown;
use crate::limit::{CallQuota, LimitScope};

/// Its SHA-1 computed once: `EVALSHA` it, `SCRIPT LOAD` it when Redis does not have it
/// (after a restart, say).
static LIMIT_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("limit.lua")));

/// The two keys of one principal's or one server's limits.
#[derive(Clone, Debug)]
pub struct LimitKeys {
    pub bucket: String,
    pub leases: String,
}

/// What the script decided of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A token taken and, with a cap in flight, the call's lease added.
    Admitted,
    /// The bucket was empty; the next token comes after `wait`.
    RateLimited { wait: Duration },
    /// Every place in flight was taken.
    InFlightFull,
}

impl SharedStore {
    /// The keys of the limits of `name` (a principal or a server, by `scope`).
    pub fn limit_keys(&self, scope: LimitScope, name: &str) -> LimitKeys {
        LimitKeys {
            bucket: self.key(&["bucket", scope.as_str(), name]),
            leases: self.key(&["leases", scope.as_str(), name]),
        }
    }

    /// One round trip: the call `call_id` checked against `quota` and, if admitted, counted
    /// (a token, and a place in flight leased for `lease`).
    pub async fn check_limit(
        &self,
        keys: &LimitKeys,
        quota: CallQuota,
        call_id: &str,
        lease: Duration,
    ) -> Result<Verdict, StoreDown> {
        let (per_second, burst) = quota
            .rate_limit()
            .map_or((0.0, 0), |rate| (rate.per_second(), rate.burst()));
        let max_in_flight = quota.in_flight_limit().map_or(0, NonZeroU32::get);
        let lease = u64::try_from(lease.as_micros()).unwrap_or(u64::MAX / 2);
        let mut invocation = LIMIT_SCRIPT.key(&keys.bucket);
        invocation
            .key(&keys.leases)
            .arg(per_second)
            .arg(burst)
            .arg(max_in_flight)
            .arg(call_id)
            .arg(lease);
        let (outcome, wait): (i64, i64) = self
            .run(|mut connection| async move { invocation.invoke_async(&mut connection).await })
            .await?;
        Ok(match outcome {
            0 => Verdict::Admitted,
            1 => Verdict::RateLimited {
                wait: Duration::from_micros(u64::try_from(wait).unwrap_or(0)),
            },
            _ => Verdict::InFlightFull,
        })
    }
}
