//! An application's HTML page served beside MCP, behind the same Origin, Host and token
//! checks ([`McpHttp::page`](crate::McpHttp::page)): its answer.

use std::sync::Arc;

use axum::response::{IntoResponse, Response};
use http::header;
use http::request::Parts;

use super::gate::Gate;

/// What renders a page, at each request.
pub(crate) type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// Only inline styles: nothing the page holds can load or run anything.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/// The page rendered for a request that passes the gate, or the gate's refusal.
pub(crate) async fn answer(gate: &Gate, render: &Render, parts: &Parts) -> Response {
    if let Err(refused) = gate.check(parts).await {
        return refused.response();
    }
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    (headers, render()).into_response()
}
