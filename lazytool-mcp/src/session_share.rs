//! A stateful session's state kept beyond the process serving it, so that any replica can
//! serve the session and a restarted one loses none: [`SessionShare`], which a store every
//! replica shares implements (`shared/`, feature `redis`), what a connection reports to it,
//! and [`SessionFollower`], what a connection is told of the changes other replicas made.

// Only a store shared by replicas (features `redis` and `server-http`) loads sessions and
// tells connections of changes.
#![cfg_attr(not(all(feature = "redis", feature = "server-http")), allow(dead_code))]

use std::future::Future;
use std::pin::Pin;
use std::sync::Weak;

use crate::LogLevel;
use crate::Principal;

/// What the store holds of one session, besides the client's `initialize` (which rmcp's
/// session store keeps): whose it is, what it discovered, what it asked for. Never a token
/// or a tool's arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SharedSessionState {
    /// [`Principal::name`], and the issuer of an issuer's principal.
    pub(crate) principal: String,
    pub(crate) issuer: Option<String>,
    pub(crate) discovered: Vec<String>,
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) subscriptions: Vec<String>,
}

impl SharedSessionState {
    /// Whether the session belongs to `principal`.
    pub(crate) fn belongs_to(&self, principal: &Principal) -> bool {
        self.principal == principal.name() && self.issuer.as_deref() == principal.issuer()
    }
}

/// What reading a session's state found.
#[derive(Debug)]
pub(crate) enum Loaded {
    Found(SharedSessionState),
    /// The store knows no such session (ended, expired, or never stored).
    Unknown,
    /// The store cannot be reached: the session cannot be served here now.
    Unreachable,
}

/// What ends a session held here when another replica ended it.
pub(crate) type Closer = Box<dyn Fn(String) + Send + Sync>;

/// A future a [`SessionShare`] answers with.
pub(crate) type ShareFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where the state of every stateful session of a server is kept for its replicas. Writes
/// return at once: the store is written in the background, and what cannot be written now
/// is written again once the store is back.
pub(crate) trait SessionShare: Send + Sync + 'static {
    /// The state of session `id`.
    fn load<'a>(&'a self, id: &'a str) -> ShareFuture<'a, Loaded>;
    /// A new session `id` of `principal`; awaited before the handshake is answered.
    fn opened<'a>(&'a self, id: &'a str, principal: &'a Principal) -> ShareFuture<'a, ()>;
    /// Session `id` discovered `names` (added to what it discovered before, on any replica).
    /// Awaited before the discovery is answered: the client's next call, whichever replica it
    /// lands on, finds the tools in the store.
    fn discovered<'a>(&'a self, id: &'a str, names: &'a [String]) -> ShareFuture<'a, ()>;
    /// Session `id` asked for log messages from `level` up.
    fn log_level(&self, id: &str, level: LogLevel);
    /// Session `id` subscribed to the resource `uri`, or unsubscribed.
    fn subscription(&self, id: &str, uri: &str, subscribed: bool);
    /// Session `id` of `principal` had a request: its state lives on.
    fn touched(&self, id: &str, principal: &Principal);
    /// Tells `follower` what other replicas change in session `id`, while it lives.
    fn follow(&self, id: &str, follower: Weak<dyn SessionFollower>);
    /// Makes room for one more session of `principal`, who may have `max` on all replicas
    /// together: the least recently active of its sessions beyond `max - 1` are ended on
    /// every replica. Their ids; none when the store cannot be reached (the replica's own
    /// bound still holds).
    fn make_room<'a>(
        &'a self,
        principal: &'a Principal,
        max: usize,
    ) -> ShareFuture<'a, Vec<String>>;
    /// Calls `close` with the id of each session held here that another replica ended.
    fn on_ended_elsewhere(&self, close: Closer);
}

/// A session served here, told what other replicas changed in it.
pub(crate) trait SessionFollower: Send + Sync {
    /// The session's state as the store holds it after another replica changed it.
    fn changed_elsewhere(&self, state: SharedSessionState);
    /// The session's state as this replica holds it, to write to the store again after an
    /// outage; `None` before the session is bound.
    fn state_here(&self) -> Option<SharedSessionState>;
}
