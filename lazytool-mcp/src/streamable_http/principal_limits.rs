//! Limits per principal on an HTTP server: [`PrincipalLimits`].

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, PoisonError};

use lru::LruCache;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

use crate::Principal;
use crate::limit::call_refusal::CallRefusal;
use crate::limit::limiter::{LimitPermit, Limiter};
#[cfg(feature = "redis")]
use crate::shared::{SharedStore, shared_admission};
use crate::{CallQuota, LimitScope};

/// How many principals' buckets [`PrincipalLimits`] keeps unless told otherwise.
pub const DEFAULT_MAX_TRACKED_PRINCIPALS: usize = 10_000;

/// The tool-call limits of each principal of an HTTP server
/// ([`McpHttp::principal_limits`](crate::McpHttp::principal_limits)): a default
/// [`CallQuota`] and, for some principals by name, their own. Every `tools/call` of a
/// principal over its limit is refused before it reaches the server: 429 with `Retry-After`
/// and a JSON-RPC error that says which limit ([`LimitExceeded`](crate::LimitExceeded)).
///
/// The buckets of at most [`max_tracked`](Self::max_tracked) principals are kept (10 000 by
/// default), the least recently seen dropped first, whatever the number of principals; one
/// dropped starts again with a full bucket. A principal with calls in flight is never
/// dropped (its next call would count its calls in flight from zero): when every principal
/// kept has calls in flight, the table grows past its bound for as long as that lasts, and
/// comes back to it as those calls end. A principal whose quota limits nothing takes no
/// place.
///
/// With a [`SharedStore`](crate::SharedStore) ([`McpHttp::shared_store`](crate::McpHttp::shared_store)),
/// every limit is decided in the store, for every replica at once; these buckets decide
/// only while the store is down (by its [`FailurePolicy`](crate::FailurePolicy)).
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
    /// Where every replica's calls are counted together, when set.
    #[cfg(feature = "redis")]
    pub(crate) store: Option<SharedStore>,
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
            #[cfg(feature = "redis")]
            store: None,
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

    /// A place for one more call of `principal`, or which of its limits refuses it (or,
    /// with a shared store that is down under [`FailurePolicy::Refuse`](crate::FailurePolicy),
    /// that the store is down).
    pub(crate) async fn admit(&self, principal: &Principal) -> Result<LimitPermit, CallRefusal> {
        let quota = self.quota_of(principal.name());
        if quota.is_unlimited() {
            return Ok(LimitPermit::unlimited());
        }
        let limiter = self.limiter_of(principal, quota);
        self.decide(&limiter, principal)
            .await
            .inspect_err(|refusal| {
                #[cfg_attr(not(feature = "redis"), allow(irrefutable_let_patterns))]
                if let CallRefusal::Limit(exceeded) = refusal {
                    let labels = PrincipalRefusal {
                        principal: principal.name().to_owned(),
                        limit: exceeded.kind().as_str(),
                    };
                    self.refusals.get_or_create(&labels).inc();
                }
            })
    }

    /// Asks the shared store, when there is one, else `limiter`.
    async fn decide(
        &self,
        limiter: &Limiter,
        principal: &Principal,
    ) -> Result<LimitPermit, CallRefusal> {
        let (scope, name) = (LimitScope::Principal, principal.name());
        #[cfg(feature = "redis")]
        if let Some(store) = &self.store {
            let longest_call = store.leased_call();
            return shared_admission::admit(store, limiter, scope, name, longest_call).await;
        }
        limiter.admit(scope, name).map_err(CallRefusal::Limit)
    }

    /// The limiter of `principal`, made with `quota` if it has none yet.
    fn limiter_of(&self, principal: &Principal, quota: CallQuota) -> Arc<Limiter> {
        // Each step leaves the table whole: consistent even after a panic elsewhere.
        let mut tracked = self.tracked.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(limiter) = tracked.get(principal) {
            return Arc::clone(limiter);
        }
        for dropped in make_room(&mut tracked, self.max_tracked) {
            self.forget(dropped.name());
        }
        let limiter = Arc::new(Limiter::new(quota));
        tracked.put(principal.clone(), Arc::clone(&limiter));
        limiter
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

/// Room for one more principal in `tracked`: the least recently seen principals with no call
/// in flight dropped (and returned) until the table is below `bound`. Principals with calls
/// in flight are kept whatever the bound, the table's capacity raised past it meanwhile.
fn make_room(
    tracked: &mut LruCache<Principal, Arc<Limiter>>,
    bound: NonZeroUsize,
) -> Vec<Principal> {
    let mut dropped = Vec::new();
    while tracked.len() >= bound.get() {
        // From the least recently seen; most are idle, so this usually stops at the first.
        let idle = (tracked.iter().rev())
            .find(|(_, limiter)| limiter.is_idle())
            .map(|(principal, _)| principal.clone());
        let Some(idle) = idle else {
            break;
        };
        tracked.pop(&idle);
        dropped.push(idle);
    }
    let capacity = (tracked.len() + 1).max(bound.get());
    if tracked.cap().get() != capacity
        && let Some(capacity) = NonZeroUsize::new(capacity)
    {
        tracked.resize(capacity);
    }
    dropped
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
    use std::num::NonZeroU32;

    use super::*;
    use crate::limit::{LimitKind, Rate};

    #[tokio::test]
    async fn each_principal_has_its_own_bucket_and_the_table_stays_bounded() {
        let one = CallQuota::default().rate(Rate::new(0.001, 1).expect("as set up"));
        let limits =
            PrincipalLimits::new(one).max_tracked(NonZeroUsize::new(3).expect("as set up"));
        let alice = Principal::new("alice");
        limits.admit(&alice).await.expect("as set up");
        let CallRefusal::Limit(refused) = limits.admit(&alice).await.expect_err("refused") else {
            panic!("refused for its rate");
        };
        assert_eq!(
            (refused.scope(), refused.name()),
            (LimitScope::Principal, "alice")
        );
        // Another principal still has its call.
        limits
            .admit(&Principal::new("bob"))
            .await
            .expect("as set up");
        for n in 0..1000 {
            limits
                .admit(&Principal::new(format!("p{n}")))
                .await
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

    #[tokio::test]
    async fn an_exempt_principal_takes_no_place() {
        let limits =
            PrincipalLimits::new(CallQuota::default().rate(Rate::new(1.0, 1).expect("as set up")))
                .principal("admin", CallQuota::default());
        for _ in 0..10 {
            limits
                .admit(&Principal::new("admin"))
                .await
                .expect("as set up");
        }
        assert_eq!(limits.tracked_now(), 0);
        assert!(limits.limits_anyone());
    }

    #[tokio::test]
    async fn a_principal_with_calls_in_flight_is_never_dropped_so_its_cap_holds() {
        let one_at_a_time = CallQuota::default().max_in_flight(NonZeroU32::MIN);
        let bound = NonZeroUsize::new(2).expect("as set up");
        let limits = PrincipalLimits::new(one_at_a_time).max_tracked(bound);
        let alice = Principal::new("alice");
        let in_flight = limits.admit(&alice).await.expect("as set up");
        // Cycling through other identities used to drop alice's limiter, and her next call
        // found a fresh one: two calls in flight under a cap of one.
        for n in 0..100 {
            let call = limits.admit(&Principal::new(format!("p{n}"))).await;
            drop(call.expect("as set up"));
        }
        let Err(CallRefusal::Limit(refused)) = limits.admit(&alice).await else {
            panic!("alice's second call in flight must be refused");
        };
        assert_eq!(refused.kind(), LimitKind::InFlight(1));
        assert_eq!(limits.tracked_now(), 2);
        drop(in_flight);
        limits.admit(&alice).await.expect("her call ended");
    }

    #[tokio::test]
    async fn the_table_grows_past_its_bound_while_every_principal_is_busy_then_comes_back() {
        let one_at_a_time = CallQuota::default().max_in_flight(NonZeroU32::MIN);
        let bound = NonZeroUsize::new(2).expect("as set up");
        let limits = PrincipalLimits::new(one_at_a_time).max_tracked(bound);
        let mut calls = Vec::new();
        for n in 0..5 {
            let principal = Principal::new(format!("busy{n}"));
            calls.push(limits.admit(&principal).await.expect("as set up"));
        }
        assert_eq!(limits.tracked_now(), 5);
        for n in 0..5 {
            let principal = Principal::new(format!("busy{n}"));
            assert!(
                limits.admit(&principal).await.is_err(),
                "busy{n} is at its cap"
            );
        }
        drop(calls);
        limits
            .admit(&Principal::new("after"))
            .await
            .expect("as set up");
        assert_eq!(limits.tracked_now(), 2);
    }
}
