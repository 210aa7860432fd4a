//! `GET /healthz` and `GET /readyz`, for balancers and orchestrators: [`Readiness`].
//!
//! Neither asks for a token nor checks `Host` or `Origin`: balancers probe with their own
//! host names and no credentials, and the answers tell nothing but "alive" and "ready".

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};

/// Whether the server should receive traffic, as `GET /readyz` reports it: an application
/// sets it (a gateway once its configuration is loaded and its servers started). Ready by
/// default; `/readyz` also answers 503 while the server drains, whatever it says. Cheap to
/// clone: clones share the state.
///
/// ```
/// use lazytool_mcp::Readiness;
///
/// let readiness = Readiness::new(false);
/// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
/// let http = server.http().readiness(readiness.clone());
/// // ... load the configuration, start the upstream servers ...
/// readiness.set(true);
/// assert!(readiness.is_ready());
/// ```
#[derive(Clone, Debug)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    /// A readiness that starts as `ready`.
    ///
    /// ```
    /// assert!(!lazytool_mcp::Readiness::new(false).is_ready());
    /// ```
    pub fn new(ready: bool) -> Self {
        Readiness(Arc::new(AtomicBool::new(ready)))
    }

    /// Sets whether the server is ready.
    ///
    /// ```
    /// let readiness = lazytool_mcp::Readiness::new(false);
    /// readiness.set(true);
    /// assert!(readiness.is_ready());
    /// ```
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Release);
    }

    /// Whether the server is ready.
    ///
    /// ```
    /// assert!(lazytool_mcp::Readiness::default().is_ready());
    /// ```
    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

impl Default for Readiness {
    fn default() -> Self {
        Readiness::new(true)
    }
}

/// The path of the liveness probe.
pub const HEALTHZ_PATH: &str = "/healthz";
/// The path of the readiness probe.
pub const READYZ_PATH: &str = "/readyz";

pub(crate) fn alive() -> Response {
    status(StatusCode::OK, "alive")
}

pub(crate) fn ready(ready: bool) -> Response {
    if ready {
        status(StatusCode::OK, "ready")
    } else {
        status(StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

/// [`ready`], and what the shared store's health changes of it: while the store is down,
/// `detail` says so, and under [`FailurePolicy::Refuse`] the server is not ready.
#[cfg(feature = "redis")]
pub(crate) fn ready_with_store(ready: bool, store: &crate::shared::SharedStore) -> Response {
    use crate::shared::FailurePolicy;

    if !store.is_down() {
        return ready_with(ready, Some("shared store up"));
    }
    match store.failure_policy() {
        FailurePolicy::Local => ready_with(ready, Some("shared store down: local limits")),
        FailurePolicy::Refuse => ready_with(false, Some("shared store down: calls refused")),
    }
}

#[cfg(feature = "redis")]
fn ready_with(ready: bool, detail: Option<&str>) -> Response {
    let (code, text) = match ready {
        true => (StatusCode::OK, "ready"),
        false => (StatusCode::SERVICE_UNAVAILABLE, "not ready"),
    };
    let mut body = serde_json::json!({"status": text});
    if let Some(detail) = detail {
        body["detail"] = detail.into();
    }
    let headers = [(header::CONTENT_TYPE, "application/json")];
    (code, headers, body.to_string()).into_response()
}

fn status(code: StatusCode, text: &'static str) -> Response {
    let body = format!("{{\"status\":\"{text}\"}}");
    (code, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}
