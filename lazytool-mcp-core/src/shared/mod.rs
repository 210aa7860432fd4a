//! A store that every replica of a server shares, in Redis: [`SharedStore`] (feature
//! `redis`), and the tool-call limits kept in it.
//!
//! # Limits through the store
//!
//! With a store, every limit of a principal (`PrincipalLimits`) and
//! of an upstream server (`McpSource::call_quota`), its rate
//! and its calls in flight alike, is decided by one round trip per call: the Lua script
//! `limit.lua`, run by `EVALSHA`. For each limited principal or server it keeps two keys:
//!
//! | key | what | expires |
//! |---|---|---|
//! | `PREFIX` `bucket:SCOPE:NAME` | the token bucket: a hash of `tokens` and `at` (microseconds of Redis's clock) | once a bucket that was empty would be full again (`burst / perSecond`), plus a second: an expired bucket is a full one |
//! | `PREFIX` `leases:SCOPE:NAME` | the calls in flight: a sorted set of call ids, each scored by its lease's end | a second after the longest lease it holds |
//!
//! `SCOPE` is `principal` or `server`, `NAME` the principal's name or the server's; the
//! prefix is `lazytool:` unless [`SharedStore::key_prefix`] says otherwise. Nothing else is
//! written: no token, no argument, no tool name.
//!
//! The script reads the time from Redis (`TIME`), so the replicas' clocks do not matter;
//! removes the leases that ended; refuses the call if every place in flight is taken;
//! refills the bucket for the time since it was last taken from and refuses the call if it
//! holds less than one token (saying how long until it does); else takes the token and adds
//! the call's lease. A lease lasts the call's timeout plus a margin
//! ([`SharedStore::call_timeout`] for a principal's calls, the server's own
//! `call_timeout` for a server's): the calls of a replica
//! that crashed free their places by themselves when their leases end. A call that ends
//! removes its lease (`ZREM`) in a task of its own: its answer never waits for the store.
//!
//! Why a script rather than `INCR` and `EXPIRE`:
//!
//! - **Both limits checked and taken at once.** Counted with separate commands, two
//!   replicas can both read "one place left" and both take it, and a call refused for its
//!   rate would first have to take a place in flight and then give it back. The script runs
//!   alone in Redis: what it reads is still true when it writes.
//! - **One round trip** for both limits, whatever the number of replicas.
//! - **No count stuck by a crash.** An in-flight count made by `INCR` goes down only when
//!   the replica that raised it says so: a replica that dies leaves it high, refusing that
//!   principal's calls until the key expires. A lease ends by itself.
//!
//! # When the store is down
//!
//! Every command's outcome says whether the store is up ([`SharedStore::health`]). While it
//! is down, commands fail at once and a probe tries it every second; the
//! [`FailurePolicy`] decides: by default each replica applies its limits alone (logged once
//! when it goes down, once when it is back), or calls are refused with 503. Nothing needs
//! to be done when it is back: calls admitted meanwhile hold local places, the next calls go
//! to the store again.

mod failure_policy;
mod health;
mod invalid_store_url;
pub mod lease;
mod limit_script;
mod redacted_url;
#[cfg(test)]
mod redis_server;
pub mod shared_admission;
mod shared_store;
mod store_health;

pub use crate::limit::StoreDown;
pub use failure_policy::FailurePolicy;
pub use invalid_store_url::InvalidStoreUrl;
pub use shared_store::{DEFAULT_KEY_PREFIX, LEASE_MARGIN, SharedStore};
pub use store_health::StoreHealth;
