//! The calls forwarded to one upstream and not yet answered, which its requests and
//! progress notifications belong to: [`InFlight`].

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{CancelledNotificationParam, ProgressToken, RequestId};
use rmcp::service::InboundStreamOrigin;
use rmcp::{Peer, RoleClient};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::request::McpRequest;

/// The calls in flight on one upstream connection, oldest first.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<Vec<Arc<Call>>>,
}

/// One `tools/call` sent upstream.
pub(crate) struct Call {
    /// Its JSON-RPC id on the upstream connection.
    id: RequestId,
    /// The progress token it carries upstream (rmcp gives every request one).
    progress_token: ProgressToken,
    /// The MCP request of the program's client the call is made for, if any.
    pub(crate) downstream: Option<McpRequest>,
    /// When the call times out.
    pub(crate) deadline: Instant,
    /// Cancelled when the call ends, answered or not.
    pub(crate) ended: CancellationToken,
}

/// Which call a request from the upstream belongs to.
pub(crate) enum Owner {
    Call(Arc<Call>),
    /// No call is in flight (or not the one the request's stream answers).
    None,
    /// Calls of several clients are in flight, and nothing says which one asks.
    Ambiguous(usize),
}

impl InFlight {
    /// Records a call until the returned registration is dropped. Dropped before
    /// [`Registration::answered`], it sends the upstream `notifications/cancelled`.
    pub(crate) fn register(
        self: &Arc<Self>,
        id: RequestId,
        progress_token: ProgressToken,
        downstream: Option<McpRequest>,
        deadline: Instant,
        peer: Peer<RoleClient>,
    ) -> Registration {
        let call = Arc::new(Call {
            id,
            progress_token,
            downstream,
            deadline,
            ended: CancellationToken::new(),
        });
        self.lock().push(Arc::clone(&call));
        Registration {
            table: Arc::clone(self),
            call,
            peer,
            answered: false,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The call a request from the upstream belongs to: over streamable HTTP, the call
    /// whose response stream carried it; else (stdio, or the server's own stream) the
    /// only call in flight, or the oldest when every call in flight is of the same client.
    pub(crate) fn owner(&self, origin: Option<&InboundStreamOrigin>) -> Owner {
        let calls = self.lock();
        if let Some(InboundStreamOrigin::OutboundRequest(id)) = origin {
            return match calls.iter().find(|call| call.id == *id) {
                Some(call) => Owner::Call(Arc::clone(call)),
                None => Owner::None,
            };
        }
        match calls.as_slice() {
            [] => Owner::None,
            [call] => Owner::Call(Arc::clone(call)),
            [oldest, rest @ ..] => {
                if rest.iter().all(|call| same_client(oldest, call)) {
                    Owner::Call(Arc::clone(oldest))
                } else {
                    Owner::Ambiguous(calls.len())
                }
            }
        }
    }

    /// The call that sent `token` upstream.
    pub(crate) fn by_progress_token(&self, token: &ProgressToken) -> Option<Arc<Call>> {
        let calls = self.lock();
        calls
            .iter()
            .find(|call| call.progress_token == *token)
            .cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Call>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether two calls are made for the same client connection: the same `initialize`
/// (one per stateful connection).
fn same_client(a: &Call, b: &Call) -> bool {
    let info = |call: &Call| {
        call.downstream
            .as_ref()
            .and_then(|request| request.peer().peer_info())
    };
    match (info(a), info(b)) {
        (Some(a), Some(b)) => Arc::ptr_eq(&a, &b),
        _ => false,
    }
}

/// A call's place in [`InFlight`], held while it runs.
pub(crate) struct Registration {
    table: Arc<InFlight>,
    call: Arc<Call>,
    peer: Peer<RoleClient>,
    answered: bool,
}

impl Registration {
    /// The upstream answered: nothing to cancel.
    pub(crate) fn answered(&mut self) {
        self.answered = true;
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.table
            .lock()
            .retain(|call| !Arc::ptr_eq(call, &self.call));
        self.call.ended.cancel();
        if !self.answered {
            let peer = self.peer.clone();
            let cancelled = CancelledNotificationParam::new(
                Some(self.call.id.clone()),
                Some("the call was cancelled or timed out".to_owned()),
            );
            // A drop cannot wait: the notice goes out on its own task, if a runtime is there.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = peer.notify_cancelled(cancelled).await;
                });
            }
        }
    }
}
