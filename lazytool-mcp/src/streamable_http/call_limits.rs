//! A principal's `tools/call` over its limits, refused by the guard before rmcp sees it: 429
//! with `Retry-After` and the JSON-RPC error of [`LimitExceeded`], counted and audited; with
//! a shared store that is down and refuses meanwhile, 503 with `Retry-After`.

use std::time::Duration;

use axum::response::Response;
use http::request::Parts;
use http::{HeaderValue, StatusCode, header};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::json_response;
use super::method_scan;
use crate::Principal;
use crate::PrincipalLimits;
use crate::audit::{AuditLine, AuditLog, CallRecord, limit_kind};
use crate::canonical;
use crate::limit::LimitExceeded;
use crate::limit::StoreDown;
use crate::limit::call_refusal::CallRefusal;
use crate::limit::limiter::LimitPermit;

const TOOLS_CALL: &str = "tools/call";

/// What the guard reads of a message that may be a `tools/call`.
#[derive(Deserialize)]
struct Call {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<CallParams>,
}

#[derive(Deserialize)]
struct CallParams {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// A place for `body`'s call among its principal's, or the answer refusing it. Anything but
/// a `tools/call` passes; most bodies are told by a scan for the method's name.
pub(super) async fn admit(
    limits: &PrincipalLimits,
    principal: &Principal,
    parts: &Parts,
    body: &[u8],
    audit: Option<&AuditLog>,
) -> Result<Option<LimitPermit>, Box<Refusal>> {
    if !method_scan::TOOLS_CALL.in_body(body) {
        return Ok(None);
    }
    let Ok(call) = serde_json::from_slice::<Call>(body) else {
        return Ok(None);
    };
    if call.method.as_deref() != Some(TOOLS_CALL) {
        return Ok(None);
    }
    let exceeded = match limits.admit(principal).await {
        Ok(permit) => return Ok(Some(permit)),
        Err(CallRefusal::Limit(exceeded)) => exceeded,
        Err(CallRefusal::StoreDown(down)) => {
            tracing::debug!(target: "lazytool::mcp", principal = principal.name(), %down, "refusing a limited call while the shared store is down");
            return Err(Box::new(Refusal {
                id: call.id,
                exceeded: Err(down),
            }));
        }
    };
    tracing::info!(target: "lazytool::mcp", principal = principal.name(), %exceeded, "refusing a call over its principal's limit");
    if let Some(log) = audit {
        let params = call.params.unwrap_or(CallParams {
            name: None,
            arguments: None,
        });
        log.record(&refused_line(&exceeded, principal, parts, params, log));
    }
    // Boxed: a refusal is rare, and an id (a JSON value) large.
    Err(Box::new(Refusal {
        id: call.id,
        exceeded: Ok(exceeded),
    }))
}

/// A call refused for its principal's limit (or, `Err`, because the shared store that keeps
/// the limits is down): the request's id and why.
pub(super) struct Refusal {
    id: Option<Value>,
    exceeded: Result<LimitExceeded, StoreDown>,
}

fn refused_line(
    exceeded: &LimitExceeded,
    principal: &Principal,
    parts: &Parts,
    params: CallParams,
    log: &AuditLog,
) -> AuditLine {
    let arguments = params.arguments.unwrap_or_else(|| json!({}));
    let session = (parts.headers.get(HEADER_SESSION_ID))
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    AuditLine::call(CallRecord {
        principal: principal.name().to_owned(),
        session,
        tool: params.name.unwrap_or_default(),
        argument_bytes: arguments.to_string().len(),
        arguments_sha256: canonical::digest(&arguments),
        arguments: log.keeps_arguments().then_some(arguments),
        outcome: "refused",
        error_kind: Some(limit_kind(exceeded.kind().as_str())),
        limit: Some(exceeded.clone()),
        duration: Duration::ZERO,
        ..CallRecord::default()
    })
}

impl Refusal {
    /// 429, `Retry-After` in whole seconds, and the JSON-RPC error with the call's id; 503
    /// when the shared store is down.
    #[cfg_attr(not(feature = "redis"), allow(clippy::infallible_destructuring_match))]
    pub(super) fn response(self) -> Response {
        let exceeded = match self.exceeded {
            Ok(exceeded) => exceeded,
            Err(down) => return store_down(self.id, &down),
        };
        let exceeded = &exceeded;
        let error = exceeded.error_data();
        let reply = json!({"jsonrpc": "2.0", "id": self.id, "error": error});
        let mut response = json_response(
            StatusCode::TOO_MANY_REQUESTS,
            reply.to_string().into_bytes(),
        );
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(exceeded.retry_after_seconds()),
        );
        response
    }
}

/// 503 with `Retry-After: 1` and a JSON-RPC error saying the limits cannot be decided.
fn store_down(id: Option<Value>, down: &StoreDown) -> Response {
    let message = format!(
        "Service unavailable: {down}, and this server refuses limited calls meanwhile; retry later"
    );
    let error = rmcp::model::ErrorData::new(LIMITED, message, None);
    let reply = json!({"jsonrpc": "2.0", "id": id, "error": error});
    let mut response = json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        reply.to_string().into_bytes(),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(1u64));
    response
}

/// The JSON-RPC code of a call refused for its limits (as [`LimitExceeded::error_data`]).
const LIMITED: rmcp::model::ErrorCode = rmcp::model::ErrorCode(-32000);
