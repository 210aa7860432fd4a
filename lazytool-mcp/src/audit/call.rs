//! A tool call's audit line, begun before the call and finished with its result:
//! [`CallAudit`].

use std::time::Instant;

use lazytool_runtime::{CALL_THROUGH_TOOL_NAME, ToolErrorKind};
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use serde_json::Value;

use super::line::{AuditLine, CallRecord};
use super::log::AuditLog;
use crate::Principal;
use crate::call_note::{CallNote, Refused};
use crate::canonical;

/// What a call's line needs of its request, taken before the arguments move into the call.
pub(crate) struct CallAudit {
    log: AuditLog,
    started: Instant,
    record: CallRecord,
}

impl CallAudit {
    pub(crate) fn begin(
        log: &AuditLog,
        principal: &Principal,
        context: &RequestContext<RoleServer>,
        tool: &str,
        arguments: &Value,
    ) -> Self {
        // A call through `__lazy__tool__call__` is recorded as the tool it runs.
        let tool = match (tool, arguments.get("name")) {
            (CALL_THROUGH_TOOL_NAME, Some(Value::String(inner))) => inner.clone(),
            _ => tool.to_owned(),
        };
        let record = CallRecord {
            principal: principal.name().to_owned(),
            session: session_of(context),
            // A stateless (2026-07-28) request names its client in its own `_meta`; the peer
            // of a stateless lane is a stand-in.
            client: (context.meta.client_info().map(|info| info.name))
                .or_else(|| (context.peer.peer_info()).map(|info| info.client_info.name.clone())),
            tool,
            // Not computed for a log that only counts calls.
            argument_bytes: if log.writes() {
                arguments.to_string().len()
            } else {
                0
            },
            arguments_sha256: if log.writes() {
                canonical::digest(arguments)
            } else {
                String::new()
            },
            arguments: (log.writes() && log.keeps_arguments()).then(|| arguments.clone()),
            ..CallRecord::default()
        };
        CallAudit {
            log: log.clone(),
            started: Instant::now(),
            record,
        }
    }

    /// Writes the line: the call's outcome, what its upstream side noted, the size of the
    /// answer sent (`result_bytes`, zero for a JSON-RPC error).
    pub(crate) fn finish(
        mut self,
        kind: Option<ToolErrorKind>,
        note: &CallNote,
        result_bytes: usize,
    ) {
        let record = &mut self.record;
        record.duration = self.started.elapsed();
        record.server = note.server.as_deref().map(str::to_owned);
        record.result_bytes = result_bytes;
        (record.outcome, record.error_kind) = match (&note.refused, kind) {
            (Some(Refused::Limit(exceeded)), _) => {
                record.limit = Some(exceeded.clone());
                ("refused", Some(limit_kind(exceeded.kind().as_str())))
            }
            (Some(Refused::Pin), _) => ("refused", Some("pin")),
            (Some(Refused::MissingCapability(_)), _) => ("refused", Some("missing_capability")),
            (None, Some(kind)) => ("error", Some(kind.as_str())),
            (None, None) => ("ok", None),
        };
        if let (Some(Refused::Pin), Some(server)) = (&note.refused, &record.server) {
            let tool = record.tool.as_str();
            let pin = AuditLine::pin(&record.principal, record.session.as_deref(), server, tool);
            self.log.record(&pin);
        }
        self.log.record(&AuditLine::call(self.record));
    }
}

/// The `errorKind` of a call refused for a limit.
pub(crate) fn limit_kind(limit: &str) -> &'static str {
    match limit {
        "rate" => "rate_limit",
        _ => "in_flight_limit",
    }
}

/// The `Mcp-Session-Id` of an HTTP request, if it has one.
pub(crate) fn session_of(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<http::request::Parts>()?;
    let id = parts.headers.get(HEADER_SESSION_ID)?;
    id.to_str().ok().map(str::to_owned)
}
