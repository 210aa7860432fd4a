//! Limits per principal on an HTTP server: [`PrincipalLimits`].

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, PoisonError};

use lru::LruCache;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

use super::call_quota::CallQuota;
use super::exceeded::{LimitExceeded, LimitScope};
use super::limiter::{LimitPermit, Limiter};
use crate::principal::Principal;

/// How many principals' buckets [`PrincipalLimits`] keeps unless told otherwise.
pub const DEFAULT_MAX_TRACKED_PRINCIPALS: usize = 10_000;

/// The tool-call limits of each principal of an HTTP server
/// ([`McpHttp::principal_limits`](crate::McpHttp::principal_limits)): a default
/// [`CallQuota`] and, for some principals by name, their own. Every `tools/call` of a
/// principal over its limit is refused before it reaches the server: 429 with `Retry-After`
/// and a JSON-RPC error that says which limit ([`LimitExceeded`]).
///
/// The buckets of at most [`max_tracked`](Self::max_tracked) principals are kept (10 000 by
/// default), the least recently seen dropped first, whatever the number of principals; one
/// dropped starts again with a full bucket. A principal whose quota limits nothing takes no
/// place.
///
/// ```
/// use std::num::NonZeroU32;
/// use lazytool_mcp::{CallQuota, McpHttp, McpServer, PrincipalLimits, Rate};
///
/// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
/// let everyone = CallQuota::default().rate(Rate::new(5.0, 10).unwrap());
/// let ci = CallQuota::default()
///     .rate(Rate::new(1.0, 2).unwrap())
///     .max_in_flight(NonZeroU32::new(1).unwrap());
/// let limits = PrincipalLimits::new(everyone).principal("ci-bot", ci);
/// assert_eq!(limits.quota_of("ci-bot"), ci);
/// assert_eq!(limits.quota_of("alice"), everyone);
/// let http = McpServer::new(registry).http().principal_limits(limits);
/// ```
#[derive(Clone)]
pub struct PrincipalLimits {
    default: CallQuota,
    named: HashMap<Arc<str>, CallQuota>,
    max_tracked: NonZeroUsize,
    tracked: Arc<Mutex<LruCache<Principal, Arc<Limiter>>>>,
    pub(crate) refusals: Family<PrincipalRefusal, Counter>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct PrincipalRefusal {
    principal: String,
    limit: &'static str,
}

impl PrincipalLimits {
    /// Every principal limited by `default`, unless [`principal`](Self::principal) gives its
    /// own.
    ///
    /// ```
    /// use lazytool_mcp::{CallQuota, PrincipalLimits};
    ///
    /// let limits = PrincipalLimits::new(CallQuota::default());
    /// assert!(limits.quota_of("anyone").is_unlimited());
    /// ```
    pub fn new(default: CallQuota) -> Self {
        let max_tracked =
            NonZeroUsize::new(DEFAULT_MAX_TRACKED_PRINCIPALS).unwrap_or(NonZeroUsize::MIN);
        PrincipalLimits {
            default,
            named: HashMap::new(),
            max_tracked,
            tracked: Arc::new(Mutex::new(LruCache::new(max_tracked))),
            refusals: Family::default(),
        }
    }

    /// The principal `name` limited by `quota` instead of the default
    /// ([`CallQuota::default`] to exempt it).
    ///
    /// ```
    /// use lazytool_mcp::{CallQuota, PrincipalLimits, Rate};
    ///
    /// let limits = PrincipalLimits::new(CallQuota::default().rate(Rate::new(1.0, 1).unwrap()))
    ///     .principal("admin", CallQuota::default());
    /// assert!(limits.quota_of("admin").is_unlimited());
    /// ```
    pub fn principal(mut self, name: impl Into<Arc<str>>, quota: CallQuota) -> Self {
        self.named.insert(name.into(), quota);
        self
    }

    /// Keeps the buckets of at most `principals` principals, the least recently seen
    /// dropped first.
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use lazytool_mcp::{CallQuota, PrincipalLimits};
    ///
    /// let limits = PrincipalLimits::new(CallQuota::default()).max_tracked(NonZeroUsize::new(100).unwrap());
    /// assert_eq!(limits.tracked_capacity(), 100);
    /// ```
    pub fn max_tracked(mut self, principals: NonZeroUsize) -> Self {
        self.max_tracked = principals;
        self.tracked = Arc::new(Mutex::new(LruCache::new(principals)));
        self
    }

    /// How many principals' buckets are kept at most.
    ///
    /// ```
    /// use lazytool_mcp::{CallQuota, DEFAULT_MAX_TRACKED_PRINCIPALS, PrincipalLimits};
    ///
    /// assert_eq!(PrincipalLimits::new(CallQuota::default()).tracked_capacity(), DEFAULT_MAX_TRACKED_PRINCIPALS);
    /// ```
    pub fn tracked_capacity(&self) -> usize {
        self.max_tracked.get()
    }

    /// The quota of the principal `name`.
    ///
    /// ```
    /// use lazytool_mcp::{CallQuota, PrincipalLimits};
    ///
    /// assert_eq!(PrincipalLimits::new(CallQuota::default()).quota_of("bob"), CallQuota::default());
    /// ```
    pub fn quota_of(&self, name: &str) -> CallQuota {
        self.named.get(name).copied().unwrap_or(self.default)
    }

    /// Whether some principal is limited.
    pub(crate) fn limits_anyone(&self) -> bool {
        !self.default.is_unlimited() || self.named.values().any(|quota| !quota.is_unlimited())
    }

    /// A place for one more call of `principal`, or which of its limits refuses it.
    pub(crate) fn admit(&self, principal: &Principal) -> Result<LimitPermit, LimitExceeded> {
        let quota = self.quota_of(principal.name());
        if quota.is_unlimited() {
            return Ok(LimitPermit::unlimited());
        }
        let limiter = {
            // Each step leaves the table whole: consistent even after a panic elsewhere.
            let mut tracked = self.tracked.lock().unwrap_or_else(PoisonError::into_inner);
            match tracked.get(principal) {
                Some(limiter) => Arc::clone(limiter),
                None => {
                    let limiter = Arc::new(Limiter::new(quota));
                    if let Some((evicted, _)) =
                        tracked.push(principal.clone(), Arc::clone(&limiter))
                    {
                        self.forget(evicted.name());
                    }
                    limiter
                }
            }
        };
        limiter
            .admit(LimitScope::Principal, principal.name())
            .inspect_err(|exceeded| {
                let labels = PrincipalRefusal {
                    principal: principal.name().to_owned(),
                    limit: exceeded.kind().as_str(),
                };
                self.refusals.get_or_create(&labels).inc();
            })
    }

    /// Drops a principal's refusal counts with its bucket: the metric's series stay as
    /// bounded as the table.
    fn forget(&self, name: &str) {
        for limit in ["rate", "in_flight"] {
            self.refusals.remove(&PrincipalRefusal {
                principal: name.to_owned(),
                limit,
            });
        }
    }

    /// How many principals' buckets are kept now.
    #[cfg(test)]
    fn tracked_now(&self) -> usize {
        self.tracked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl std::fmt::Debug for PrincipalLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrincipalLimits")
            .field("default", &self.default)
            .field("named", &self.named)
            .field("max_tracked", &self.max_tracked)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit::Rate;

    #[test]
    fn each_principal_has_its_own_bucket_and_the_table_stays_bounded() {
        let one = CallQuota::default().rate(Rate::new(0.001, 1).expect("as set up"));
        let limits =
            PrincipalLimits::new(one).max_tracked(NonZeroUsize::new(3).expect("as set up"));
        let alice = Principal::new("alice");
        limits.admit(&alice).expect("as set up");
        let refused = limits.admit(&alice).expect_err("refused");
        assert_eq!(
            (refused.scope(), refused.name()),
            (LimitScope::Principal, "alice")
        );
        // Another principal still has its call.
        limits.admit(&Principal::new("bob")).expect("as set up");
        for n in 0..1000 {
            limits
                .admit(&Principal::new(format!("p{n}")))
                .expect("as set up");
        }
        assert_eq!(limits.tracked_now(), 3);
        // Alice's series went with her bucket.
        let labels = PrincipalRefusal {
            principal: "alice".to_owned(),
            limit: "rate",
        };
        assert!(!limits.refusals.remove(&labels));
    }

    #[test]
    fn an_exempt_principal_takes_no_place() {
        let limits =
            PrincipalLimits::new(CallQuota::default().rate(Rate::new(1.0, 1).expect("as set up")))
                .principal("admin", CallQuota::default());
        for _ in 0..10 {
            limits.admit(&Principal::new("admin")).expect("as set up");
        }
        assert_eq!(limits.tracked_now(), 0);
        assert!(limits.limits_anyone());
    }
}
