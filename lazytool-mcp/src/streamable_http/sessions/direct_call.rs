//! A session's request answered by the session's handler in the HTTP request's own task:
//! [`DirectCall`], the stream of its events, and [`Calls`], the cancellations of those in
//! flight.
//!
//! Handed to the session's service, a request crosses two tasks each way (the service's loop,
//! and the task it spawns for the handler), and on a loaded server each crossing is a thread
//! woken. Called here, the handler runs as the response's body is polled; its answer is routed
//! as the service would route it ([`Routes`](super::routes::Routes): numbered, kept for a
//! reconnecting client, after what the handler sent on the way), and what it sends the client
//! on the way still leaves through the service, whose loop stays idle otherwise. A client's
//! `notifications/cancelled` reaches the handler through [`Calls`], as the service's loop
//! would cancel a request it runs.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_core::Stream;
use lazytool_runtime::CancellationToken;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, JsonRpcNotification, RequestId};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use sync_wrapper::SyncFuture;

use super::events::Events;
use super::transport::SharedRoutes;
use crate::streamable_http::handler_call::Call;

/// The requests of a session its handler answers directly, by id: what cancels each.
#[derive(Clone, Default)]
pub(super) struct Calls(Arc<Mutex<HashMap<RequestId, CancellationToken>>>);

/// A request in [`Calls`] until dropped.
pub(super) struct InFlight {
    calls: Calls,
    id: RequestId,
}

impl Calls {
    /// Notes request `id`, cancelled by `cancellation`, until the returned guard is dropped.
    pub(super) fn enter(&self, id: RequestId, cancellation: CancellationToken) -> InFlight {
        self.lock().insert(id.clone(), cancellation);
        InFlight {
            calls: self.clone(),
            id,
        }
    }

    /// Cancels the request a client's `notifications/cancelled` names, if it is one of these.
    pub(super) fn received(&self, message: &ClientJsonRpcMessage) {
        if let ClientJsonRpcMessage::Notification(JsonRpcNotification {
            notification: ClientNotification::CancelledNotification(cancelled),
            ..
        }) = message
            && let Some(id) = &cancelled.params.request_id
            && let Some(cancellation) = self.lock().get(id)
        {
            cancellation.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.calls.lock().remove(&self.id);
    }
}

/// The events of a request its session's handler answers directly: what the handler sends on
/// the way, then its answer, which ends the stream. Dropped before the answer (the client's
/// connection broke), it leaves the handler to finish in a task of its own, as the session's
/// service would: the answer is kept for the client to resume the stream (`Last-Event-ID`).
pub(crate) struct DirectCall {
    /// The handler, until it answers (wrapped: the response's body must be `Sync`, and the
    /// future is only ever polled through `&mut`).
    pub(super) call: Option<SyncFuture<Call>>,
    /// The answer's delivery, while its stream has no room for it.
    pub(super) delivering: Option<SyncFuture<Pin<Box<dyn Future<Output = ()> + Send>>>>,
    pub(super) routes: SharedRoutes,
    pub(super) events: Events,
    pub(super) in_flight: Option<InFlight>,
}

impl Drop for DirectCall {
    fn drop(&mut self) {
        let Some(call) = self.call.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (routes, in_flight) = (self.routes.clone(), self.in_flight.take());
        runtime.spawn(async move {
            let answer = call.into_inner().await;
            if let Some(waiting) = routes.deliver(answer) {
                waiting.await;
            }
            drop(in_flight);
        });
    }
}

impl Stream for DirectCall {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(call) = &mut this.call
            && let Poll::Ready(answer) = Pin::new(call).poll(cx)
        {
            this.call = None;
            // After what the handler sent on the way, which is routed already: the handler's
            // sends return once the service has routed them.
            if let Some(waiting) = this.routes.deliver(answer) {
                this.delivering = Some(SyncFuture::new(Box::pin(waiting)));
            }
        }
        if let Some(delivering) = &mut this.delivering
            && Pin::new(delivering).poll(cx).is_ready()
        {
            this.delivering = None;
        }
        Pin::new(&mut this.events).poll_next(cx)
    }
}
