//! Who may call: the [`Gate`] every guarded route passes (MCP and `/metrics`): the request's
//! Origin and Host against what the server allows, then its token; and why it refused
//! ([`Refused`]).

use axum::response::Response;
use http::StatusCode;
use http::header::{ORIGIN, WWW_AUTHENTICATE};
use http::request::Parts;
use rmcp::model::ErrorCode;

use super::access::AccessCell;
use super::body::error_response;
use super::challenge::Challenge;
use super::host::{self, HostError};
use super::metrics::{HttpMetrics, Refusal};
use super::origin::OriginPattern;
use crate::audit::{AuditLine, AuditLog};
use crate::principal::Principal;

/// Who may call: the checks every guarded route makes (MCP and `/metrics`).
pub(crate) struct Gate {
    pub(crate) origins: Vec<OriginPattern>,
    /// `None`: the loopback names.
    pub(crate) hosts: Option<Vec<String>>,
    /// The tokens, identity provider and principal limits, read once per request.
    pub(crate) access: AccessCell,
    pub(crate) metrics: HttpMetrics,
    pub(crate) audit: Option<AuditLog>,
}

/// Why the gate refused a request.
#[derive(Clone, Debug)]
pub(crate) enum Refused {
    Origin,
    MalformedHost,
    Host,
    Unauthorized(Box<Challenge>),
}

impl Refused {
    pub(crate) fn response(self) -> Response {
        let (status, message) = match self {
            Refused::Origin => (
                StatusCode::FORBIDDEN,
                "Forbidden: requests from this Origin are not allowed",
            ),
            Refused::MalformedHost => (
                StatusCode::BAD_REQUEST,
                "Bad request: missing or malformed Host header",
            ),
            Refused::Host => (
                StatusCode::FORBIDDEN,
                "Forbidden: the Host header names a host this server does not serve",
            ),
            Refused::Unauthorized(challenge) => {
                let Challenge {
                    status,
                    message,
                    header,
                } = *challenge;
                let mut response = error_response(status, ErrorCode::INVALID_REQUEST, &message);
                response.headers_mut().insert(WWW_AUTHENTICATE, header);
                return response;
            }
        };
        error_response(status, ErrorCode::INVALID_REQUEST, message)
    }
}

impl Gate {
    /// The request's principal, or why it is refused.
    pub(crate) async fn check(&self, parts: &Parts) -> Result<Principal, Refused> {
        if let Some(origin) = parts.headers.get(ORIGIN) {
            let allowed = origin
                .to_str()
                .is_ok_and(|origin| self.origins.iter().any(|pattern| pattern.matches(origin)));
            if !allowed {
                tracing::warn!(target: "lazytool::mcp", ?origin, "refusing a request from a foreign origin");
                self.metrics.refuse(Refusal::Origin);
                return Err(Refused::Origin);
            }
        }
        match host::check(parts, self.hosts.as_deref()) {
            Ok(()) => {}
            Err(HostError::Malformed) => {
                self.metrics.refuse(Refusal::Host);
                return Err(Refused::MalformedHost);
            }
            Err(HostError::NotAllowed) => {
                let host = parts.headers.get(http::header::HOST);
                tracing::warn!(target: "lazytool::mcp", ?host, "refusing a request for a host not allowed (DNS rebinding?); list the names clients use with --allowed-host");
                self.metrics.refuse(Refusal::Host);
                return Err(Refused::Host);
            }
        }
        let access = self.access.now();
        access.auth.authenticate(parts).await.map_err(|why| {
            let challenge = access.auth.challenge(parts, &why);
            tracing::debug!(target: "lazytool::mcp", status = challenge.status.as_u16(), reason = %challenge.message, "refusing a request");
            self.metrics.refuse(Refusal::Unauthorized);
            if let Some(log) = &self.audit {
                log.record(&AuditLine::refusal(
                    "unauthorized",
                    parts.method.as_str(),
                    parts.uri.path(),
                ));
            }
            Refused::Unauthorized(Box::new(challenge))
        })
    }
}
