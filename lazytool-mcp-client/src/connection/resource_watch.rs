//! The resources a client of the program subscribed to, watched on the upstream that offers
//! them: `resources/subscribe` to a 2025-11-25 server, a `subscriptions/listen` stream with
//! the URI to a 2026-07-28 one; watched again at each start; each update announced on
//! [`ResourceWatch::updates`].

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ServerNotification, SubscribeRequestParams, SubscriptionFilter};
use rmcp::{Peer, RoleClient};
use tokio::sync::broadcast;

const TARGET: &str = "lazytool::upstream";

/// How many updates wait for a slow reader before the oldest are dropped.
const UPDATES_WAITING: usize = 256;

pub(crate) struct ResourceWatch {
    watched: Mutex<BTreeSet<String>>,
    updates: broadcast::Sender<String>,
}

impl Default for ResourceWatch {
    fn default() -> Self {
        ResourceWatch {
            watched: Mutex::default(),
            updates: broadcast::Sender::new(UPDATES_WAITING),
        }
    }
}

impl ResourceWatch {
    /// Where the URIs of updated resources are announced (the server's own notifications
    /// reach it through `Notices`).
    pub(crate) fn updates(&self) -> &broadcast::Sender<String> {
        &self.updates
    }

    /// Watches `uri` on `peer` (once: a URI watched already is not asked again), and at
    /// every later start.
    pub(crate) async fn watch(
        &self,
        server: &Arc<str>,
        peer: &Peer<RoleClient>,
        uri: String,
    ) -> Result<(), String> {
        let new = (self.watched.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .insert(uri.clone());
        if !new {
            return Ok(());
        }
        let watched = on(server, peer, &self.updates, uri.clone()).await;
        if watched.is_err() {
            (self.watched.lock())
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&uri);
        }
        watched
    }

    /// Watches again, on a server that just started, what was watched before.
    pub(crate) fn rewatch(&self, server: &Arc<str>, peer: &Peer<RoleClient>) {
        let uris: Vec<String> = (self.watched.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        for uri in uris {
            let (server, peer, updates) = (Arc::clone(server), peer.clone(), self.updates.clone());
            tokio::spawn(async move {
                if let Err(error) = on(&server, &peer, &updates, uri.clone()).await {
                    tracing::warn!(target: TARGET, server = %server, %uri, %error, "a resource is no longer watched after a restart");
                }
            });
        }
    }
}

/// Asks `peer` for the updates of `uri`.
#[expect(
    deprecated,
    reason = "resources/subscribe is how a 2025-11-25 server is asked"
)]
async fn on(
    server: &Arc<str>,
    peer: &Peer<RoleClient>,
    updates: &broadcast::Sender<String>,
    uri: String,
) -> Result<(), String> {
    let legacy = peer
        .peer_info()
        .is_none_or(|info| info.protocol_version.has_initialize());
    if legacy {
        return peer
            .subscribe(SubscribeRequestParams::new(uri))
            .await
            .map_err(|error| format!("resources/subscribe failed: {error}"));
    }
    let filter = SubscriptionFilter::builder()
        .resource_subscription(uri.clone())
        .build();
    let mut subscription = peer
        .listen(filter)
        .await
        .map_err(|error| format!("subscriptions/listen failed: {error}"))?;
    let (server, updates) = (Arc::clone(server), updates.clone());
    tokio::spawn(async move {
        while let Ok(Some(notification)) = subscription.next().await {
            if let ServerNotification::ResourceUpdatedNotification(updated) = notification {
                let _ = updates.send(updated.params.uri);
            }
        }
        tracing::debug!(target: TARGET, server = %server, %uri, "the upstream's subscription to a resource ended");
    });
    Ok(())
}
