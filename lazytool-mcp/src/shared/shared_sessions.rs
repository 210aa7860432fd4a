//! Stateful sessions kept in the [`SharedStore`] for every replica: [`SharedSessions`], rmcp's
//! `SessionStore` (the client's `initialize`, which rmcp replays to restore a session on a
//! replica that does not hold it) and lazytool's [`SessionShare`] (whose session it is, what
//! it discovered, its log level and subscriptions), with the changes announced on a channel
//! every replica listens to.
//!
//! | key | what | expires |
//! |---|---|---|
//! | `PREFIX` `session:ID` | a hash: `init` (the client's `initialize` parameters, JSON), `principal`, `issuer`, `logLevel` | the session idle timeout after the session's last request on any replica |
//! | `PREFIX` `session:ID:discovered` | a set of the tool names the session discovered: two replicas discovering at once add to it (a union, never the last writer) | the same |
//! | `PREFIX` `session:ID:subscriptions` | a set of the resource URIs it subscribed to | the same |
//!
//! | `PREFIX` `principal-sessions:NAME` | a sorted set of a principal's sessions by their last activity, for a bound on its sessions across replicas (`HttpLimits::max_sessions_per_principal`) | the same, renewed with each member |
//!
//! The channel `PREFIX` `session-changes` carries `REPLICA SESSION-ID` after each change
//! (`REPLICA end SESSION-ID` for a session ended to make room for another):
//! each other replica that holds the session reads its state again and sends its client
//! `notifications/tools/list_changed` when it gained tools. A write that fails while the
//! store is down is kept, and the whole state of each session it concerns is written again
//! once the store answers: nothing is lost.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use rmcp::transport::streamable_http_server::session::SessionState;
use tokio::time::Instant;

use super::SharedStore;
use crate::LogLevel;
use crate::Principal;
use crate::session_share::{
    Closer, Loaded, SessionFollower, SessionShare, ShareFuture, SharedSessionState,
};

/// How often the writes that failed are tried again, and the channel listened to again after
/// it broke.
const RETRY_EVERY: Duration = Duration::from_secs(1);

/// The sessions of one server in the store.
pub(crate) struct SharedSessions {
    pub(super) store: SharedStore,
    /// Ends a session held here that another replica ended to make room.
    closer: Mutex<Option<Closer>>,
    /// How long a session's keys live after its last request: the session idle timeout.
    ttl: Duration,
    channel: String,
    local: Mutex<Local>,
}

/// What this replica keeps of the sessions it serves.
#[derive(Default)]
pub(super) struct Local {
    followers: HashMap<String, Weak<dyn SessionFollower>>,
    /// The `initialize` of each session served here, to write again after an outage.
    pub(super) inits: HashMap<String, SessionState>,
    /// When each session's keys were last given a new expiry.
    refreshed: HashMap<String, Instant>,
    /// Sessions whose state could not be written: written whole once the store answers.
    pub(super) unwritten: HashSet<String>,
    listening: bool,
}

impl SharedSessions {
    pub(crate) fn new(store: SharedStore, ttl: Duration) -> Arc<Self> {
        let channel = store.key(&["session-changes"]);
        let sessions = Arc::new(SharedSessions {
            store,
            ttl,
            channel,
            local: Mutex::default(),
            closer: Mutex::default(),
        });
        Self::retry_unwritten(Arc::downgrade(&sessions));
        sessions
    }

    pub(super) fn local(&self) -> std::sync::MutexGuard<'_, Local> {
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn keys(&self, id: &str) -> [String; 3] {
        [
            self.store.key(&["session", id]),
            self.store.key(&["session", id, "discovered"]),
            self.store.key(&["session", id, "subscriptions"]),
        ]
    }

    pub(super) fn ttl_seconds(&self) -> u64 {
        self.ttl.as_secs().max(1)
    }

    /// Runs `pipe` (with the expiry of the session's keys renewed and the change announced),
    /// in the background; on failure, the session is written whole later.
    fn write(self: &Arc<Self>, id: &str, mut pipe: redis::Pipeline, announce: bool) {
        self.prepare(id, &mut pipe, announce);
        let (sessions, id) = (Arc::clone(self), id.to_owned());
        tokio::spawn(async move {
            let outcome = (sessions.store)
                .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
                .await;
            if outcome.is_err() {
                sessions.local().unwritten.insert(id);
            }
        });
    }

    /// Runs `pipe` as [`write`](Self::write) does, but before returning: what the client is
    /// answered next is then in the store for every replica.
    async fn write_now(&self, id: &str, mut pipe: redis::Pipeline, announce: bool) {
        self.prepare(id, &mut pipe, announce);
        let written = (self.store)
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await;
        if written.is_err() {
            self.local().unwritten.insert(id.to_owned());
        }
    }

    /// Adds to `pipe` the renewed expiry of the session's keys and, if `announce`, the
    /// announcement of its change.
    fn prepare(&self, id: &str, pipe: &mut redis::Pipeline, announce: bool) {
        for key in self.keys(id) {
            pipe.cmd("EXPIRE").arg(key).arg(self.ttl_seconds()).ignore();
        }
        if announce {
            let message = format!("{} {id}", self.store.replica_id());
            pipe.cmd("PUBLISH").arg(&self.channel).arg(message).ignore();
        }
    }

    /// Writes again, every second while the store is down, the sessions whose writes failed.
    fn retry_unwritten(sessions: Weak<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(RETRY_EVERY);
            loop {
                tick.tick().await;
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                let unwritten: Vec<String> = sessions.local().unwritten.drain().collect();
                for id in unwritten {
                    sessions.write_whole(&id).await;
                }
            }
        });
    }

    /// Writes everything this replica holds of session `id`, if it still serves it.
    async fn write_whole(&self, id: &str) {
        let (init, state) = {
            let local = self.local();
            let state = (local.followers.get(id))
                .and_then(Weak::upgrade)
                .and_then(|follower| follower.state_here());
            (local.inits.get(id).cloned(), state)
        };
        let Some(state) = state else {
            return;
        };
        let [hash, discovered, subscriptions] = self.keys(id);
        let mut pipe = redis::pipe();
        pipe.atomic();
        if let Some(init) = init.and_then(|init| serde_json::to_string(&init).ok()) {
            pipe.cmd("HSET").arg(&hash).arg("init").arg(init).ignore();
        }
        pipe.cmd("HSET")
            .arg(&hash)
            .arg("principal")
            .arg(&state.principal)
            .ignore();
        if let Some(issuer) = &state.issuer {
            pipe.cmd("HSET")
                .arg(&hash)
                .arg("issuer")
                .arg(issuer)
                .ignore();
        }
        if let Some(level) = state.log_level {
            pipe.cmd("HSET")
                .arg(&hash)
                .arg("logLevel")
                .arg(level.as_str())
                .ignore();
        }
        if !state.discovered.is_empty() {
            pipe.cmd("SADD")
                .arg(&discovered)
                .arg(&state.discovered)
                .ignore();
        }
        pipe.cmd("DEL").arg(&subscriptions).ignore();
        if !state.subscriptions.is_empty() {
            (pipe.cmd("SADD").arg(&subscriptions))
                .arg(&state.subscriptions)
                .ignore();
        }
        for key in [&hash, &discovered, &subscriptions] {
            pipe.cmd("EXPIRE").arg(key).arg(self.ttl_seconds()).ignore();
        }
        self.remember_principal(id, &state.principal, &mut pipe);
        let outcome = (self.store)
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await;
        match outcome {
            Ok(()) => {
                tracing::info!(target: "lazytool::mcp", session = id, "a session's state written to the shared store after it came back");
            }
            Err(_) => {
                self.local().unwritten.insert(id.to_owned());
            }
        }
    }

    async fn read(&self, id: &str) -> Result<Option<SharedSessionState>, ()> {
        let [hash, discovered, subscriptions] = self.keys(id);
        let mut pipe = redis::pipe();
        pipe.cmd("HGETALL").arg(&hash);
        pipe.cmd("SMEMBERS").arg(&discovered);
        pipe.cmd("SMEMBERS").arg(&subscriptions);
        type Read = (HashMap<String, String>, Vec<String>, Vec<String>);
        let (fields, discovered, subscriptions): Read = (self.store)
            .run(|mut connection| async move { pipe.query_async(&mut connection).await })
            .await
            .map_err(|_| ())?;
        let Some(principal) = fields.get("principal") else {
            return Ok(None);
        };
        Ok(Some(SharedSessionState {
            principal: principal.clone(),
            issuer: fields.get("issuer").cloned(),
            discovered,
            log_level: (fields.get("logLevel")).and_then(|level| level.parse::<LogLevel>().ok()),
            subscriptions,
        }))
    }

    /// Listens to the channel of changes (again after it broke), telling each follower of a
    /// session changed by another replica.
    fn listen(self: &Arc<Self>) {
        {
            let mut local = self.local();
            if local.listening {
                return;
            }
            local.listening = true;
        }
        let sessions = Arc::downgrade(self);
        let (client, channel) = (self.store.client().clone(), self.channel.clone());
        let me = self.store.replica_id().to_owned();
        tokio::spawn(async move {
            loop {
                let subscribed = async {
                    let mut pubsub = client.get_async_pubsub().await?;
                    pubsub.subscribe(&channel).await?;
                    Ok::<_, redis::RedisError>(pubsub)
                };
                match subscribed.await {
                    Ok(pubsub) => {
                        let mut messages = pubsub.into_on_message();
                        while let Some(message) = messages.next().await {
                            let Some(sessions) = sessions.upgrade() else {
                                return;
                            };
                            let Ok(payload) = message.get_payload::<String>() else {
                                continue;
                            };
                            let Some((replica, rest)) = payload.split_once(' ') else {
                                continue;
                            };
                            if replica == me {
                                continue;
                            }
                            match rest.strip_prefix("end ") {
                                Some(id) => sessions.ended_elsewhere(id),
                                None => sessions.changed_elsewhere(rest),
                            }
                        }
                        tracing::debug!(target: "lazytool::mcp", "the shared store's channel of session changes ended; listening again");
                    }
                    Err(error) => {
                        tracing::debug!(target: "lazytool::mcp", %error, "cannot listen to the shared store's session changes; trying again");
                    }
                }
                if sessions.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(RETRY_EVERY).await;
            }
        });
    }

    fn ended_elsewhere(&self, id: &str) {
        let held = self.local().followers.contains_key(id);
        self.local().forget(id);
        if held
            && let Some(close) = self
                .closer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref()
        {
            close(id.to_owned());
        }
    }

    fn changed_elsewhere(self: &Arc<Self>, id: &str) {
        let follower = {
            let mut local = self.local();
            match local.followers.get(id).map(Weak::upgrade) {
                Some(Some(follower)) => follower,
                Some(None) => {
                    local.forget(id);
                    return;
                }
                None => return,
            }
        };
        let (sessions, id) = (Arc::clone(self), id.to_owned());
        tokio::spawn(async move {
            if let Ok(Some(state)) = sessions.read(&id).await {
                follower.changed_elsewhere(state);
            }
        });
    }
}

/// Ends a principal's least recently active sessions until at most `ARGV[2]` are left, after
/// dropping those idle longer than `ARGV[1]` ms (by Redis's clock): the ids ended.
static MAKE_ROOM: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| {
    redis::Script::new(
        r"
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
        local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
        if over <= 0 then return {} end
        local ended = redis.call('ZRANGE', KEYS[1], 0, over - 1)
        redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
        return ended
        ",
    )
});

impl SharedSessions {
    /// Adds session `id` to `principal`'s sessions (or marks it active), by Redis's clock.
    /// Once per quarter of the idle timeout at most, as the session's expiry.
    fn remember_principal(&self, id: &str, principal: &str, pipe: &mut redis::Pipeline) {
        let key = self.store.key(&["principal-sessions", principal]);
        pipe.cmd("EVAL")
            .arg("local t = redis.call('TIME') redis.call('ZADD', KEYS[1], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[1]) return 0")
            .arg(1)
            .arg(&key)
            .arg(id)
            .ignore();
        pipe.cmd("EXPIRE")
            .arg(&key)
            .arg(self.ttl_seconds())
            .ignore();
    }
}

impl Local {
    pub(super) fn forget(&mut self, id: &str) {
        self.followers.remove(id);
        self.inits.remove(id);
        self.refreshed.remove(id);
        self.unwritten.remove(id);
    }

    /// Drops what is kept of sessions no longer served here.
    fn forget_ended(&mut self) {
        let ended: Vec<String> = (self.followers.iter())
            .filter(|(_, follower)| follower.strong_count() == 0)
            .map(|(id, _)| id.clone())
            .collect();
        for id in ended {
            self.forget(&id);
        }
    }
}

impl SessionShare for Arc<SharedSessions> {
    fn load<'a>(&'a self, id: &'a str) -> ShareFuture<'a, Loaded> {
        Box::pin(async move {
            match self.read(id).await {
                Ok(Some(state)) => Loaded::Found(state),
                Ok(None) => Loaded::Unknown,
                Err(()) => Loaded::Unreachable,
            }
        })
    }

    fn opened<'a>(&'a self, id: &'a str, principal: &'a Principal) -> ShareFuture<'a, ()> {
        Box::pin(async move {
            let hash = self.store.key(&["session", id]);
            let mut pipe = redis::pipe();
            pipe.cmd("HSET")
                .arg(&hash)
                .arg("principal")
                .arg(principal.name())
                .ignore();
            if let Some(issuer) = principal.issuer() {
                pipe.cmd("HSET")
                    .arg(&hash)
                    .arg("issuer")
                    .arg(issuer)
                    .ignore();
            }
            self.remember_principal(id, principal.name(), &mut pipe);
            self.write_now(id, pipe, false).await;
        })
    }

    fn discovered<'a>(&'a self, id: &'a str, names: &'a [String]) -> ShareFuture<'a, ()> {
        Box::pin(async move {
            if names.is_empty() {
                return;
            }
            let mut pipe = redis::pipe();
            let key = self.store.key(&["session", id, "discovered"]);
            pipe.cmd("SADD").arg(key).arg(names).ignore();
            self.write_now(id, pipe, true).await;
        })
    }

    fn log_level(&self, id: &str, level: LogLevel) {
        let mut pipe = redis::pipe();
        pipe.cmd("HSET")
            .arg(self.store.key(&["session", id]))
            .arg("logLevel")
            .arg(level.as_str())
            .ignore();
        self.write(id, pipe, true);
    }

    fn subscription(&self, id: &str, uri: &str, subscribed: bool) {
        let mut pipe = redis::pipe();
        let command = if subscribed { "SADD" } else { "SREM" };
        (pipe
            .cmd(command)
            .arg(self.store.key(&["session", id, "subscriptions"])))
        .arg(uri)
        .ignore();
        self.write(id, pipe, true);
    }

    fn touched(&self, id: &str, principal: &Principal) {
        // Once in a quarter of the expiry at most: a request costs no round trip otherwise.
        let due = {
            let mut local = self.local();
            let now = Instant::now();
            let due =
                (local.refreshed.get(id)).is_none_or(|at| now.duration_since(*at) >= self.ttl / 4);
            if due {
                local.refreshed.insert(id.to_owned(), now);
            }
            due
        };
        if due {
            let mut pipe = redis::pipe();
            self.remember_principal(id, principal.name(), &mut pipe);
            self.write(id, pipe, false);
        }
    }

    fn make_room<'a>(
        &'a self,
        principal: &'a Principal,
        max: usize,
    ) -> ShareFuture<'a, Vec<String>> {
        Box::pin(async move {
            let key = self.store.key(&["principal-sessions", principal.name()]);
            let idle_ms = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
            let keep = max.saturating_sub(1);
            let (script, key_for_script) = (MAKE_ROOM.clone(), key.clone());
            let ended: Result<Vec<String>, _> = (self.store)
                .run(|mut connection| async move {
                    script
                        .key(key_for_script)
                        .arg(idle_ms)
                        .arg(keep)
                        .invoke_async(&mut connection)
                        .await
                })
                .await;
            let Ok(ended) = ended else {
                return Vec::new();
            };
            for id in &ended {
                tracing::info!(target: "lazytool::mcp", session = %id, principal = principal.name(), "ending the principal's least recently active session to make room (its sessions on every replica)");
                let keys = self.keys(id);
                let message = format!("{} end {id}", self.store.replica_id());
                let channel = self.channel.clone();
                let _ = (self.store)
                    .run(|mut connection| async move {
                        redis::pipe()
                            .cmd("DEL")
                            .arg(&keys[..])
                            .ignore()
                            .cmd("PUBLISH")
                            .arg(channel)
                            .arg(message)
                            .ignore()
                            .query_async::<()>(&mut connection)
                            .await
                    })
                    .await;
                self.ended_elsewhere(id);
            }
            ended
        })
    }

    fn on_ended_elsewhere(&self, close: Closer) {
        *self.closer.lock().unwrap_or_else(PoisonError::into_inner) = Some(close);
    }

    fn follow(&self, id: &str, follower: Weak<dyn SessionFollower>) {
        {
            let mut local = self.local();
            local.forget_ended();
            local.followers.insert(id.to_owned(), follower);
        }
        self.listen();
    }
}

#[cfg(test)]
mod tests;
