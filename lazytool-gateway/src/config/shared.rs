//! `lazytool.shared`: the Redis every replica of a gateway shares, so that the limits of
//! `lazytool.limits` and of each server's `limits` hold across replicas.

use std::time::Duration;

use lazytool_mcp::{FailurePolicy, SharedStore};
use serde_json::{Map, Value};

use super::reader::{Reader, child};

const SHARED_KEYS: &[&str] = &["redis", "onFailure", "keyPrefix"];

impl Reader<'_> {
    /// `{"redis": "redis://HOST:PORT", "onFailure": "local" | "refuse", "keyPrefix": "..."}`:
    /// the store, its principals' calls leased for `call_timeout` (the servers' own
    /// `callTimeoutMs`). `redis` is expanded as every string is: the password can come from
    /// the environment (`redis://:${REDIS_PASSWORD}@10.0.0.5:6379`).
    pub(super) fn shared(
        &mut self,
        section: &Map<String, Value>,
        path: &str,
        call_timeout: Duration,
    ) -> Option<SharedStore> {
        self.unknown_keys(section, path, SHARED_KEYS);
        let redis_path = child(path, "redis");
        let url = match section.get("redis") {
            Some(url) => self.string(url, &redis_path),
            None => {
                self.problem(path, "needs `redis`: the URL of the Redis every replica shares, as `redis://HOST:PORT` (`rediss://` for TLS)");
                None
            }
        };
        let policy = self.one_of(
            section.get("onFailure"),
            &child(path, "onFailure"),
            FailurePolicy::Local,
            &[
                ("local", FailurePolicy::Local),
                ("refuse", FailurePolicy::Refuse),
            ],
        );
        let prefix_path = child(path, "keyPrefix");
        let prefix =
            (section.get("keyPrefix")).and_then(|prefix| self.string(prefix, &prefix_path));
        if prefix.as_deref() == Some("") {
            self.problem(&prefix_path, "an empty prefix would mix the gateway's keys with every other key of the Redis: leave it out for `lazytool:`");
        }
        let store = match SharedStore::new(url?) {
            Ok(store) => store,
            Err(invalid) => {
                self.problem(&redis_path, invalid);
                return None;
            }
        };
        let store = store.on_failure(policy).call_timeout(call_timeout);
        Some(match prefix {
            Some(prefix) if !prefix.is_empty() => store.key_prefix(prefix),
            _ => store,
        })
    }
}
