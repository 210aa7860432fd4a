//! The transport a session's rmcp service runs on: [`SessionTransport`]. It receives what the
//! HTTP side pushes, routes what the service sends straight to the SSE streams
//! ([`Routes`]), and ends the session once it has been idle for the idle timeout.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::routes::Routes;

/// The routes of a session, shared by its transport and the HTTP side.
#[derive(Clone)]
pub(super) struct SharedRoutes(Arc<Mutex<Routes>>);

impl SharedRoutes {
    pub(super) fn new(routes: Routes) -> Self {
        SharedRoutes(Arc::new(Mutex::new(routes)))
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Routes> {
        // Routes stay consistent between statements: a panic elsewhere leaves them usable.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Routes `message` ([`Routes::route`]) and sends it: the future is `Some` while its stream
    /// has no room for it, and sends it once it has.
    pub(super) fn deliver(
        &self,
        message: ServerJsonRpcMessage,
    ) -> Option<impl Future<Output = ()> + Send + 'static> {
        let delivery = self.lock().route(message);
        delivery.and_then(|delivery| delivery.send())
    }
}

/// A session's side of rmcp's service loop.
pub(crate) struct SessionTransport {
    incoming: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
    routes: SharedRoutes,
    idle_timeout: Duration,
    /// Wakes the session to check whether it has been idle; set once, moved only when it fires.
    idle_check: Pin<Box<Sleep>>,
    /// Cancels its connection's input-closed token when the service drops the transport.
    ended: Option<DropGuard>,
    /// The same, for a restored session, whose connection is made after its transport.
    ended_later: Option<LateEnd>,
}

/// Where a connection made after its session's transport leaves its input-closed token's
/// guard: dropped with the last holder, the transport.
pub(crate) type LateEnd = Arc<Mutex<Option<DropGuard>>>;

impl SessionTransport {
    pub(super) fn new(
        incoming: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
        routes: SharedRoutes,
        idle_timeout: Duration,
    ) -> Self {
        SessionTransport {
            incoming,
            routes,
            idle_timeout,
            idle_check: Box::pin(tokio::time::sleep(idle_timeout)),
            ended: None,
            ended_later: None,
        }
    }

    /// Cancels the token a connection made later leaves in `slot` when the session ends.
    pub(crate) fn cancel_later_when_ended(&mut self, slot: LateEnd) {
        self.ended_later = Some(slot);
    }

    /// Cancels `token` when the session ends (its service drops the transport).
    pub(crate) fn cancel_when_ended(&mut self, token: CancellationToken) {
        self.ended = Some(token.drop_guard());
    }

    /// When the session may next be idle long enough; `None` if it is now.
    fn idle_until(&self) -> Option<Instant> {
        let routes = self.routes.lock();
        let last_active = routes.last_active;
        if routes.answering() {
            return Some(Instant::now() + self.idle_timeout);
        }
        let until = last_active + self.idle_timeout;
        (until > Instant::now()).then_some(until)
    }
}

impl Transport<RoleServer> for SessionTransport {
    type Error = Infallible;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Infallible>> + Send + 'static {
        let waiting = self.routes.deliver(message);
        async move {
            if let Some(waiting) = waiting {
                waiting.await;
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            tokio::select! {
                message = self.incoming.recv() => return message,
                () = self.idle_check.as_mut() => match self.idle_until() {
                    Some(until) => self.idle_check.as_mut().reset(until),
                    None => {
                        tracing::debug!(target: "lazytool::mcp", timeout = ?self.idle_timeout, "closing an idle session");
                        return None;
                    }
                },
            }
        }
    }

    async fn close(&mut self) -> Result<(), Infallible> {
        self.incoming.close();
        Ok(())
    }
}
