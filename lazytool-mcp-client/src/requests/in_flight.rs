//! The calls forwarded to one upstream and not yet answered, which its requests and
//! progress notifications belong to: [`InFlight`].

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::model::{CancelledNotificationParam, ProgressToken, RequestId};
use rmcp::service::InboundStreamOrigin;
use rmcp::{Peer, RoleClient};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use lazytool_mcp_core::McpRequest;

/// The calls in flight on one upstream connection, oldest first.
pub(crate) struct InFlight {
    calls: Mutex<Vec<Arc<Call>>>,
    /// Bumped when a call is sent or leaves.
    changed: watch::Sender<u64>,
}

impl Default for InFlight {
    fn default() -> Self {
        InFlight {
            calls: Mutex::default(),
            changed: watch::Sender::new(0),
        }
    }
}

/// One `tools/call` sent upstream.
pub(crate) struct Call {
    /// Its JSON-RPC id on the upstream connection and the progress token it carries there
    /// (rmcp gives every request one), once sent.
    sent: OnceLock<(RequestId, ProgressToken)>,
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
    /// Records a call about to be sent, until the returned registration is dropped. A call
    /// is recorded before it is sent, so that nothing the server says about it can come
    /// first; [`Registration::sent`] completes the record.
    pub(crate) fn register(
        self: &Arc<Self>,
        downstream: Option<McpRequest>,
        deadline: Instant,
        peer: Peer<RoleClient>,
    ) -> Registration {
        let call = Arc::new(Call {
            sent: OnceLock::new(),
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
    /// Waits while a call is being sent (its id not known yet).
    pub(crate) async fn owner(&self, origin: Option<&InboundStreamOrigin>) -> Owner {
        let calls = self.settled().await;
        if let Some(InboundStreamOrigin::OutboundRequest(id)) = origin {
            return match calls.iter().find(|call| call.id() == Some(id)) {
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

    /// The call that sent `token` upstream (waiting while a call is being sent).
    pub(crate) async fn by_progress_token(&self, token: &ProgressToken) -> Option<Arc<Call>> {
        let calls = self.settled().await;
        calls
            .iter()
            .find(|call| call.sent.get().is_some_and(|(_, sent)| sent == token))
            .cloned()
    }

    /// The calls in flight once none is halfway sent. A call is sent (or given up) as
    /// soon as rmcp has queued it, so the wait is short.
    async fn settled(&self) -> Vec<Arc<Call>> {
        let mut changes = self.changed.subscribe();
        loop {
            let calls = self.lock().clone();
            if calls.iter().all(|call| call.sent.get().is_some()) {
                return calls;
            }
            if changes.changed().await.is_err() {
                return calls;
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Call>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Call {
    fn id(&self) -> Option<&RequestId> {
        self.sent.get().map(|(id, _)| id)
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
    /// The call went out as request `id` with `progress_token`.
    pub(crate) fn sent(&self, id: RequestId, progress_token: ProgressToken) {
        let _ = self.call.sent.set((id, progress_token));
        self.table
            .changed
            .send_modify(|generation| *generation += 1);
    }

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
        self.table
            .changed
            .send_modify(|generation| *generation += 1);
        self.call.ended.cancel();
        if let (false, Some(id)) = (self.answered, self.call.id()) {
            let peer = self.peer.clone();
            let cancelled = CancelledNotificationParam::new(
                Some(id.clone()),
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
