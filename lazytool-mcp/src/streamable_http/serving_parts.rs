//! What an [`McpHttp`] serves: its tower service (the guard over rmcp's streamable HTTP
//! service, with the server's sessions, shared with its replicas where a store is set) and
//! its axum router (MCP, health, metrics, the application's pages, the protected-resource
//! metadata).

use std::sync::Arc;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::request::Parts;
use http::{StatusCode, header};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;

use super::access::{Access, AccessCell};
use super::drain::Drain;
use super::gate::Gate;
use super::guard::{Guard, McpHttpService};
use super::health::{self, HEALTHZ_PATH, READYZ_PATH};
use super::mcp_http::{MCP_PATH, METRICS_PATH, McpHttp};
use super::metrics;
use super::page;
use super::sessions::{self, DirectSessions, LimitedSessions, SessionTable};
use super::stateless::Lanes;
use crate::connection::McpConnection;

impl McpHttp {
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
        self.service_draining(&Drain::new(
            self.shutdown.clone(),
            self.limits.drain_timeout,
        ))
    }

    pub(super) fn service_draining(&self, drain: &Drain) -> McpHttpService {
        #[allow(unused_mut)]
        let mut config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_cancellation_token(drain.stopped.clone())
            .with_max_request_body_bytes(self.body_limit())
            // The guard checks Host (for /metrics too): rmcp takes whatever passed.
            .with_allowed_hosts(std::iter::empty::<String>());
        #[allow(unused_mut)]
        let mut server = self.server.clone();
        #[cfg(feature = "redis")]
        if let Some(store) = &self.shared_store {
            let shared =
                crate::shared::SharedSessions::new(store.clone(), self.limits.session_idle_timeout);
            config.session_store = Some(Arc::new(crate::shared::SessionInits(Arc::clone(&shared))));
            server.share_sessions(Arc::new(shared));
        }
        let shared_sessions = server.session_share().cloned();
        let retry = config.sse_retry;
        let keep_alive = config.sse_keep_alive;
        let direct = DirectSessions::new(self.limits.session_idle_timeout, retry);
        let table = SessionTable::new(
            self.limits.max_sessions,
            self.limits.per_principal(),
            self.metrics.sessions.clone(),
        );
        let sessions = Arc::new(LimitedSessions::new(direct, Arc::clone(&table)));
        if let Some(share) = server.session_share() {
            let held = Arc::downgrade(&sessions);
            share.on_ended_elsewhere(Box::new(move |id| {
                let Some(sessions) = held.upgrade() else {
                    return;
                };
                tokio::spawn(async move {
                    if let Err(error) = sessions.close_session(&id.into()).await {
                        tracing::debug!(target: "lazytool::mcp", %error, "cannot close a session ended elsewhere");
                    }
                });
            }));
        }
        let server = Arc::new(server);
        let lanes = Arc::new(Lanes::new(
            Arc::clone(&server),
            drain.stopped.clone(),
            keep_alive,
        ));
        let rmcp = StreamableHttpService::new(
            move || {
                let connection = McpConnection::new(Arc::clone(&server));
                sessions::connection_made(&connection);
                Ok(connection)
            },
            Arc::clone(&sessions),
            config,
        );
        McpHttpService::new(Guard {
            rmcp,
            sessions,
            table,
            gate: self.gate(),
            max_body_bytes: self.body_limit(),
            limits: self.limits,
            streams: Arc::new(Semaphore::new(self.limits.streams_cap())),
            drain: drain.clone(),
            first_events: 1 + usize::from(retry.is_some()),
            hold: Arc::default(),
            lanes,
            keep_alive,
            shared_sessions,
        })
    }

    pub(super) fn gate(&self) -> Arc<Gate> {
        let access = self.access.clone().unwrap_or_else(|| {
            AccessCell::new(Access {
                auth: self.auth.clone(),
                call_limits: self.call_limits.clone(),
                ..Access::default()
            })
        });
        Arc::new(Gate {
            origins: self.origins.clone(),
            hosts: self.hosts.clone(),
            access,
            metrics: self.metrics.clone(),
            audit: self.server.audit_log().cloned(),
            edge: self.edge.clone(),
            failed_auth: Arc::clone(&self.failed_auth),
        })
    }

    /// An axum router serving MCP at [`MCP_PATH`], and `GET` [`HEALTHZ_PATH`],
    /// [`READYZ_PATH`] and [`METRICS_PATH`]; merge it into an application's router.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let app = axum::Router::new()
    ///     .route("/version", axum::routing::get(|| async { env!("CARGO_PKG_VERSION") }))
    ///     .merge(server.http().router());
    /// ```
    pub fn router(&self) -> axum::Router {
        let drain = Drain::new(self.shutdown.clone(), self.limits.drain_timeout);
        self.routes_draining(&drain).0
    }

    /// The router, and the MCP service it serves at [`MCP_PATH`] (for the accept loop to
    /// call without the router).
    pub(super) fn routes_draining(&self, drain: &Drain) -> (axum::Router, McpHttpService) {
        let mcp = self.service_draining(drain);
        let readiness = self.readiness.clone();
        let draining = drain.clone();
        #[cfg(feature = "redis")]
        let store = self.shared_store.clone();
        let gate = self.gate();
        let registry = Arc::new(self.metrics.registry());
        let router = axum::Router::new()
            .route_service(MCP_PATH, mcp.clone())
            .route(HEALTHZ_PATH, get(|| async { health::alive() }))
            .route(
                READYZ_PATH,
                get(move || async move {
                    let ready = readiness.is_ready() && !draining.is_draining();
                    #[cfg(feature = "redis")]
                    if let Some(store) = &store {
                        return health::ready_with_store(ready, store);
                    }
                    health::ready(ready)
                }),
            )
            .route(
                METRICS_PATH,
                get(move |request: Request| async move {
                    let (parts, _) = request.into_parts();
                    metrics_text(&gate, &registry, &parts).await
                }),
            );
        let router = (self.pages.iter()).fold(router, |router, (path, render)| {
            let (gate, render) = (self.gate(), Arc::clone(render));
            router.route(
                path,
                get(move |request: Request| async move {
                    let (parts, _) = request.into_parts();
                    page::answer(&gate, &render, &parts).await
                }),
            )
        });
        #[cfg(feature = "oidc")]
        let router = match &self.auth.oidc {
            Some(oidc) => super::metadata_route::route(router, oidc, self.gate()),
            None => router,
        };
        (router, mcp)
    }
}

/// `GET /metrics`: the registry in Prometheus text, to callers the gate lets through.
async fn metrics_text(
    gate: &Gate,
    registry: &prometheus_client::registry::Registry,
    parts: &Parts,
) -> Response {
    if let Err(refused) = gate.check(parts).await {
        return refused.response();
    }
    match metrics::encode(registry) {
        Ok(text) => ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], text).into_response(),
        Err(error) => {
            tracing::warn!(target: "lazytool::mcp", %error, "cannot encode the metrics");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
