//! Who may call: the [`Gate`] every guarded route passes (MCP and `/metrics`): the request's
//! Origin and Host against what the server allows, then its token; and why it refused
//! ([`Refused`]).

use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use http::header::{ORIGIN, RETRY_AFTER, WWW_AUTHENTICATE};
use http::request::Parts;
use http::{HeaderValue, StatusCode};
use rmcp::model::ErrorCode;

use super::access::AccessCell;
use super::body::{error_response, refusal};
use super::challenge::Challenge;
use super::failed_auth::FailedAuthentications;
use super::forwarded::Edge;
use super::host::{self, HostError};
use super::metrics::{HttpMetrics, Refusal};
use super::origin::OriginPattern;
use crate::Principal;
use crate::access_epoch::AccessEpoch;
use crate::audit::{AuditLine, AuditLog};

/// Who may call: the checks every guarded route makes (MCP and `/metrics`).
pub(crate) struct Gate {
    pub(crate) origins: Vec<OriginPattern>,
    /// `None`: the loopback names.
    pub(crate) hosts: Option<Vec<String>>,
    /// The tokens, identity provider and principal limits, read once per request.
    pub(crate) access: AccessCell,
    pub(crate) metrics: HttpMetrics,
    pub(crate) audit: Option<AuditLog>,
    /// The URL clients use and the proxies whose forwarded headers count.
    pub(crate) edge: Edge,
    pub(crate) failed_auth: Arc<FailedAuthentications>,
}

/// Why the gate refused a request.
#[derive(Clone, Debug)]
pub(crate) enum Refused {
    Origin,
    MalformedHost,
    Host,
    Unauthorized(Box<Challenge>),
    /// The client's address failed to authenticate too often: it may try again after this.
    TooManyFailures(Duration),
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
            Refused::TooManyFailures(wait) => {
                let seconds = wait.as_secs().saturating_add(1);
                let mut response = refusal(
                    StatusCode::TOO_MANY_REQUESTS,
                    None,
                    &format!(
                        "Too many requests: this address failed to authenticate too often; retry in {seconds} s"
                    ),
                );
                response
                    .headers_mut()
                    .insert(RETRY_AFTER, HeaderValue::from(seconds));
                return response;
            }
        };
        error_response(status, ErrorCode::INVALID_REQUEST, message)
    }
}

impl Gate {
    /// The request's principal and the access rules it was authenticated under, or why it is
    /// refused.
    pub(crate) async fn check(&self, parts: &Parts) -> Result<(Principal, AccessEpoch), Refused> {
        self.check_origin_and_host(parts)?;
        let (access, epoch) = self.access.now_with_epoch();
        // Without authentication no request can fail it: nothing to count, nobody to block.
        let client = access
            .auth
            .is_required()
            .then(|| self.edge.client_address(parts))
            .flatten();
        let attempt = match client.map(|client| self.failed_auth.attempt(client)) {
            Some(Err(blocked)) => {
                self.metrics.refuse(Refusal::FailedAuthentication);
                if let (Some(log), Some(unaudited)) = (&self.audit, blocked.audit) {
                    let mut line = AuditLine::refusal(
                        "too_many_failed_authentications",
                        parts.method.as_str(),
                        parts.uri.path(),
                    );
                    line.0
                        .insert("refusedSinceLastLine".to_owned(), unaudited.into());
                    log.record(&line);
                }
                return Err(Refused::TooManyFailures(blocked.retry_after));
            }
            Some(Ok(attempt)) => attempt,
            None => None,
        };
        match access.auth.authenticate(parts).await {
            Ok(principal) => Ok((principal, epoch)),
            Err(why) => {
                if let Some(attempt) = attempt {
                    attempt.failed();
                }
                let challenge = access.auth.challenge(parts, &why, &self.edge);
                tracing::debug!(target: "lazytool::mcp", status = challenge.status.as_u16(), reason = %challenge.message, "refusing a request");
                self.metrics.refuse(Refusal::Unauthorized);
                if let Some(log) = &self.audit {
                    log.record(&AuditLine::refusal(
                        "unauthorized",
                        parts.method.as_str(),
                        parts.uri.path(),
                    ));
                }
                Err(Refused::Unauthorized(Box::new(challenge)))
            }
        }
    }

    /// The request's Origin and Host against what the server allows: what every route of
    /// the server checks, the protected-resource metadata's too.
    pub(crate) fn check_origin_and_host(&self, parts: &Parts) -> Result<(), Refused> {
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
            Ok(()) => Ok(()),
            Err(HostError::Malformed) => {
                self.metrics.refuse(Refusal::Host);
                Err(Refused::MalformedHost)
            }
            Err(HostError::NotAllowed) => {
                let host = parts.headers.get(http::header::HOST);
                tracing::warn!(target: "lazytool::mcp", ?host, "refusing a request for a host not allowed (DNS rebinding?); list the names clients use with --allowed-host");
                self.metrics.refuse(Refusal::Host);
                Err(Refused::Host)
            }
        }
    }
}
