//! The route of the RFC 9728 protected-resource metadata: [`METADATA_PATH`] and its form
//! suffixed with MCP's path, behind the same Origin and Host checks as every other route (no
//! token: clients read it to learn where to get one).

use std::sync::Arc;

use super::gate::Gate;
use super::oidc::Oidc;
use super::protected_resource::{METADATA_PATH, document};

/// `router` with `GET` [`METADATA_PATH`] and its form suffixed with MCP's path, behind the
/// same Origin and Host checks as every other route (no token: clients read it to learn
/// where to get one).
pub(crate) fn route(router: axum::Router, oidc: &Oidc, gate: Arc<Gate>) -> axum::Router {
    let suffixed = format!("{METADATA_PATH}{}", oidc.mcp_path());
    let served = Arc::new((oidc.clone(), gate));
    let answer = move |request: axum::extract::Request| {
        let served = Arc::clone(&served);
        async move {
            let (oidc, gate) = &*served;
            let parts = request.into_parts().0;
            match gate.check_origin_and_host(&parts) {
                Ok(()) => document(oidc, &parts, &gate.edge),
                Err(refused) => refused.response(),
            }
        }
    };
    router
        .route(METADATA_PATH, axum::routing::get(answer.clone()))
        .route(&suffixed, axum::routing::get(answer))
}
