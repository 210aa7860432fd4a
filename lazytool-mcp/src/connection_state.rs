//! What a stateful connection holds beyond one request: its [`Bound`] session, the log level
//! and the subscriptions its client asked for ([`ConnectionState`]); and, where the server's
//! sessions are kept for its replicas ([`SessionShare`]), how the connection restores them,
//! reports its changes, and follows what other replicas change.

// Only a store shared by replicas (features `redis` and `server-http`) follows a session.
#![cfg_attr(not(all(feature = "redis", feature = "server-http")), allow(dead_code))]

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use lazytool_runtime::CancellationToken;
use rmcp::model::ErrorData;
use rmcp::{Peer, RoleServer};

use crate::LogLevel;
use crate::Principal;
use crate::bound_session::Bound;
use crate::offers::subscriptions::Subscriptions;
use crate::server::McpServer;
use crate::session_share::{Loaded, SessionFollower, SessionShare, SharedSessionState};

/// A stateful connection's state, shared with the store's follower of its session.
pub(crate) struct ConnectionState {
    pub(crate) server: Arc<McpServer>,
    /// The stateful session and the principal it belongs to, from the first stateful request.
    pub(crate) bound: OnceLock<Bound>,
    /// The least severe log message a stateful client asked for (`logging/setLevel`).
    pub(crate) log_level: Mutex<Option<LogLevel>>,
    /// The resources a stateful client subscribed to (`resources/subscribe`).
    pub(crate) subscriptions: Subscriptions,
    /// The session's id and its client, once the session is shared with the server's replicas.
    shared: OnceLock<(String, Peer<RoleServer>)>,
    /// The client, from the handshake on: what a session's requests answered outside rmcp's
    /// service loop send it through.
    pub(crate) peer: OnceLock<Peer<RoleServer>>,
    /// Cancelled when the client's input ends.
    closed: CancellationToken,
}

impl ConnectionState {
    pub(crate) fn new(server: Arc<McpServer>, closed: CancellationToken) -> Self {
        ConnectionState {
            server,
            bound: OnceLock::new(),
            log_level: Mutex::new(None),
            subscriptions: Subscriptions::default(),
            shared: OnceLock::new(),
            peer: OnceLock::new(),
            closed,
        }
    }

    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(level);
        if let Some((share, id)) = self.share() {
            share.log_level(id, level);
        }
    }

    /// The store and the session's id there, if the session is shared.
    pub(crate) fn share(&self) -> Option<(&Arc<dyn SessionShare>, &str)> {
        let (id, _) = self.shared.get()?;
        Some((self.server.session_share()?, id))
    }

    /// Shares the session `id` of `principal` with the server's replicas, if they share
    /// sessions: a new one is recorded; one restored here (`restored`: its client's
    /// `initialize` replayed from the store) takes what it discovered, its log level and
    /// subscriptions from the store, or is refused when it belongs to another principal or
    /// cannot be read. From then on the connection follows what other replicas change.
    pub(crate) async fn share_session(
        self: &Arc<Self>,
        id: String,
        principal: &Principal,
        restored: bool,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(share) = self.server.session_share().cloned() else {
            return Ok(());
        };
        if restored {
            match share.load(&id).await {
                Loaded::Found(state) if state.belongs_to(principal) => {
                    self.take_state(&state, principal).await;
                }
                Loaded::Found(_) => {
                    tracing::warn!(target: "lazytool::mcp", principal = principal.name(), "refusing to restore another principal's session");
                    return Err(ErrorData::invalid_request(
                        "this MCP session belongs to another principal",
                        None,
                    ));
                }
                Loaded::Unknown | Loaded::Unreachable => {
                    return Err(ErrorData::invalid_request(
                        "this MCP session cannot be restored; start a new one",
                        None,
                    ));
                }
            }
        } else {
            share.opened(&id, principal).await;
        }
        if self.shared.set((id.clone(), peer)).is_ok() {
            let follower: Arc<dyn SessionFollower> = Arc::clone(self) as Arc<dyn SessionFollower>;
            share.follow(&id, Arc::downgrade(&follower));
            // The follower lives as long as the connection's state does.
            drop(follower);
        }
        Ok(())
    }

    /// Takes what the store holds of the session: its discoveries, log level, subscriptions.
    async fn take_state(&self, state: &SharedSessionState, principal: &Principal) {
        if let Some(bound) = self.bound.get() {
            bound.add_discovered(&self.server, &state.discovered);
        }
        if let Some(level) = state.log_level {
            *self
                .log_level
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(level);
        }
        for uri in &state.subscriptions {
            if let Err(error) = (self.subscriptions)
                .subscribe(&self.server, principal, uri.clone())
                .await
            {
                tracing::debug!(target: "lazytool::mcp", %error, "a restored subscription is refused");
            }
        }
    }

    /// Before a call of the lazy tool `name` that this replica does not know the session
    /// discovered: reads what the session discovered from the store, so that a discovery
    /// made on another replica a moment ago (its announcement not here yet) counts; whether
    /// the session gained tools.
    pub(crate) async fn catch_up(&self, name: &str) -> bool {
        let (Some((share, id)), Some(bound)) = (self.share(), self.bound.get()) else {
            return false;
        };
        let session = bound.session(&self.server);
        let lazy = (session.registry().get(name)).is_some_and(|tool| tool.is_lazy());
        if !lazy || session.discovered().tools.iter().any(|known| known == name) {
            return false;
        }
        match share.load(id).await {
            Loaded::Found(state) => bound.add_discovered(&self.server, &state.discovered),
            Loaded::Unknown | Loaded::Unreachable => false,
        }
    }

    /// Reports tools the session discovered here, before the discovery is answered. The
    /// session the discovery ran in may have been replaced meanwhile (by what another replica
    /// discovered, a request's other claims, a changed catalog): the current one gets them too.
    pub(crate) async fn discovered_here(&self, names: &[String]) {
        if let Some(bound) = self.bound.get() {
            bound.add_discovered(&self.server, names);
        }
        if let Some((share, id)) = self.share() {
            share.discovered(id, names).await;
        }
    }

    /// Reports a subscription made or ended here.
    pub(crate) fn subscription_here(&self, uri: &str, subscribed: bool) {
        if let Some((share, id)) = self.share() {
            share.subscription(id, uri, subscribed);
        }
    }

    /// Reports a request of the session: its state lives on in the store.
    pub(crate) fn touched(&self) {
        if let (Some((share, id)), Some(bound)) = (self.share(), self.bound.get()) {
            share.touched(id, &bound.principal);
        }
    }
}

impl SessionFollower for ConnectionState {
    fn state_here(&self) -> Option<SharedSessionState> {
        let bound = self.bound.get()?;
        Some(SharedSessionState {
            principal: bound.principal.name().to_owned(),
            issuer: bound.principal.issuer().map(str::to_owned),
            discovered: bound.session(&self.server).discovered().tools,
            log_level: self.log_level(),
            subscriptions: self.subscriptions.uris_now().into_iter().collect(),
        })
    }

    fn changed_elsewhere(&self, state: SharedSessionState) {
        if self.closed.is_cancelled() {
            return;
        }
        let grew = (self.bound.get())
            .is_some_and(|bound| bound.add_discovered(&self.server, &state.discovered));
        if let Some(level) = state.log_level {
            *self
                .log_level
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(level);
        }
        let Some((_, peer)) = self.shared.get() else {
            return;
        };
        if grew {
            let peer = peer.clone();
            tokio::spawn(async move {
                if let Err(error) = peer.notify_tool_list_changed().await {
                    tracing::debug!(target: "lazytool::mcp", %error, "cannot send tools/list_changed");
                }
            });
        }
        let principal = self.bound.get().map(|bound| bound.principal.clone());
        let known = self.subscriptions.uris_now();
        let added: Vec<String> = (state.subscriptions.iter())
            .filter(|uri| !known.contains(*uri))
            .cloned()
            .collect();
        for uri in known
            .iter()
            .filter(|uri| !state.subscriptions.contains(uri))
        {
            self.subscriptions.unsubscribe(uri);
        }
        if let (Some(principal), false) = (principal, added.is_empty()) {
            let (server, subscriptions) = (Arc::clone(&self.server), self.subscriptions.clone());
            tokio::spawn(async move {
                for uri in added {
                    if let Err(error) = subscriptions.subscribe(&server, &principal, uri).await {
                        tracing::debug!(target: "lazytool::mcp", %error, "a subscription made elsewhere is refused here");
                    }
                }
            });
        }
    }
}
