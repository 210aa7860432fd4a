//! One client connection (or HTTP session, or stateless HTTP request) served as an rmcp
//! [`ServerHandler`](rmcp::ServerHandler) (`connection/server_handler.rs`): stateful requests
//! by the connection's [`Session`], stateless ones by a fresh call-through session each.

use std::sync::Arc;

use lazytool_runtime::{CancellationToken, Session};
use rmcp::model::ErrorData;
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};

use crate::Principal;
use crate::access_epoch::AccessEpoch;
use crate::bound_session::{Bound, Relisted};
use crate::connection_state::ConnectionState;
use crate::request_facts::{access_epoch, is_stateless, principal};
use crate::server::McpServer;

/// One MCP connection, HTTP session or stateless HTTP request.
///
/// - Requests of protocol versions with a handshake (up to 2025-11-25) are stateful: the
///   connection's own [`Session`], bound to the principal of its `initialize`, so what one
///   client discovers is listed and callable on its connection only, and announced with
///   `notifications/tools/list_changed`. A discovered tool is callable as soon as its
///   discovery has been answered (the answer carries its schema), whether or not the client
///   lists the tools again. A request of another principal is refused.
/// - Requests of 2026-07-28 and later are stateless (no handshake, no sessions): each is
///   answered by a fresh session with
///   [`call_through`](lazytool_runtime::SessionOptions::call_through), gated for the
///   request's principal only, so `tools/list` is the same for every request of that
///   principal and carries `ttlMs`.
///
/// [`McpServer::serve`](crate::McpServer::serve) makes one per connection and
/// [`McpHttp`](crate::McpHttp) one per HTTP session or stateless request. To serve over
/// another rmcp transport, hand rmcp one from
/// [`McpServer::connection`](crate::McpServer::connection): it implements
/// [`rmcp::ServerHandler`]. Only `serve`, `serve_stdio` and `McpHttp` answer malformed input
/// that rmcp itself drops.
///
/// ```rust,no_run
/// use lazytool_mcp::rmcp::ServiceExt;
/// use lazytool_mcp::{McpConnection, McpServer};
///
/// # async fn run(server: McpServer, stream: tokio::io::DuplexStream) -> Result<(), Box<dyn std::error::Error>> {
/// let connection: McpConnection = server.connection();
/// let running = connection.serve(stream).await?;
/// running.waiting().await?;
/// # Ok(()) }
/// ```
pub struct McpConnection {
    server: Arc<McpServer>,
    /// The stateful session, its log level and subscriptions.
    state: Arc<ConnectionState>,
    /// Cancelled when the client's input ends: rmcp waits for open `subscriptions/listen`
    /// requests before it closes, which would otherwise take its 5 s drain timeout.
    input_closed: CancellationToken,
}

impl McpConnection {
    pub(crate) fn new(server: Arc<McpServer>) -> Self {
        let input_closed = CancellationToken::new();
        McpConnection {
            state: Arc::new(ConnectionState::new(
                Arc::clone(&server),
                input_closed.clone(),
            )),
            server,
            input_closed,
        }
    }

    /// Another handle on this connection (the same server, state and input): a stateless
    /// lane calls the handler through it while rmcp's service of the lane holds this one.
    #[cfg(feature = "server-http")]
    pub(crate) fn handle(&self) -> McpConnection {
        McpConnection {
            server: Arc::clone(&self.server),
            state: Arc::clone(&self.state),
            input_closed: self.input_closed.clone(),
        }
    }

    /// The client, once the handshake is under way.
    #[cfg(feature = "server-http")]
    pub(crate) fn peer(&self) -> Option<Peer<RoleServer>> {
        self.state.peer.get().cloned()
    }

    /// The server it serves.
    #[cfg(feature = "server-http")]
    pub(crate) fn server(&self) -> &McpServer {
        &self.server
    }

    pub(crate) fn input_closed(&self) -> CancellationToken {
        self.input_closed.clone()
    }

    /// The connection's stateful session: what it discovered so far, say. `None` until a
    /// stateful request (or [`McpServer::connection`](crate::McpServer::connection), for the
    /// anonymous principal) created it.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let connection = McpServer::new(registry).connection();
    /// let discovered = connection.session().map(|session| session.discovered().tools);
    /// assert_eq!(discovered, Some(Vec::new()));
    /// ```
    pub fn session(&self) -> Option<Arc<Session>> {
        (self.state.bound.get()).map(|bound| bound.session(&self.server))
    }

    /// Creates the stateful session for `principal`, unless one exists.
    pub(crate) fn bind(&self, principal: &Principal) {
        self.stateful(principal, AccessEpoch::default()).ok();
    }

    /// The stateful session, created for `principal` by its first request, with the tools
    /// this request of `principal` under `epoch` may use, and whether they changed.
    fn stateful(
        &self,
        principal: &Principal,
        epoch: AccessEpoch,
    ) -> Result<(Arc<Session>, Relisted), ErrorData> {
        let bound = (self.state.bound).get_or_init(|| Bound::new(&self.server, principal, epoch));
        if bound.principal == *principal {
            Ok(bound.session_for(&self.server, principal, epoch))
        } else {
            tracing::warn!(target: "lazytool::mcp", principal = principal.name(), "refusing a request for another principal's session");
            Err(ErrorData::invalid_request(
                "this MCP session belongs to another principal",
                None,
            ))
        }
    }

    /// The session answering one request: the connection's own, held to the request's
    /// claims (its client told when that changed its tools), or for a stateless request a
    /// fresh call-through one (cheap: ungated sessions share their presentation).
    fn session_for(&self, context: &RequestContext<RoleServer>) -> Result<Served, ErrorData> {
        let principal = principal(context);
        if is_stateless(context) {
            return Ok(Served::Stateless(Box::new(
                self.server.stateless_session(&principal),
            )));
        }
        let session = self.stateful_served(&principal, access_epoch(context), &context.peer)?;
        Ok(Served::Stateful(session))
    }

    /// The stateful session answering a request of `principal` under `epoch`, its client
    /// (`peer`) told when that changed its tools.
    fn stateful_served(
        &self,
        principal: &Principal,
        epoch: AccessEpoch,
        peer: &Peer<RoleServer>,
    ) -> Result<Arc<Session>, ErrorData> {
        let (session, relisted) = self.stateful(principal, epoch)?;
        self.state.touched();
        if relisted == Relisted::Changed {
            let peer = peer.clone();
            tokio::spawn(async move {
                if let Err(error) = peer.notify_tool_list_changed().await {
                    tracing::debug!(target: "lazytool::mcp", %error, "cannot send tools/list_changed");
                }
            });
        }
        Ok(session)
    }

    /// The stateful session answering a call of the tool `name`, as
    /// [`stateful_served`](McpConnection::stateful_served), caught up first with what the
    /// session discovered on another replica if `name` is a lazy tool it has not discovered
    /// here.
    async fn calling(
        &self,
        principal: &Principal,
        epoch: AccessEpoch,
        peer: &Peer<RoleServer>,
        name: &str,
    ) -> Result<Arc<Session>, ErrorData> {
        let session = self.stateful_served(principal, epoch, peer)?;
        if self.state.catch_up(name).await {
            return self.stateful_served(principal, epoch, peer);
        }
        Ok(session)
    }
}

impl McpConnection {
    /// Sends `notifications/tools/list_changed` to a stateful client whenever the catalog
    /// changes, until its input ends. A fixed catalog has no sender left: nothing is spawned.
    fn announce_catalog_changes(&self, peer: Peer<RoleServer>) {
        let mut catalog = self.server.catalog();
        if catalog.has_changed().is_err() {
            return;
        }
        catalog.mark_unchanged();
        let closed = self.input_closed.clone();
        tokio::spawn(async move {
            while let Some(Ok(())) = closed.run_until_cancelled(catalog.changed()).await {
                if let Err(error) = peer.notify_tool_list_changed().await {
                    tracing::debug!(target: "lazytool::mcp", %error, "cannot send tools/list_changed");
                    return;
                }
            }
        });
    }
}

/// The session a request is answered by.
enum Served {
    Stateful(Arc<Session>),
    // Boxed: a session is a few hundred bytes, the stateful handle one pointer.
    Stateless(Box<Session>),
}

impl Served {
    fn session(&self) -> &Session {
        match self {
            Served::Stateful(session) => session,
            Served::Stateless(session) => session,
        }
    }
}

impl McpServer {
    /// A new connection with a fresh session for the anonymous principal, for serving over
    /// another rmcp transport.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
    /// use serde_json::{Value, json};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let echo = DynamicTool::new("echo", "Returns its input.", json!({"type": "object"}), |arguments: Value, _| async {
    ///     Ok::<_, String>(arguments)
    /// })
    /// .lazy(true);
    /// let registry = Registry::builder().without_inventory().tool(echo).build().unwrap();
    /// let server = McpServer::new(registry);
    /// let (first, second) = (server.connection(), server.connection());
    /// let (first, second) = (first.session().unwrap(), second.session().unwrap());
    ///
    /// // What one connection discovers, the other does not see.
    /// first.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["echo"]})).await;
    /// assert_eq!(first.discovered().tools, ["echo"]);
    /// assert!(second.discovered().tools.is_empty());
    /// # }
    /// ```
    pub fn connection(&self) -> McpConnection {
        let connection = McpConnection::new(Arc::new(self.clone()));
        connection.bind(&Principal::anonymous());
        connection
    }
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("session", &self.session())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "server-http")]
mod plain_call;
#[cfg(feature = "server-http")]
mod routine;
#[cfg(feature = "server-http")]
pub(crate) use plain_call::PlainCall;
mod server_handler;
