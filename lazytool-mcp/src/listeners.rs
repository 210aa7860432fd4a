//! The `subscriptions/listen` streams of a connection: from protocol 2026-07-28 on, the only
//! way a server may send `notifications/tools/list_changed`.

use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::model::RequestId;
use rmcp::service::SubscriptionSink;

#[derive(Default)]
pub(crate) struct Listeners(Mutex<Vec<SubscriptionSink>>);

/// Unregisters its stream when dropped.
pub(crate) struct Registration<'a> {
    listeners: &'a Listeners,
    id: RequestId,
}

impl Listeners {
    pub(crate) fn register(&self, sink: SubscriptionSink) -> Registration<'_> {
        let id = sink.id().clone();
        self.lock().push(sink);
        Registration {
            listeners: self,
            id,
        }
    }

    pub(crate) async fn notify_tool_list_changed(&self) {
        let sinks = self.lock().clone();
        for sink in sinks {
            if let Err(error) = sink.notify_tool_list_changed().await {
                tracing::debug!(target: "lazytool::mcp", %error, "cannot notify a listener");
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<SubscriptionSink>> {
        // A list of handles, whole after every statement.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.listeners.lock().retain(|sink| sink.id() != &self.id);
    }
}
