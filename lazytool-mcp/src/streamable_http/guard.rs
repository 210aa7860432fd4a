//! The tower service in front of rmcp's streamable HTTP server: [`McpHttpService`]. It
//! refuses foreign origins (403) and unauthenticated requests (401), reads bodies up to a
//! limit (413), answers what is not a JSON-RPC message with a JSON-RPC error carrying the
//! request id when it can be read (400), and hands the rest to rmcp with the principal in the
//! request's extensions.

use std::convert::Infallible;
use std::fmt::Display;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::header::{ORIGIN, WWW_AUTHENTICATE};
use http::{HeaderValue, Method, Request, StatusCode};
use http_body_util::Full;
use rmcp::model::ErrorCode;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::auth::Authentication;
use super::body::{self, Read, error_response, json_response};
use super::origin::OriginPattern;
use crate::connection::McpConnection;
use crate::decode::{self, Decoded};

/// Serves MCP streamable HTTP on any path it is mounted at, as a tower service (see
/// [`McpHttp::service`](crate::McpHttp::service)). Cheap to clone.
///
/// ```rust,no_run
/// use lazytool_mcp::McpServer;
///
/// # async fn run(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// let app = axum::Router::new().route_service("/tools/mcp", server.http().service());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, app).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpHttpService(Arc<Guard>);

pub(super) struct Guard {
    pub(super) rmcp: StreamableHttpService<McpConnection, LocalSessionManager>,
    pub(super) origins: Vec<OriginPattern>,
    pub(super) auth: Authentication,
    pub(super) max_body_bytes: usize,
}

impl McpHttpService {
    pub(super) fn new(guard: Guard) -> Self {
        McpHttpService(Arc::new(guard))
    }
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService")
            .field("origins", &self.0.origins)
            .field("authenticated", &self.0.auth.is_required())
            .field("max_body_bytes", &self.0.max_body_bytes)
            .finish_non_exhaustive()
    }
}

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Display,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let guard = Arc::clone(&self.0);
        Box::pin(async move { Ok(guard.handle(request).await) })
    }
}

impl Guard {
    async fn handle<B>(&self, request: Request<B>) -> Response
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Display,
    {
        let (mut parts, body) = request.into_parts();
        if let Some(origin) = parts.headers.get(ORIGIN) {
            let allowed = origin
                .to_str()
                .is_ok_and(|origin| self.origins.iter().any(|pattern| pattern.matches(origin)));
            if !allowed {
                tracing::warn!(target: "lazytool::mcp", ?origin, "refusing a request from a foreign origin");
                return error_response(
                    StatusCode::FORBIDDEN,
                    ErrorCode::INVALID_REQUEST,
                    "Forbidden: requests from this Origin are not allowed",
                );
            }
        }
        let Some(principal) = self.auth.authenticate(&parts) else {
            let mut refused = error_response(
                StatusCode::UNAUTHORIZED,
                ErrorCode::INVALID_REQUEST,
                "Unauthorized: send Authorization: Bearer <token>",
            );
            refused
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return refused;
        };
        parts.extensions.insert(principal);
        let deleting = parts.method == Method::DELETE;
        let body = if parts.method == Method::POST {
            match self.admit(body).await {
                Ok(body) => body,
                Err(refused) => return refused,
            }
        } else {
            Bytes::new()
        };
        let mut response = self
            .rmcp
            .handle(Request::from_parts(parts, Full::new(body)))
            .await;
        // rmcp ends a session with 202; the official clients expect 200 or 204.
        if deleting && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response.map(Body::new)
    }

    /// The body of a POST if it is a JSON-RPC message within the limit, else the answer.
    async fn admit<B>(&self, body: B) -> Result<Bytes, Response>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: Display,
    {
        let bytes = match body::read(body, self.max_body_bytes).await {
            Read::Whole(bytes) => bytes,
            Read::Oversized(prefix) => {
                tracing::warn!(target: "lazytool::mcp", max = self.max_body_bytes, "rejecting an oversized request body");
                let reply = decode::oversized(&prefix, self.max_body_bytes);
                return Err(json_response(StatusCode::PAYLOAD_TOO_LARGE, reply));
            }
            Read::Failed(error) => {
                tracing::debug!(target: "lazytool::mcp", %error, "cannot read a request body");
                return Err(error_response(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::PARSE_ERROR,
                    &format!("Parse error: cannot read the request body ({error})"),
                ));
            }
        };
        match decode::decode(&bytes) {
            Decoded::Message(_) => Ok(bytes),
            Decoded::Reply(reply) => Err(json_response(StatusCode::BAD_REQUEST, reply)),
            // JSON-RPC answers no notification, but HTTP must answer the POST.
            Decoded::Skip if bytes.trim_ascii().is_empty() => Err(error_response(
                StatusCode::BAD_REQUEST,
                ErrorCode::PARSE_ERROR,
                "Parse error: the request body is empty",
            )),
            Decoded::Skip => Err(error_response(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Invalid request: not a valid JSON-RPC notification",
            )),
        }
    }
}
