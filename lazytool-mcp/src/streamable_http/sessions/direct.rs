//! [`DirectSessions`]: rmcp's `SessionManager` with no task between the HTTP requests and a
//! session's service: a request goes into the service's input, and the service's answer is
//! routed to the request's SSE stream as it is sent ([`SessionTransport`], [`Routes`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures_core::Stream;
use http::request::Parts;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetExtensions, JsonRpcRequest, ServerJsonRpcMessage,
};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::common::server_side_http::session_id;
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::{Peer, RoleServer};
use sync_wrapper::SyncFuture;
use tokio::sync::mpsc;

use super::direct_call::{Calls, DirectCall};
use super::events::Events;
use super::routes::{self, ResumeError, Routes};
use super::transport::{SessionTransport, SharedRoutes};
use crate::connection::{McpConnection, PlainCall};
use crate::request_facts::admitted_in;
use crate::streamable_http::handler_call::{Call, handler_call};

/// The sessions of one server, in memory.
pub(crate) struct DirectSessions {
    sessions: RwLock<HashMap<SessionId, Session>>,
    idle_timeout: Duration,
    retry: Option<Duration>,
}

/// What the HTTP side holds of a session.
#[derive(Clone)]
struct Session {
    input: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    routes: SharedRoutes,
    /// The session's handler, which the HTTP side calls itself ([`DirectCall`]): a handle on
    /// the one the service holds. `None` for a session restored from the shared store, whose
    /// connection rmcp makes after its transport.
    handler: Option<Arc<McpConnection>>,
    calls: Calls,
}

/// Why a session cannot take a request.
#[derive(Debug)]
pub(crate) enum SessionError {
    NotFound(SessionId),
    /// The session's service has stopped.
    Closed(SessionId),
    /// `initialize_session` or `create_stream` given something other than a request.
    NotARequest,
    /// The service stopped before it answered the handshake.
    NoAnswer,
    Resume(String, ResumeError),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::NotFound(id) => write!(f, "session {id} not found"),
            SessionError::Closed(id) => write!(f, "session {id} is closed"),
            SessionError::NotARequest => f.write_str("expected a JSON-RPC request"),
            SessionError::NoAnswer => f.write_str("the session stopped before it answered"),
            SessionError::Resume(id, ResumeError::Malformed) => {
                write!(f, "`{id}` is not an event id of this server")
            }
            SessionError::Resume(id, ResumeError::Gone) => {
                write!(f, "the stream of event {id} is no longer kept")
            }
        }
    }
}

impl std::error::Error for SessionError {}

impl DirectSessions {
    /// Sessions closed after `idle_timeout` without a message or a request in flight, whose
    /// request streams start with a priming event carrying `retry` (SEP-1699), if any.
    pub(crate) fn new(idle_timeout: Duration, retry: Option<Duration>) -> Self {
        DirectSessions {
            sessions: RwLock::default(),
            idle_timeout,
            retry,
        }
    }

    /// A session `id` in memory answered by `handler` (if the HTTP side may call it), and
    /// its service's side.
    fn open(&self, id: SessionId, handler: Option<McpConnection>) -> SessionTransport {
        let (input, incoming) = mpsc::unbounded_channel();
        let routes = SharedRoutes::new(Routes::new(self.retry));
        let transport = SessionTransport::new(incoming, routes.clone(), self.idle_timeout);
        let session = Session {
            input,
            routes,
            handler: handler.map(Arc::new),
            calls: Calls::default(),
        };
        self.sessions
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, session);
        transport
    }

    /// A new session answered by `handler`, a handle on the connection rmcp is about to
    /// serve it with.
    pub(crate) fn create_session_for(
        &self,
        handler: Option<McpConnection>,
    ) -> (SessionId, SessionTransport) {
        let id = session_id();
        let transport = self.open(id.clone(), handler);
        (id, transport)
    }

    fn session(&self, id: &SessionId) -> Result<Session, SessionError> {
        self.sessions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    /// Opens `message`'s stream and hands the message to the session's service.
    fn push_request(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
        primed: bool,
    ) -> Result<mpsc::Receiver<ServerSseMessage>, SessionError> {
        if !routes::is_request(&message) {
            return Err(SessionError::NotARequest);
        }
        let session = self.session(id)?;
        let events = session.routes.lock().open(&message, primed);
        session
            .input
            .send(message)
            .map_err(|_| SessionError::Closed(id.clone()))?;
        Ok(events)
    }

    /// Session `id`'s handler, to answer its requests in the caller's task ([`DirectCall`]);
    /// `None` when the session is not here, or cannot be called so (restored, or not past its
    /// handshake).
    pub(crate) fn direct(&self, id: &SessionId) -> Option<Direct> {
        // Only what a call needs is cloned (not the session's input, as `session` would).
        let sessions = self
            .sessions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let session = sessions.get(id)?;
        let handler = session.handler.as_ref()?;
        Some(Direct {
            peer: handler.peer()?,
            handler: Arc::clone(handler),
            routes: session.routes.clone(),
            calls: session.calls.clone(),
        })
    }
}

/// A session's handler, which the HTTP side calls itself.
pub(crate) struct Direct {
    handler: Arc<McpConnection>,
    peer: Peer<RoleServer>,
    routes: SharedRoutes,
    calls: Calls,
}

impl Direct {
    /// The stream answering `request` (the HTTP request's parts in its extensions).
    /// A [`PlainCall`] is answered without the handler once the session's version is known.
    pub(crate) fn call(self, mut request: JsonRpcRequest<ClientRequest>) -> DirectCall {
        let events = self.routes.lock().open_request(&request, true);
        // Cancelled when the client cancels it, or when the session ends (and once answered,
        // by the handler: what the handler's tool left running stops then).
        let cancellation = self.handler.input_closed().child_token();
        let in_flight = self.calls.enter(request.id.clone(), cancellation.clone());
        let version = (self.peer.peer_info()).map(|info| info.protocol_version.clone());
        let plain = version.and_then(|version| {
            PlainCall::take(&mut request, self.handler.server()).map(|plain| (version, plain))
        });
        let call: Call = match plain {
            Some((version, plain)) => {
                let parts = request.request.extensions().get::<Parts>();
                let admitted = parts.and_then(admitted_in).cloned();
                drop(request);
                let answer = plain.answer_in_session(
                    self.handler,
                    self.peer,
                    version,
                    admitted,
                    cancellation,
                );
                Box::pin(answer)
            }
            None => handler_call(self.handler, self.peer, request, cancellation),
        };
        DirectCall {
            call: Some(SyncFuture::new(call)),
            delivering: None,
            routes: self.routes,
            events: Events::answering(events),
            in_flight: Some(in_flight),
        }
    }
}

impl SessionManager for DirectSessions {
    type Error = SessionError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, SessionTransport), SessionError> {
        Ok(self.create_session_for(None))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<SessionTransport>, SessionError> {
        if self.has_session(&id).await? {
            return Ok(RestoreOutcome::AlreadyPresent);
        }
        Ok(RestoreOutcome::Restored(self.open(id, None)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionError> {
        let message = with_session_id(id, message);
        // rmcp sends the answer to the handshake itself, with its own priming event.
        let mut events = self.push_request(id, message, false)?;
        while let Some(event) = events.recv().await {
            if let Some(message) = event.message {
                return Ok(Arc::unwrap_or_clone(message));
            }
        }
        Err(SessionError::NoAnswer)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionError> {
        Ok(self
            .sessions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionError> {
        // The service's input ends: its loop stops, and with the routes every stream ends.
        self.sessions
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id);
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        self.push_request(id, message, true).map(Events::answering)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        let session = self.session(id)?;
        session.routes.lock().received(&message);
        session.calls.received(&message);
        session
            .input
            .send(message)
            .map_err(|_| SessionError::Closed(id.clone()))
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let session = self.session(id)?;
        let events = session.routes.lock().standalone();
        Ok(Events::new(events))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let session = self.session(id)?;
        let events = session
            .routes
            .lock()
            .resume(&last_event_id)
            .map_err(|error| SessionError::Resume(last_event_id.clone(), error))?;
        Ok(Events::new(events))
    }
}

/// The handshake with the id of the session it opens among its HTTP headers, as every later
/// request of the session carries it: the audit trail's `login` line names its session.
fn with_session_id(id: &SessionId, mut message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
    if let ClientJsonRpcMessage::Request(request) = &mut message
        && let Some(parts) = request
            .request
            .extensions_mut()
            .get_mut::<http::request::Parts>()
        && let Ok(value) = http::HeaderValue::from_str(id)
    {
        parts.headers.insert(HEADER_SESSION_ID, value);
    }
    message
}
