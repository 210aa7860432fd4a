//! A routine request (`tools/call`, `tools/list`) answered as rmcp's `handle_request` answers
//! it, without the checks of its `_meta` the HTTP side made already:
//! [`McpConnection::answer_routine`].
//!
//! Before it dispatches, rmcp's `handle_request` reads the request's `_meta` again: the
//! version twice, each into a new `String`, the required keys, the negotiated version, the
//! client's capabilities (callgrind, `add`, 1 client: about 3,700 instructions a call). The
//! requests that come here were read by `lane_request` or `session_request`, which let through
//! only those rmcp takes as they are; what rmcp does after the handler (the result's shape for
//! the negotiated version, the error code of a missing resource) is done here as rmcp does it.

use std::pin::Pin;

use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::model::{ClientRequest, ErrorCode, ErrorData, ProtocolVersion, ServerResult};
use rmcp::service::{RequestContext, Service};
use serde_json::Value;

use super::McpConnection;
use crate::request_facts::META_KEY_PROTOCOL_VERSION;

impl McpConnection {
    /// rmcp's answer to `request`, the handler called directly for a `tools/call` or
    /// `tools/list` of the protocol version the request's `_meta` names, or, when it names
    /// none, the one its session negotiated.
    ///
    /// Its caller has checked what rmcp would: a version in `_meta` is 2026-07-28 and comes
    /// with the client's capabilities (`lane_request`), or there is none and the connection
    /// is an HTTP session opened by `initialize`, which asks for no `_meta` (`session_request`).
    /// Any other request, and one of a connection whose version is not known, goes through
    /// rmcp's `handle_request`.
    pub(crate) async fn answer_routine(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let Some(version) = negotiated(&context) else {
            return self.rmcp_answer(request, context).await;
        };
        let current = version >= ProtocolVersion::V_2026_07_28;
        let result = match request {
            // lazytool's handler never answers with a task, which rmcp refuses to a client
            // that did not declare the tasks extension.
            ClientRequest::CallToolRequest(call) => {
                ServerResult::from(self.call_tool(call.params, context).await?)
            }
            ClientRequest::ListToolsRequest(list) => {
                ServerResult::ListToolsResult(self.list_tools(list.params, context).await?)
            }
            other => return self.rmcp_answer(other, context).await,
        };
        shaped_for(result, current).map_err(|mut error| {
            if current && error.code == ErrorCode::RESOURCE_NOT_FOUND {
                error.code = ErrorCode::INVALID_PARAMS;
            }
            error
        })
    }

    /// rmcp's own answer to `request`, its future boxed: rmcp's `handle_request` keeps
    /// about 6 KiB of state, which inline would make every routine call's future (moved whole
    /// on its way into its box) that much larger for a path routine calls rarely take.
    fn rmcp_answer(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Pin<Box<dyn Future<Output = Result<ServerResult, ErrorData>> + Send + '_>> {
        Box::pin(self.handle_request(request, context))
    }
}

/// The version a routine request is answered under: the one its `_meta` names if that is
/// 2026-07-28, the session's when it names none; `None` otherwise, for rmcp to decide.
fn negotiated(context: &RequestContext<RoleServer>) -> Option<ProtocolVersion> {
    match context.meta.get(META_KEY_PROTOCOL_VERSION) {
        Some(Value::String(named)) if named == ProtocolVersion::V_2026_07_28.as_str() => {
            Some(ProtocolVersion::V_2026_07_28)
        }
        Some(_) => None,
        None => (context.peer.peer_info()).map(|info| info.protocol_version.clone()),
    }
}

/// `result` as rmcp sends it to a client of a version from 2026-07-28 on (`current`: with
/// caching hints) or of an earlier one (without `resultType`, structured output only as an
/// object, and no `InputRequiredResult`).
pub(crate) fn shaped_for(
    mut result: ServerResult,
    current: bool,
) -> Result<ServerResult, ErrorData> {
    if current {
        result.fill_missing_cache_hints();
        return Ok(result);
    }
    if matches!(result, ServerResult::InputRequiredResult(_)) {
        return Err(ErrorData::invalid_request(
            "InputRequiredResult requires negotiated protocol version 2026-07-28 or newer",
            None,
        ));
    }
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    Ok(result)
}
