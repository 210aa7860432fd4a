//! A stateful (2025-11-25) client's subscriptions to resources: `resources/subscribe` and
//! `resources/unsubscribe`, and `notifications/resources/updated` for each update of a
//! subscribed resource that the provider announces
//! ([`ResourceProvider::updates`](crate::ResourceProvider::updates)).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ErrorData, ResourceUpdatedNotificationParam, SubscribeRequestMethod};
use rmcp::{Peer, RoleServer};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::Principal;
use crate::server::McpServer;

/// The URIs one connection subscribed to.
#[derive(Clone, Default)]
pub(crate) struct Subscriptions(Arc<Mutex<HashSet<String>>>);

impl Subscriptions {
    /// Subscribes to `uri`: one the server offers `principal` (a resource, or a URI of a
    /// template), else the provider's unknown-resource error, as a read would get; the
    /// provider [watches](crate::ResourceProvider::watch) it first.
    pub(crate) async fn subscribe(
        &self,
        server: &McpServer,
        principal: &Principal,
        uri: String,
    ) -> Result<(), ErrorData> {
        let provider = server
            .resource_provider()
            .filter(|provider| provider.updates().is_some())
            .ok_or_else(ErrorData::method_not_found::<SubscribeRequestMethod>)?;
        if !server.offers_to(principal, &uri) {
            return Err(provider.unknown_resource(&uri));
        }
        provider.watch(uri.clone()).await?;
        self.uris().insert(uri);
        Ok(())
    }

    /// The URIs subscribed to now.
    #[cfg_attr(not(all(feature = "redis", feature = "server-http")), allow(dead_code))]
    pub(crate) fn uris_now(&self) -> HashSet<String> {
        self.uris().clone()
    }

    /// Ends the subscription to `uri`, if there was one.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.uris().remove(uri);
    }

    /// Sends `peer` an update of each subscribed resource the provider announces, until
    /// `closed`. A provider that announces none spawns nothing.
    pub(crate) fn forward_updates(
        &self,
        server: &McpServer,
        peer: Peer<RoleServer>,
        closed: CancellationToken,
    ) {
        let Some(mut updates) = server
            .resource_provider()
            .and_then(|provider| provider.updates())
        else {
            return;
        };
        let subscribed = Arc::clone(&self.0);
        tokio::spawn(async move {
            loop {
                let uri = match closed.run_until_cancelled(updates.recv()).await {
                    None | Some(Err(RecvError::Closed)) => return,
                    Some(Err(RecvError::Lagged(missed))) => {
                        tracing::debug!(target: "lazytool::mcp", missed, "resource updates missed: the connection was too slow");
                        continue;
                    }
                    Some(Ok(uri)) => uri,
                };
                let wanted = (subscribed.lock())
                    .unwrap_or_else(PoisonError::into_inner)
                    .contains(&uri);
                if wanted
                    && let Err(error) = peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await
                {
                    tracing::debug!(target: "lazytool::mcp", %error, "cannot send resources/updated");
                    return;
                }
            }
        });
    }

    fn uris(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
