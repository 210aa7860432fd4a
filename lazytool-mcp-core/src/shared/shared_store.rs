//! The store every replica of a server shares, in Redis: [`SharedStore`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::failure_policy::FailurePolicy;
use super::health::Health;
use super::invalid_store_url::InvalidStoreUrl;
use super::redacted_url::redacted;
use super::store_health::StoreHealth;
use crate::limit::StoreDown;

/// The prefix of every key a [`SharedStore`] writes, unless
/// [`key_prefix`](SharedStore::key_prefix) gives another.
pub const DEFAULT_KEY_PREFIX: &str = "lazytool:";

/// What a call's place in flight is leased for beyond its timeout: a replica that crashed
/// holds its calls' places at most that much longer than they could have run.
pub const LEASE_MARGIN: Duration = Duration::from_secs(10);

/// The default of [`SharedStore::call_timeout`]: 5 minutes, an upstream call's default
/// timeout.
const DEFAULT_LEASED_CALL: Duration = Duration::from_secs(300);

/// How long connecting, and then each command, may take before the store counts as down.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(1);

/// How often a store that is down is tried again (`PING`).
const PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// A Redis server that every replica of an HTTP server (or a gateway) shares: with it, the
/// tool-call limits of each principal (`McpHttp::shared_store`)
/// and of each upstream server (`McpSource::shared_store`)
/// hold across replicas, decided in one round trip per call (the `shared` module's Lua
/// script; see the [guide](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/guide/replicas/index.html) for what is kept and why).
///
/// - **Lazy**: made without connecting (nor a tokio runtime); the first command connects,
///   and a lost connection is made again by itself. A server starts even while Redis is
///   down.
/// - **Health** from the outcome of every command ([`health`](Self::health)); a store that
///   is down is tried every second and, meanwhile, every command fails at once. Its going
///   down is logged once as a warning, its coming back once as info (`tracing` target
///   `lazytool::shared`); `/metrics` has `lazytool_shared_store_up` and `/readyz` says so.
/// - **Failure policy** ([`on_failure`](Self::on_failure)): limits applied by each replica
///   alone (the default) or limited calls refused while the store is down.
/// - **Keys**: each under a prefix ([`key_prefix`](Self::key_prefix), `lazytool:` by default)
///   and each with an expiry. Neither tokens nor tool arguments are ever written.
///
/// The URL is `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`, or `rediss://` for TLS
/// (checked against the system's root certificates); any other scheme is refused. A
/// password holding `@`, `:` or `/` is written percent-encoded (`%40`, `%3A`, `%2F`).
///
/// ```
/// use std::time::Duration;
/// use lazytool_mcp_core::{FailurePolicy, SharedStore};
///
/// let store = SharedStore::new("redis://:a-password@10.0.0.5:6379")?
///     .key_prefix("team-gateway:")
///     .on_failure(FailurePolicy::Local)
///     .call_timeout(Duration::from_secs(120));
/// assert_eq!(store.url(), "redis://:***@10.0.0.5:6379");
/// assert_eq!(store.prefix(), "team-gateway:");
/// assert!(SharedStore::new("memcached://10.0.0.5:11211").is_err());
/// # Ok::<(), lazytool_mcp_core::InvalidStoreUrl>(())
/// ```
#[derive(Clone)]
pub struct SharedStore {
    prefix: Arc<str>,
    policy: FailurePolicy,
    call_timeout: Duration,
    connection: Arc<Connection>,
}

/// What every clone of a store shares.
struct Connection {
    client: redis::Client,
    /// The URL without its password.
    url: String,
    /// Made on the first command (it needs a tokio runtime); it reconnects by itself.
    manager: OnceLock<ConnectionManager>,
    health: Health,
    /// Makes this process's call ids unique among the replicas'.
    replica: String,
    calls: AtomicU64,
}

impl SharedStore {
    /// The Redis server at `url` (`redis://` or `rediss://`, the password in its user
    /// information), not connected yet: the URL is only checked.
    ///
    /// ```
    /// use lazytool_mcp_core::SharedStore;
    ///
    /// let store = SharedStore::new("rediss://app:secret@cache.internal:6380/2").unwrap();
    /// assert_eq!(store.url(), "rediss://app:***@cache.internal:6380/2");
    /// let refused = SharedStore::new("cache.internal:6379").unwrap_err();
    /// assert!(refused.to_string().contains("must start with redis://"));
    /// ```
    pub fn new(url: impl AsRef<str>) -> Result<SharedStore, InvalidStoreUrl> {
        let url = url.as_ref();
        let shown = redacted(url);
        let scheme = url
            .split_once("://")
            .map(|(scheme, _)| scheme.to_ascii_lowercase());
        if !matches!(scheme.as_deref(), Some("redis" | "rediss")) {
            return Err(InvalidStoreUrl(format!(
                "`{shown}` is not a Redis URL: it must start with redis:// (or rediss:// for TLS)"
            )));
        }
        let client = redis::Client::open(url).map_err(|error| {
            InvalidStoreUrl(format!(
                "`{shown}` is not a Redis URL: {}",
                describe(&error)
            ))
        })?;
        Ok(SharedStore {
            prefix: Arc::from(DEFAULT_KEY_PREFIX),
            policy: FailurePolicy::default(),
            call_timeout: DEFAULT_LEASED_CALL,
            connection: Arc::new(Connection {
                client,
                url: shown,
                manager: OnceLock::new(),
                health: Health::new(),
                replica: replica_id(),
                calls: AtomicU64::new(0),
            }),
        })
    }

    /// Every key starts with `prefix` (default [`DEFAULT_KEY_PREFIX`]): several teams, or
    /// several gateways that must not share their limits, can use one Redis.
    ///
    /// ```
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1").unwrap().key_prefix("staging:");
    /// assert_eq!(store.prefix(), "staging:");
    /// ```
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Arc::from(prefix.into());
        self
    }

    /// What limited calls get while the store is down (default [`FailurePolicy::Local`]).
    ///
    /// ```
    /// use lazytool_mcp_core::{FailurePolicy, SharedStore};
    ///
    /// let store = SharedStore::new("redis://127.0.0.1").unwrap().on_failure(FailurePolicy::Refuse);
    /// assert_eq!(store.failure_policy(), FailurePolicy::Refuse);
    /// ```
    pub fn on_failure(mut self, policy: FailurePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The longest a principal's tool call may run (default: 5 minutes, the default
    /// `McpSource::call_timeout`): its place in flight is
    /// leased for this plus [`LEASE_MARGIN`], after which the store frees it even if the
    /// replica that took it never says the call ended (it crashed). A call that runs longer
    /// loses its place early. An upstream server's calls are leased for that server's own
    /// call timeout.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1").unwrap().call_timeout(Duration::from_secs(60));
    /// assert_eq!(store.leased_call(), Duration::from_secs(60));
    /// ```
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The longest call a principal's place in flight is leased for (without the margin).
    ///
    /// ```
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1").unwrap();
    /// assert_eq!(store.leased_call(), std::time::Duration::from_secs(300));
    /// ```
    pub fn leased_call(&self) -> Duration {
        self.call_timeout
    }

    /// The failure policy.
    ///
    /// ```
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1").unwrap();
    /// assert_eq!(store.failure_policy(), lazytool_mcp_core::FailurePolicy::Local);
    /// ```
    pub fn failure_policy(&self) -> FailurePolicy {
        self.policy
    }

    /// The prefix of every key.
    ///
    /// ```
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1").unwrap();
    /// assert_eq!(store.prefix(), "lazytool:");
    /// ```
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The URL, its password replaced by `***`: what logs show.
    ///
    /// ```
    /// let store = lazytool_mcp_core::SharedStore::new("redis://:hunter2@127.0.0.1:6379").unwrap();
    /// assert_eq!(store.url(), "redis://:***@127.0.0.1:6379");
    /// ```
    pub fn url(&self) -> &str {
        &self.connection.url
    }

    /// Whether the last command was answered, since when, and why it failed if it did.
    ///
    /// ```
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1").unwrap();
    /// assert!(store.health().up); // nothing asked yet
    /// ```
    pub fn health(&self) -> StoreHealth {
        self.connection.health.now()
    }

    /// Asks the store for a `PING` now, even while it counts as down, and returns its
    /// health after: what a server does at start to log whether its store answers.
    ///
    /// ```rust,no_run
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1:6379").unwrap();
    /// let health = store.check().await;
    /// println!("up: {}, since {:?}", health.up, health.since);
    /// # }
    /// ```
    pub async fn check(&self) -> StoreHealth {
        let _ = self.attempt(ping).await;
        self.health()
    }

    /// Whether the store counts as down now.
    pub fn is_down(&self) -> bool {
        self.connection.health.is_down()
    }

    /// Runs `command` on the store's connection, its outcome recorded in the store's health
    /// (and `/metrics`, `/readyz`, the log). While the store is down, fails at once (a probe
    /// tries the store every second meanwhile), so that callers never wait on a store that
    /// is known down; a caller that must have its command through retries later. The
    /// connection is redis's `ConnectionManager`: cheap to clone, multiplexed, reconnecting
    /// by itself; each command times out after a second.
    ///
    /// What another piece of state kept in the store (sessions, say) runs its commands with:
    ///
    /// ```ignore
    /// let key = store.key(&["session", &session_id]);
    /// let owner: Option<String> = store
    ///     .run(|mut connection| async move { redis::cmd("GET").arg(&key).query_async(&mut connection).await })
    ///     .await?;
    /// ```
    pub async fn run<T, F, Fut>(&self, command: F) -> Result<T, StoreDown>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        if self.is_down() {
            self.probe();
            let health = self.health();
            return Err(StoreDown {
                reason: health.error.unwrap_or_else(|| "unreachable".to_owned()),
            });
        }
        self.attempt(command).await
    }

    /// `parts` joined by `:` after the prefix: `lazytool:bucket:principal:alice`. Every key
    /// this crate writes is made here, and given an expiry where it is written.
    pub fn key(&self, parts: &[&str]) -> String {
        let length = parts.iter().map(|part| part.len() + 1).sum::<usize>();
        let mut key = String::with_capacity(self.prefix.len() + length);
        key.push_str(&self.prefix);
        for (index, part) in parts.iter().enumerate() {
            if index > 0 {
                key.push(':');
            }
            key.push_str(part);
        }
        key
    }

    /// The redis client, for a connection of its own: a pub/sub connection, which a
    /// `ConnectionManager` shared by every command cannot be. Commands on it are not
    /// counted in the store's health.
    #[allow(dead_code)]
    pub fn client(&self) -> &redis::Client {
        &self.connection.client
    }

    /// This process's id among the replicas: what its announcements on a channel are signed
    /// with, so that it skips its own.
    pub fn replica_id(&self) -> &str {
        &self.connection.replica
    }

    /// An id no other call of any replica has: this process's random id and a count.
    pub fn call_id(&self) -> String {
        let call = self.connection.calls.fetch_add(1, Ordering::Relaxed);
        format!("{}-{call}", self.connection.replica)
    }

    async fn attempt<T, F, Fut>(&self, command: F) -> Result<T, StoreDown>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let outcome = match self.manager() {
            Ok(manager) => command(manager).await.map_err(|error| describe(&error)),
            Err(reason) => Err(reason),
        };
        let health = &self.connection.health;
        match outcome {
            Ok(answer) => {
                health.answered(&self.connection.url);
                Ok(answer)
            }
            Err(reason) => {
                health.failed(&self.connection.url, &reason, self.policy);
                self.probe();
                Err(StoreDown { reason })
            }
        }
    }

    fn manager(&self) -> Result<ConnectionManager, String> {
        if let Some(manager) = self.connection.manager.get() {
            return Ok(manager.clone());
        }
        // redis spawns the manager's task on the runtime it runs in.
        if tokio::runtime::Handle::try_current().is_err() {
            return Err("not called from a tokio runtime".to_owned());
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(COMMAND_TIMEOUT))
            .set_response_timeout(Some(COMMAND_TIMEOUT))
            // One attempt per command: the probe, not the command, waits for the store.
            .set_number_of_retries(0);
        let manager =
            ConnectionManager::new_lazy_with_config(self.connection.client.clone(), config)
                .map_err(|error| describe(&error))?;
        Ok(self.connection.manager.get_or_init(|| manager).clone())
    }

    /// Starts the one task that pings a store that is down every second until it answers.
    fn probe(&self) {
        let health = &self.connection.health;
        if health.probing.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            health.probing.store(false, Ordering::Release);
            return;
        };
        let connection: Weak<Connection> = Arc::downgrade(&self.connection);
        let (prefix, policy, call_timeout) =
            (Arc::clone(&self.prefix), self.policy, self.call_timeout);
        runtime.spawn(async move {
            loop {
                tokio::time::sleep(PROBE_INTERVAL).await;
                // Dropped with its last store: nobody to probe for.
                let Some(connection) = connection.upgrade() else {
                    return;
                };
                let store = SharedStore {
                    prefix: Arc::clone(&prefix),
                    policy,
                    call_timeout,
                    connection,
                };
                let answered = store.attempt(ping).await.is_ok();
                if answered || !store.is_down() {
                    store
                        .connection
                        .health
                        .probing
                        .store(false, Ordering::Release);
                    return;
                }
            }
        });
    }
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStore")
            .field("url", &self.connection.url)
            .field("prefix", &self.prefix)
            .field("policy", &self.policy)
            .field("call_timeout", &self.call_timeout)
            .field("up", &!self.is_down())
            .finish()
    }
}

async fn ping(mut connection: ConnectionManager) -> redis::RedisResult<()> {
    redis::cmd("PING").query_async(&mut connection).await
}

/// What a redis error says, on one line.
fn describe(error: &redis::RedisError) -> String {
    error.to_string().replace('\n', " ")
}

/// 16 hex digits from the system's randomness (a count from the clock where it has none).
fn replica_id() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        bytes = (nanos as u64 ^ u64::from(std::process::id())).to_le_bytes();
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;
    use crate::limit::{CallQuota, LimitScope, Rate};
    use crate::shared::redis_server::RedisServer;

    #[test]
    fn only_redis_urls_are_taken_and_none_shows_its_password() {
        for url in [
            "http://:pw@cache:6379",
            "unix:///run/redis.sock",
            "cache:6379",
            "",
        ] {
            let error = SharedStore::new(url).expect_err("not a redis URL");
            assert!(
                error.to_string().contains("must start with redis://"),
                "{error}"
            );
            assert!(!error.to_string().contains("pw@"), "{error}");
        }
        let store = SharedStore::new("REDISS://:pw@cache:6380").expect("rediss, any case");
        assert!(!format!("{store:?}").contains("pw"));
        let bad_port = SharedStore::new("redis://:pw@cache:notaport").expect_err("no port");
        assert!(!bad_port.to_string().contains(":pw@"), "{bad_port}");
    }

    #[test]
    fn keys_are_namespaced() {
        let store = SharedStore::new("redis://127.0.0.1").expect("a redis URL");
        assert_eq!(
            store.key(&["bucket", "principal", "alice"]),
            "lazytool:bucket:principal:alice"
        );
        let store = store.key_prefix("team-a:");
        assert_eq!(store.key(&["session", "42"]), "team-a:session:42");
    }

    #[tokio::test]
    async fn every_key_written_is_under_the_prefix_and_expires() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let store = SharedStore::new(redis.url())
            .expect("a redis URL")
            .key_prefix("test:");
        let quota = CallQuota::default()
            .rate(Rate::new(2.0, 10).expect("as set up"))
            .max_in_flight(NonZeroU32::new(3).expect("as set up"));
        let keys = store.limit_keys(LimitScope::Principal, "alice");
        let lease = Duration::from_secs(60);
        store
            .check_limit(&keys, quota, &store.call_id(), lease)
            .await
            .expect("the store answers");
        let all: Vec<String> = store
            .run(|mut connection| async move {
                redis::cmd("KEYS")
                    .arg("*")
                    .query_async(&mut connection)
                    .await
            })
            .await
            .expect("the store answers");
        assert_eq!(all.len(), 2, "{all:?}");
        for key in all {
            assert!(key.starts_with("test:"), "{key}");
            let mut pttl = redis::cmd("PTTL");
            pttl.arg(&key);
            let ttl: i64 = store
                .run(|mut connection| async move { pttl.query_async(&mut connection).await })
                .await
                .expect("the store answers");
            // The bucket: refilled from empty in 5 s, plus a second; the leases: 61 s.
            let expected = if key.contains("bucket") {
                6_000
            } else {
                61_000
            };
            assert!(ttl > 0 && ttl <= expected, "{key}: {ttl} ms");
        }
    }

    #[tokio::test]
    async fn a_store_made_while_redis_is_down_works_once_it_is_up() {
        let Some(mut redis) = RedisServer::start() else {
            return;
        };
        redis.kill();
        let store = SharedStore::new(redis.url()).expect("a redis URL");
        assert!(!store.check().await.up);
        let down = store
            .run(ping)
            .await
            .expect_err("known down: fails at once");
        assert!(!down.reason.is_empty());
        redis.restart();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !store.health().up {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the probe saw it back"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        store.run(ping).await.expect("up again");
    }
}
