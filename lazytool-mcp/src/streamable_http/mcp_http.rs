//! The streamable HTTP server of an [`McpServer`]: [`McpHttp`], its options and its routes
//! (its accept loop is `serve_http.rs`).

use std::sync::Arc;
use std::time::Duration;

use http::request::Parts;
use lazytool_runtime::CancellationToken;

use super::access::AccessCell;
use super::auth::Authentication;
use super::failed_auth::{self, FailedAuthentications};
use super::forwarded::Edge;
use super::health::Readiness;
use super::limits::HttpLimits;
use super::metrics::HttpMetrics;
use super::origin::OriginPattern;
use super::page::Render;
use super::trail_metrics;
use crate::Principal;
use crate::PrincipalLimits;
use crate::server::McpServer;

/// The path [`McpHttp::router`] and [`McpHttp::serve`] serve MCP at.
pub const MCP_PATH: &str = "/mcp";

/// The path [`McpHttp::router`] answers `GET /metrics` at, in Prometheus text.
pub const METRICS_PATH: &str = "/metrics";

/// An [`McpServer`] served over MCP's streamable HTTP transport, at [`MCP_PATH`].
///
/// - Clients of protocol versions with a handshake (up to 2025-11-25) get a session
///   (`Mcp-Session-Id`), each with its own lazy discovery, `notifications/tools/list_changed`
///   and `DELETE` to end it; a session idle for
///   [`session_idle_timeout`](McpHttp::session_idle_timeout) is closed. Clients of 2026-07-28
///   are served statelessly: the same call-through tool list on every request (see
///   [`McpConnection`](crate::McpConnection)).
/// - Security: a request whose `Origin` is not allowed gets 403 (default: `http`/`https` on
///   `localhost`, `127.0.0.1` and `[::1]`; requests without `Origin` pass), and whose `Host`
///   is not allowed 403 too (default: the same hosts); with tokens, one without a valid
///   `Authorization: Bearer` gets 401; a body over the server's
///   [`max_line_bytes`](McpServer::max_line_bytes) gets 413 with a JSON-RPC error; a body that
///   is not a JSON-RPC message gets 400 with a JSON-RPC error carrying its id when it can be
///   read. The server keeps serving after each.
/// - Bounds ([`HttpLimits`]): connections, sessions (overall and per principal), long-lived
///   streams, header and body read times; a client over a bound gets 503 (or 429) with
///   `Retry-After` and a JSON-RPC error, a slow one is cut.
/// - Routes beside MCP ([`router`](McpHttp::router)): `GET /healthz` and `GET /readyz`
///   (no token, any host: balancers probe them) and `GET /metrics` (Prometheus text, behind
///   the same Origin, Host and token checks as MCP).
/// - Shutdown ([`serve_with_shutdown`](McpHttp::serve_with_shutdown),
///   [`shutdown_on`](McpHttp::shutdown_on)): accepting stops, `/readyz` says 503, long-lived
///   streams end, requests in flight run to their end within the drain timeout, then sessions
///   end and serving returns.
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
// Its methods by concept: its service and router in `serving_parts.rs`, the edge (public URL,
// trusted proxies, failed authentication) in `edge_settings.rs`, reloadable access in
// `access_reload.rs`, its accept loop in `serve_http.rs`.
pub struct McpHttp {
    pub(super) server: McpServer,
    pub(super) auth: Authentication,
    pub(super) origins: Vec<OriginPattern>,
    /// `None`: the loopback names.
    pub(super) hosts: Option<Vec<String>>,
    pub(super) max_body_bytes: Option<usize>,
    pub(super) limits: HttpLimits,
    pub(super) shutdown: CancellationToken,
    pub(super) readiness: Readiness,
    pub(super) metrics: HttpMetrics,
    pub(super) call_limits: Option<PrincipalLimits>,
    /// Set by [`reloadable_access`](McpHttp::reloadable_access): what requests read instead
    /// of `auth` and `call_limits`.
    pub(super) access: Option<AccessCell>,
    /// The application's pages ([`McpHttp::page`]).
    pub(super) pages: Vec<(&'static str, Render)>,
    /// The URL clients use and the proxies whose forwarded headers count.
    pub(super) edge: Edge,
    /// Failed authentication per client address, shared by every route's gate.
    pub(super) failed_auth: Arc<FailedAuthentications>,
    /// Set by [`McpHttp::shared_store`].
    #[cfg(feature = "redis")]
    pub(super) shared_store: Option<crate::shared::SharedStore>,
}

impl McpHttp {
    /// HTTP serving for `server`: no token required, localhost origins and hosts, the server's
    /// message limit as the body limit, the default [`HttpLimits`]. Same as
    /// [`McpServer::http`].
    ///
    /// ```
    /// use lazytool_mcp::{McpHttp, McpServer};
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let http = McpHttp::new(McpServer::new(registry));
    /// ```
    pub fn new(server: McpServer) -> Self {
        let mut metrics = HttpMetrics::default();
        if let Some(log) = server.audit_log() {
            metrics.add_registrar(trail_metrics::audit(log));
        }
        McpHttp {
            server,
            auth: Authentication::default(),
            origins: OriginPattern::localhost(),
            hosts: None,
            max_body_bytes: None,
            limits: HttpLimits::default(),
            shutdown: CancellationToken::new(),
            readiness: Readiness::default(),
            metrics,
            call_limits: None,
            access: None,
            pages: Vec::new(),
            edge: Edge::default(),
            failed_auth: Arc::new(FailedAuthentications::new(failed_auth::default_rate())),
            #[cfg(feature = "redis")]
            shared_store: None,
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

    /// Accepts the bearer token whose SHA-256 digest is `digest` as `principal`: a
    /// configuration file then need not hold the token itself.
    ///
    /// ```
    /// use lazytool_mcp::Principal;
    /// use sha2::{Digest, Sha256};
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let digest: [u8; 32] = Sha256::digest(b"a-secret").into();
    /// let http = server.http().bearer_token_digest_for(digest, Principal::new("alice"));
    /// ```
    pub fn bearer_token_digest_for(mut self, digest: [u8; 32], principal: Principal) -> Self {
        self.auth.add_digest(digest, principal);
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

    /// Also accepts bearer tokens that are JWTs of `oidc`'s issuer, each request's principal
    /// named by the token's `sub` (or the configured claim) and restricted by `oidc`'s
    /// [`ClaimRule`](crate::ClaimRule)s; serves the RFC 9728 protected-resource metadata
    /// naming the issuer at [`METADATA_PATH`](crate::METADATA_PATH) (and its form suffixed
    /// with [`MCP_PATH`]); answers a request without a valid token 401 with
    /// `WWW-Authenticate: Bearer resource_metadata="..."`, as the MCP authorization spec
    /// says. Static tokens keep working beside it.
    ///
    /// ```
    /// use lazytool_mcp::{ClaimRule, Oidc};
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let oidc = Oidc::issuer("https://login.example.com")
    ///     .audience("lazytool")
    ///     .rule(ClaimRule::new().when("groups", "admins"));
    /// let http = server.http().bearer_token("a-static-token").oidc(oidc);
    /// ```
    #[cfg(feature = "oidc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oidc")))]
    pub fn oidc(mut self, oidc: super::oidc::Oidc) -> Self {
        let rules = oidc.rules();
        if !rules.is_empty() {
            let offers = Arc::clone(&rules);
            self.server = self
                .server
                .allow_for(move |principal, tool| {
                    issuer_claims(principal)
                        .is_none_or(|claims| super::oidc::allows(&rules, claims, tool.name()))
                })
                .allow_offers_for(move |principal, name| {
                    issuer_claims(principal)
                        .is_none_or(|claims| super::oidc::allows(&offers, claims, name))
                });
        }
        self.auth.oidc = Some(oidc.served_at(MCP_PATH));
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
    /// 404, and the client starts a new session); default:
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`](crate::DEFAULT_SESSION_IDLE_TIMEOUT).
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().session_idle_timeout(std::time::Duration::from_secs(600));
    /// ```
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.session_idle_timeout = timeout;
        self
    }

    /// The resource bounds: connections, sessions, streams, read and drain timeouts.
    ///
    /// ```
    /// use lazytool_mcp::HttpLimits;
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().limits(HttpLimits::default().max_sessions(100).max_connections(128));
    /// ```
    pub fn limits(mut self, limits: HttpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Limits each principal's tool calls: a `tools/call` over its principal's limits is
    /// answered 429 with `Retry-After` and a JSON-RPC error saying which limit and when to
    /// retry ([`LimitExceeded`](crate::LimitExceeded)), before MCP sees it; refusals are
    /// counted on `/metrics` (`lazytool_principal_limit_refused_total`). Only `tools/call`
    /// is limited: listing and discovery's own messages are not. See [`PrincipalLimits`].
    ///
    /// ```
    /// use lazytool_mcp::{CallQuota, PrincipalLimits, Rate};
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let limits = PrincipalLimits::new(CallQuota::default().rate(Rate::new(2.0, 5).unwrap()));
    /// let http = server.http().principal_limits(limits);
    /// ```
    pub fn principal_limits(mut self, limits: PrincipalLimits) -> Self {
        #[cfg(feature = "redis")]
        let mut limits = limits;
        #[cfg(feature = "redis")]
        if let Some(store) = &self.shared_store {
            limits.store = Some(store.clone());
        }
        if limits.limits_anyone() {
            if self.call_limits.is_none() {
                self.metrics
                    .add_registrar(trail_metrics::principal_limits(&limits));
            }
            self.call_limits = Some(limits);
        }
        self
    }

    /// Decides every principal's limits ([`principal_limits`](McpHttp::principal_limits)) in
    /// `store`, which every replica shares: a principal's calls are counted together,
    /// whichever replica they reach, by one round trip per `tools/call` (the keys
    /// `bucket:principal:NAME` and `leases:principal:NAME`, `NAME` the principal's
    /// [name](crate::Principal::name)). Refusals keep their shape: 429 with `Retry-After`
    /// and the JSON-RPC error of [`LimitExceeded`](crate::LimitExceeded).
    ///
    /// While the store is down, its [`FailurePolicy`](crate::FailurePolicy) decides: each
    /// replica applies the limits alone (`/readyz` stays 200, its body saying
    /// `shared store down: local limits`), or limited calls get 503 with `Retry-After`
    /// (`/readyz` answers 503). `/metrics` has `lazytool_shared_store_up`. The server starts
    /// whether or not the store answers. Set it before
    /// [`reloadable_access`](McpHttp::reloadable_access): the limits a reload brings are
    /// decided in the same store.
    ///
    /// ```
    /// use lazytool_mcp::{CallQuota, PrincipalLimits, Rate, SharedStore};
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let store = SharedStore::new("redis://10.0.0.5:6379").unwrap();
    /// let limits = PrincipalLimits::new(CallQuota::default().rate(Rate::new(1.0, 60).unwrap()));
    /// let http = server.http().principal_limits(limits).shared_store(store);
    /// ```
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn shared_store(mut self, store: crate::shared::SharedStore) -> Self {
        if self.shared_store.is_none() {
            self.metrics
                .add_registrar(super::store_metrics::registrar(&store));
        }
        if let Some(limits) = &mut self.call_limits {
            limits.store = Some(store.clone());
        }
        self.shared_store = Some(store);
        self
    }

    /// Serves `GET path` with the HTML `render` returns at each request, behind the same
    /// Origin, Host and token checks as MCP (any principal's token), with a content security
    /// policy that lets the page load nothing (inline styles only) and `Cache-Control:
    /// no-store`. What the gateway's `--status-page` serves.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().bearer_token("a-token").page("/status", || "<!doctype html><title>ok</title>".to_owned());
    /// ```
    pub fn page(
        mut self,
        path: &'static str,
        render: impl Fn() -> String + Send + Sync + 'static,
    ) -> Self {
        self.pages.push((path, Arc::new(render)));
        self
    }

    /// What `GET /readyz` reports (besides 503 while draining); default: ready.
    ///
    /// ```
    /// use lazytool_mcp::Readiness;
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let ready = Readiness::new(false);
    /// let http = server.http().readiness(ready.clone());
    /// ready.set(true); // once the application can serve
    /// ```
    pub fn readiness(mut self, readiness: Readiness) -> Self {
        self.readiness = readiness;
        self
    }

    /// Registers an application's own metrics for `GET /metrics`, beside the server's
    /// (`lazytool_http_*`): `register` is called with the registry each time a router is
    /// built; keep the metrics' handles to update them.
    ///
    /// ```
    /// use lazytool_mcp::prometheus_client::metrics::{family::Family, gauge::Gauge};
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// // A gateway's upstream states: 1 when the server is up.
    /// let upstream_up = Family::<Vec<(String, String)>, Gauge>::default();
    /// let registered = upstream_up.clone();
    /// let http = server.http().register_metrics(move |registry| {
    ///     registry.register("lazytool_upstream_up", "Whether an upstream server is up", registered.clone());
    /// });
    /// upstream_up.get_or_create(&vec![("server".into(), "github".into())]).set(1);
    /// ```
    pub fn register_metrics(
        mut self,
        register: impl Fn(&mut prometheus_client::registry::Registry) + Send + Sync + 'static,
    ) -> Self {
        self.metrics.add_registrar(Arc::new(register));
        self
    }

    /// Starts a graceful shutdown when `token` is cancelled: accepting stops, long-lived
    /// streams end, requests in flight finish within the
    /// [drain timeout](HttpLimits::drain_timeout), then sessions end and
    /// [`serve`](McpHttp::serve) returns. A [`service`](McpHttp::service) mounted in another
    /// server drains the same way, its own server closing the connections.
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

    pub(super) fn server_mut(&mut self) -> &mut McpServer {
        &mut self.server
    }

    pub(super) fn body_limit(&self) -> usize {
        self.max_body_bytes
            .unwrap_or_else(|| self.server.max_message_bytes())
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
            .field("limits", &self.limits)
            .field("readiness", &self.readiness)
            .finish_non_exhaustive()
    }
}

/// The claims of an issuer's principal; `None` for a principal of another source, which the
/// issuer's rules do not restrict.
#[cfg(feature = "oidc")]
fn issuer_claims(principal: &Principal) -> Option<&rmcp::model::JsonObject> {
    principal.issuer().and(principal.claims())
}
