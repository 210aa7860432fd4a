//! MCP over streamable HTTP: [`McpHttp`], on rmcp's streamable HTTP server behind lazytool's
//! guard ([`McpHttpService`]).

mod auth;
mod body;
mod guard;
mod origin;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use http::request::Parts;
use lazytool_runtime::CancellationToken;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};

pub use guard::McpHttpService;
pub use origin::{OriginPattern, OriginPatternError};

use self::auth::Authentication;
use self::guard::Guard;
use crate::connection::McpConnection;
use crate::error::McpError;
use crate::principal::Principal;
use crate::server::McpServer;

/// The path [`McpHttp::router`] and [`McpHttp::serve`] serve MCP at.
pub const MCP_PATH: &str = "/mcp";

/// The default of [`McpHttp::session_idle_timeout`]: 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// An [`McpServer`] served over MCP's streamable HTTP transport, at [`MCP_PATH`].
///
/// - Clients of protocol versions with a handshake (up to 2025-11-25) get a session
///   (`Mcp-Session-Id`), each with its own lazy discovery, `notifications/tools/list_changed`
///   and `DELETE` to end it; a session idle for
///   [`session_idle_timeout`](McpHttp::session_idle_timeout) is closed. Clients of 2026-07-28
///   are served statelessly: the same call-through tool list on every request (see
///   [`McpConnection`]).
/// - Security: a request whose `Origin` is not allowed gets 403 (default: `http`/`https` on
///   `localhost`, `127.0.0.1` and `[::1]`; requests without `Origin` pass), and whose `Host`
///   is not allowed 403 too (default: the same hosts); with tokens, one without a valid
///   `Authorization: Bearer` gets 401; a body over the server's
///   [`max_line_bytes`](McpServer::max_line_bytes) gets 413 with a JSON-RPC error; a body that
///   is not a JSON-RPC message gets 400 with a JSON-RPC error carrying its id when it can be
///   read. The server keeps serving after each.
///
/// ```rust,no_run
/// use lazytool_mcp::{McpServer, Principal};
/// use lazytool_runtime::Registry;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServer::new(Registry::from_inventory()?)
///     .allow_for(|principal, tool| principal.name() == "admin" || !tool.name().starts_with("admin_"));
/// server
///     .http()
///     .bearer_token_for("token-of-alice", Principal::new("alice"))
///     .bearer_token_for("token-of-the-admin", Principal::new("admin"))
///     .allow_origin("https://app.example.com".parse()?)
///     .serve("127.0.0.1:8080")
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[must_use]
pub struct McpHttp {
    server: McpServer,
    auth: Authentication,
    origins: Vec<OriginPattern>,
    /// `None`: the loopback names.
    hosts: Option<Vec<String>>,
    max_body_bytes: Option<usize>,
    session_idle_timeout: Duration,
    shutdown: CancellationToken,
}

impl McpHttp {
    /// HTTP serving for `server`: no token required, localhost origins and hosts, the server's
    /// message limit as the body limit, sessions closed after
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`] of idleness. Same as [`McpServer::http`].
    ///
    /// ```
    /// use lazytool_mcp::{McpHttp, McpServer};
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let http = McpHttp::new(McpServer::new(registry));
    /// ```
    pub fn new(server: McpServer) -> Self {
        McpHttp {
            server,
            auth: Authentication::default(),
            origins: OriginPattern::localhost(),
            hosts: None,
            max_body_bytes: None,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            shutdown: CancellationToken::new(),
        }
    }

    /// Requires `Authorization: Bearer TOKEN`; requests carrying it are of the principal
    /// named `default`. Tokens are compared as SHA-256 digests in constant time.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().bearer_token(std::env::var("MCP_TOKEN").unwrap_or_default());
    /// ```
    pub fn bearer_token(self, token: impl AsRef<str>) -> Self {
        self.bearer_token_for(token, Principal::new("default"))
    }

    /// Accepts `Authorization: Bearer TOKEN` as `principal`; call it once per principal.
    /// [`McpServer::allow_for`] decides what each may use.
    ///
    /// ```
    /// use lazytool_mcp::Principal;
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server
    ///     .http()
    ///     .bearer_token_for("a-secret", Principal::new("alice"))
    ///     .bearer_token_for("b-secret", Principal::new("bob"));
    /// ```
    pub fn bearer_token_for(mut self, token: impl AsRef<str>, principal: Principal) -> Self {
        self.auth.add_token(token.as_ref(), principal);
        self
    }

    /// Authenticates requests with `authenticate` (after the bearer tokens, if any): the
    /// principal of the request, or `None` to refuse it with 401.
    ///
    /// ```
    /// use lazytool_mcp::Principal;
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().authenticate(|request| {
    ///     let user = request.headers.get("x-verified-user")?.to_str().ok()?;
    ///     Some(Principal::new(user))
    /// });
    /// ```
    pub fn authenticate(
        mut self,
        authenticate: impl Fn(&Parts) -> Option<Principal> + Send + Sync + 'static,
    ) -> Self {
        self.auth.set_custom(Arc::new(authenticate));
        self
    }

    /// Also accepts requests from browsers on `origin`.
    ///
    /// ```
    /// # fn main() -> Result<(), lazytool_mcp::OriginPatternError> {
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().allow_origin("https://app.example.com".parse()?);
    /// # Ok(()) }
    /// ```
    pub fn allow_origin(mut self, origin: OriginPattern) -> Self {
        self.origins.push(origin);
        self
    }

    /// The `Host` headers accepted (names or `name:port`), instead of the loopback names: a
    /// server reached under a DNS name must list it. An empty list accepts any host.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().allowed_hosts(["tools.internal.example", "10.0.0.7:8080"]);
    /// ```
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// The largest request body accepted, in bytes; default: the server's
    /// [`max_line_bytes`](McpServer::max_line_bytes).
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().max_body_bytes(256 * 1024);
    /// ```
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = Some(max);
        self
    }

    /// How long a session may stay without requests before it is closed (its id then gets
    /// 404, and the client starts a new session).
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().session_idle_timeout(std::time::Duration::from_secs(600));
    /// ```
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Stops serving when `token` is cancelled: open sessions and streams end, and
    /// [`serve`](McpHttp::serve) returns.
    ///
    /// ```
    /// use lazytool_runtime::CancellationToken;
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let stop = CancellationToken::new();
    /// let http = server.http().shutdown_on(stop.clone());
    /// ```
    pub fn shutdown_on(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }

    /// The tower service answering MCP requests on whatever path it is mounted at.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// use tower_service::Service;
    ///
    /// let mut service = server.http().service();
    /// // A browser page of a foreign origin is refused before MCP sees the request.
    /// let request = http::Request::post("/mcp")
    ///     .header("host", "localhost")
    ///     .header("origin", "https://evil.example")
    ///     .body(http_body_util::Full::new(bytes::Bytes::from_static(b"{}")))
    ///     .unwrap();
    /// let response = service.call(request).await.unwrap();
    /// assert_eq!(response.status(), http::StatusCode::FORBIDDEN);
    /// # }
    /// ```
    pub fn service(&self) -> McpHttpService {
        let mut config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_cancellation_token(self.shutdown.clone())
            .with_max_request_body_bytes(self.body_limit());
        if let Some(hosts) = &self.hosts {
            config = config.with_allowed_hosts(hosts.iter().cloned());
        }
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(self.session_idle_timeout);
        let server = Arc::new(self.server.clone());
        let rmcp = StreamableHttpService::new(
            move || Ok(McpConnection::new(Arc::clone(&server))),
            Arc::new(sessions),
            config,
        );
        McpHttpService::new(Guard {
            rmcp,
            origins: self.origins.clone(),
            auth: self.auth.clone(),
            max_body_bytes: self.body_limit(),
        })
    }

    /// An axum router serving MCP at [`MCP_PATH`]; merge it into an application's router.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(server.http().router());
    /// ```
    pub fn router(&self) -> axum::Router {
        axum::Router::new().route_service(MCP_PATH, self.service())
    }

    /// Binds `addr` and serves [`router`](McpHttp::router) until the
    /// [shutdown token](McpHttp::shutdown_on) is cancelled.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// use lazytool_runtime::CancellationToken;
    ///
    /// let stop = CancellationToken::new();
    /// let serving = tokio::spawn(server.http().shutdown_on(stop.clone()).serve("127.0.0.1:0"));
    /// stop.cancel(); // on a signal, say
    /// serving.await.unwrap().unwrap();
    /// # }
    /// ```
    pub async fn serve(self, addr: impl ToSocketAddrs) -> Result<(), McpError> {
        let listener = TcpListener::bind(addr).await.map_err(McpError::Io)?;
        self.serve_on(listener).await
    }

    /// Serves on a bound listener (bind port 0 to let the system pick a free port).
    ///
    /// ```rust,no_run
    /// # async fn run(server: lazytool_mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// println!("serving at http://{}/mcp", listener.local_addr()?);
    /// server.http().serve_on(listener).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_on(self, listener: TcpListener) -> Result<(), McpError> {
        let local = listener.local_addr().map_err(McpError::Io)?;
        self.warn_about_hosts(local);
        tracing::info!(target: "lazytool::mcp", "serving MCP at http://{local}{MCP_PATH}");
        let shutdown = self.shutdown.clone();
        // Answers leave in several writes (an SSE stream's priming event, then the message):
        // with Nagle's algorithm the last one would wait for the client's delayed ACK (40 ms).
        let listener = listener.tap_io(|stream| {
            if let Err(error) = stream.set_nodelay(true) {
                tracing::debug!(target: "lazytool::mcp", %error, "cannot set TCP_NODELAY");
            }
        });
        axum::serve(listener, self.router())
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
            .map_err(McpError::Io)
    }

    fn body_limit(&self) -> usize {
        self.max_body_bytes
            .unwrap_or_else(|| self.server.max_message_bytes())
    }

    fn warn_about_hosts(&self, local: SocketAddr) {
        if !local.ip().is_loopback() && self.hosts.is_none() {
            tracing::warn!(
                target: "lazytool::mcp",
                %local,
                "listening beyond this machine, but only the loopback host names are accepted: set McpHttp::allowed_hosts to the names clients use"
            );
        }
    }
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttp")
            .field("server", &self.server)
            .field("origins", &self.origins)
            .field("hosts", &self.hosts)
            .field("authenticated", &self.auth.is_required())
            .field("max_body_bytes", &self.body_limit())
            .field("session_idle_timeout", &self.session_idle_timeout)
            .finish_non_exhaustive()
    }
}
