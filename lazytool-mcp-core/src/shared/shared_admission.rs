//! A call admitted under a principal's or a server's limits by the shared store, or by the
//! replica's own limiter while the store is down: [`admit`].

use std::time::Duration;

use super::failure_policy::FailurePolicy;
use super::lease::Lease;
use super::limit_script::Verdict;
use super::shared_store::{LEASE_MARGIN, SharedStore};
use crate::limit::call_refusal::CallRefusal;
use crate::limit::limiter::{IN_FLIGHT_RETRY, LimitPermit, Limiter};
use crate::limit::{LimitExceeded, LimitKind, LimitScope};

/// A place for one more call of `name` under `local`'s quota, decided by `store` for every
/// replica at once; the call's place in flight (if limited) is leased for `longest_call`
/// plus [`LEASE_MARGIN`]. While the store is down, its [`FailurePolicy`] decides: `local`
/// decides alone, or the call is refused.
pub async fn admit(
    store: &SharedStore,
    local: &Limiter,
    scope: LimitScope,
    name: &str,
    longest_call: Duration,
) -> Result<LimitPermit, CallRefusal> {
    let quota = local.quota();
    let keys = store.limit_keys(scope, name);
    let call_id = store.call_id();
    let lease = longest_call.saturating_add(LEASE_MARGIN);
    match store.check_limit(&keys, quota, &call_id, lease).await {
        Ok(Verdict::Admitted) => {
            let lease = (quota.in_flight_limit().is_some())
                .then(|| Lease::new(store.clone(), keys.leases, call_id, lease));
            Ok(LimitPermit::leased(lease))
        }
        // The script refuses for a limit only when the quota has it.
        Ok(Verdict::RateLimited { wait }) => {
            let kind = quota.rate_limit().map(LimitKind::Rate);
            Err(local_refusal(local, scope, name, kind, wait))
        }
        Ok(Verdict::InFlightFull) => {
            let kind = quota
                .in_flight_limit()
                .map(|max| LimitKind::InFlight(max.get()));
            Err(local_refusal(local, scope, name, kind, IN_FLIGHT_RETRY))
        }
        Err(down) => match store.failure_policy() {
            FailurePolicy::Local => local.admit(scope, name).map_err(CallRefusal::Limit),
            FailurePolicy::Refuse => Err(CallRefusal::StoreDown(down)),
        },
    }
}

/// The refusal, counted with the local limiter's (what `limits_hit` reports).
fn local_refusal(
    local: &Limiter,
    scope: LimitScope,
    name: &str,
    kind: Option<LimitKind>,
    retry_after: Duration,
) -> CallRefusal {
    let kind = kind.unwrap_or(LimitKind::InFlight(0));
    local.count_refusal(&kind);
    CallRefusal::Limit(LimitExceeded::new(scope, name, kind, retry_after))
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;
    use crate::limit::{CallQuota, Rate};
    use crate::shared::redis_server::RedisServer;

    /// Two replicas: a store and a limiter each, the same quota.
    fn replicas(url: &str, quota: CallQuota) -> [(SharedStore, Limiter); 2] {
        [0, 1].map(|_| {
            let store = SharedStore::new(url).expect("a redis URL");
            (store, Limiter::new(quota))
        })
    }

    async fn admit_on(
        (store, local): &(SharedStore, Limiter),
        name: &str,
    ) -> Result<LimitPermit, CallRefusal> {
        admit(
            store,
            local,
            LimitScope::Principal,
            name,
            Duration::from_secs(5),
        )
        .await
    }

    fn slow_rate(burst: u32) -> CallQuota {
        // One token an hour: the burst is all a test gets.
        CallQuota::default().rate(Rate::new(1.0 / 3600.0, burst).expect("as set up"))
    }

    async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !done().await {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{what}: not within 10 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    #[tokio::test]
    async fn two_replicas_share_one_rate_n_calls_in_all() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let replicas = replicas(&redis.url(), slow_rate(5));
        let mut admitted = 0;
        for call in 0..20 {
            match admit_on(&replicas[call % 2], "alice").await {
                Ok(_) => admitted += 1,
                Err(CallRefusal::Limit(exceeded)) => {
                    assert_eq!(exceeded.kind().as_str(), "rate");
                    // The next token of one an hour: the script's wait, not the 1 s guess.
                    assert!(exceeded.retry_after() > Duration::from_secs(3000));
                }
                Err(other) => panic!("refused for {other:?}"),
            }
        }
        assert_eq!(
            admitted, 5,
            "five calls in all, whichever replica took them"
        );
        // Another principal has its own bucket; each replica counted its refusals.
        admit_on(&replicas[0], "bob")
            .await
            .expect("bob's first call");
        let refused: u64 = (replicas.iter())
            .map(|(_, local)| {
                local
                    .refused
                    .rate
                    .load(std::sync::atomic::Ordering::Relaxed)
            })
            .sum();
        assert_eq!(refused, 15);
        assert!(replicas[0].0.health().up);
    }

    #[tokio::test]
    async fn calls_in_flight_are_counted_across_replicas_and_freed_when_they_end() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let two = CallQuota::default().max_in_flight(NonZeroU32::new(2).expect("as set up"));
        let replicas = replicas(&redis.url(), two);
        let first = admit_on(&replicas[0], "ci").await.expect("a place");
        let _second = admit_on(&replicas[1], "ci").await.expect("a place");
        for replica in &replicas {
            match admit_on(replica, "ci").await {
                Err(CallRefusal::Limit(exceeded)) => {
                    assert_eq!(exceeded.kind(), LimitKind::InFlight(2));
                    assert_eq!(exceeded.retry_after(), IN_FLIGHT_RETRY);
                }
                other => panic!("a third call in flight: {other:?}"),
            }
        }
        // The first call ends on replica 0: replica 1 gets its place once the ZREM ran.
        drop(first);
        until("the place freed", async || {
            admit_on(&replicas[1], "ci").await.is_ok()
        })
        .await;
    }

    #[tokio::test]
    async fn the_places_of_a_replica_that_vanished_free_themselves_when_their_leases_end() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let one = CallQuota::default().max_in_flight(NonZeroU32::MIN);
        let crashed = SharedStore::new(redis.url()).expect("a redis URL");
        let keys = crashed.limit_keys(LimitScope::Server, "github");
        // Taken, never given back: the replica died during the call.
        let lease = Duration::from_millis(500);
        let verdict = crashed.check_limit(&keys, one, "crashed-1", lease).await;
        assert_eq!(verdict, Ok(Verdict::Admitted));
        let alive = SharedStore::new(redis.url()).expect("a redis URL");
        let verdict = alive.check_limit(&keys, one, "alive-1", lease).await;
        assert_eq!(verdict, Ok(Verdict::InFlightFull));
        tokio::time::sleep(Duration::from_millis(600)).await;
        let verdict = alive.check_limit(&keys, one, "alive-2", lease).await;
        assert_eq!(verdict, Ok(Verdict::Admitted));
    }

    #[tokio::test]
    async fn redis_stopped_means_local_limits_and_health_down_then_shared_again_when_back() {
        let Some(mut redis) = RedisServer::start() else {
            return;
        };
        let replicas = replicas(&redis.url(), slow_rate(3));
        for call in 0..3 {
            admit_on(&replicas[call % 2], "alice")
                .await
                .expect("shared burst");
        }
        assert!(admit_on(&replicas[0], "alice").await.is_err());
        redis.kill();
        // Each replica on its own: its local bucket of 3 decides.
        let mut admitted = 0;
        for _ in 0..5 {
            admitted += usize::from(admit_on(&replicas[0], "alice").await.is_ok());
        }
        assert_eq!(admitted, 3, "replica 0's own limits");
        let health = replicas[0].0.health();
        assert!(!health.up);
        assert!(health.error.is_some());
        redis.restart();
        let store = replicas[1].0.clone();
        until("the store back up", async || {
            store.check().await;
            store.health().up
        })
        .await;
        until("replica 0's probe", async || replicas[0].0.health().up).await;
        // An emptied Redis: a full shared bucket of 3, again for both replicas together.
        let mut admitted = 0;
        for call in 0..6 {
            admitted += usize::from(admit_on(&replicas[call % 2], "alice").await.is_ok());
        }
        assert_eq!(admitted, 3);
    }

    #[tokio::test]
    async fn the_refuse_policy_refuses_limited_calls_while_the_store_is_down() {
        // A port nothing listens on: refused at once.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let url = format!("redis://127.0.0.1:{port}");
        let store = SharedStore::new(&url)
            .expect("a redis URL")
            .on_failure(FailurePolicy::Refuse);
        let local = Limiter::new(slow_rate(1));
        let refused = admit(&store, &local, LimitScope::Server, "git", Duration::ZERO).await;
        assert!(
            matches!(refused, Err(CallRefusal::StoreDown(_))),
            "{refused:?}"
        );
        assert!(!store.health().up);
        // The default policy: the local limiter decides, and a server starts without Redis.
        let store = SharedStore::new(&url).expect("a redis URL");
        admit(&store, &local, LimitScope::Server, "git", Duration::ZERO)
            .await
            .expect("local burst");
        let refused = admit(&store, &local, LimitScope::Server, "git", Duration::ZERO).await;
        assert!(matches!(refused, Err(CallRefusal::Limit(_))), "{refused:?}");
    }
}
