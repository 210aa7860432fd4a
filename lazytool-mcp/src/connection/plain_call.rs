//! A `tools/call` of a tool that takes only its arguments, answered without rmcp's request
//! context: [`PlainCall`].
//!
//! Such a tool (a `#[tool]` without a `ToolContext`, a `State` or an instance) sees nothing of
//! its call besides its arguments. What the handler builds around a call is for what a tool
//! could see: rmcp's request context and peer, the `McpRequest` in the tool's context, whom it
//! asks for input. So a plain call runs the tool straight in the session that answers the
//! request (a stateless request's, or the HTTP session's own, caught up and relisted as the
//! handler does), and is answered as the handler answers (`tool_answer`, shaped for the
//! protocol version): for `add` over HTTP, 10,000 instructions and 11 allocations less a
//! stateless call, 5,700 and 8 less a session's (callgrind and DHAT, `bench/peer`). A
//! call that brings input responses or a request state, and every call of a server that
//! writes an audit trail or relays its clients' capabilities, goes to the handler: those read
//! the request.

use std::borrow::Cow;
use std::sync::Arc;

use lazytool_runtime::{CancellationToken, Session, ToolContext};
use rmcp::model::{
    ClientRequest, JsonObject, JsonRpcRequest, ProtocolVersion, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use super::McpConnection;
use super::routine::shaped_for;
use crate::Principal;
use crate::access_epoch::AccessEpoch;
use crate::call_result::{call_id, tool_answer, unless_cancelled};
use crate::request_facts::Admitted;
use crate::server::McpServer;

/// A call the handler need not answer: its id, the tool's name and the arguments.
pub(crate) struct PlainCall {
    id: RequestId,
    name: Cow<'static, str>,
    arguments: Option<JsonObject>,
}

impl PlainCall {
    /// A call of the tool `name` (of which [`is_plain`](PlainCall::is_plain) is true) with
    /// `arguments`, read from a request `id` that brings no input responses or request state.
    pub(crate) fn new(
        id: RequestId,
        name: Cow<'static, str>,
        arguments: Option<JsonObject>,
    ) -> Self {
        PlainCall {
            id,
            name,
            arguments,
        }
    }

    /// Its id, tool and arguments, for tests to compare with another reading's.
    #[cfg(test)]
    pub(crate) fn read(&self) -> (&RequestId, &str, Option<&JsonObject>) {
        (&self.id, &self.name, self.arguments.as_ref())
    }

    /// Whether a call of the tool `name`, bringing no input responses or request state, is a
    /// plain call of `server`: the tool takes only its arguments, and the server neither
    /// writes an audit trail nor relays its clients' capabilities.
    pub(crate) fn is_plain(server: &McpServer, name: &str) -> bool {
        server.audit_log().is_none()
            && server.relayed_to().is_none()
            && (server.registry().get(name)).is_some_and(|tool| tool.takes_only_arguments())
    }

    /// The call `request` makes, taken out of it, if it is a plain one; else `None`,
    /// `request` untouched.
    pub(crate) fn take(
        request: &mut JsonRpcRequest<ClientRequest>,
        server: &McpServer,
    ) -> Option<PlainCall> {
        let ClientRequest::CallToolRequest(call) = &mut request.request else {
            return None;
        };
        let params = &mut call.params;
        let plain = params.input_responses.is_none()
            && params.request_state.is_none()
            && PlainCall::is_plain(server, &params.name);
        plain.then(|| PlainCall {
            id: request.id.clone(),
            name: std::mem::take(&mut params.name),
            arguments: params.arguments.take(),
        })
    }

    /// The answer to a stateless (2026-07-28) call, as the handler gives it: run in the
    /// stateless session of the principal the HTTP guard `admitted`, given up when the server
    /// has `stopped`.
    pub(crate) async fn answer_stateless(
        self,
        admitted: Option<&Admitted>,
        server: &McpServer,
        stopped: &CancellationToken,
    ) -> ServerJsonRpcMessage {
        let principal =
            admitted.map_or_else(Principal::anonymous, |admitted| admitted.principal.clone());
        let session = server.stateless_session(&principal);
        self.answer_in(server, &session, stopped, true).await
    }

    /// The answer to a call of an HTTP session of protocol `version`, whose handler is
    /// `connection` and whose client is `peer`, as the handler gives it: run in the
    /// connection's stateful session for the principal the HTTP guard `admitted`, given up
    /// when `cancellation` is (the client cancelled the call, or the session ended).
    pub(crate) async fn answer_in_session(
        self,
        connection: Arc<McpConnection>,
        peer: Peer<RoleServer>,
        version: ProtocolVersion,
        admitted: Option<Admitted>,
        cancellation: CancellationToken,
    ) -> ServerJsonRpcMessage {
        let (principal, epoch) = admitted.map_or_else(
            || (Principal::anonymous(), AccessEpoch::default()),
            |admitted| (admitted.principal, admitted.epoch),
        );
        let session = connection.calling(&principal, epoch, &peer, &self.name);
        let session = match session.await {
            Ok(session) => session,
            Err(error) => return ServerJsonRpcMessage::error(error, Some(self.id)),
        };
        let current = version >= ProtocolVersion::V_2026_07_28;
        (self.answer_in(&connection.server, &session, &cancellation, current)).await
    }

    /// The call run in `session`, given up when `cancelled` is; answered for a client of
    /// 2026-07-28 on (`current`) or of an earlier version.
    async fn answer_in(
        self,
        server: &McpServer,
        session: &Session,
        cancelled: &CancellationToken,
        current: bool,
    ) -> ServerJsonRpcMessage {
        let PlainCall {
            id,
            name,
            arguments,
        } = self;
        let arguments = arguments.map_or(Value::Null, Value::Object);
        let context = ToolContext::new().with_call_id(call_id(&id));
        let call = session.call_with_context(&name, arguments, context);
        let answered = (unless_cancelled(call, cancelled).await)
            .and_then(|result| tool_answer(server, session.registry(), &name, result))
            .and_then(|result| shaped_for(ServerResult::CallToolResult(result), current));
        match answered {
            Ok(result) => ServerJsonRpcMessage::response(result, id),
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use lazytool_runtime::{DynamicTool, Registry, ToolContext, tool};
    use rmcp::model::{CallToolRequest, CallToolRequestParams, InputResponses, NumberOrString};
    use serde_json::json;

    use super::*;
    use crate::{AuditLog, Relay};

    /// Adds two integers.
    #[tool]
    fn plain_add(a: i64, b: i64) -> i64 {
        a + b
    }

    /// The call's id.
    #[tool]
    fn call_id_of(context: ToolContext) -> String {
        context.call_id().unwrap_or_default().to_owned()
    }

    fn server() -> McpServer {
        let dynamic = DynamicTool::new(
            "dynamic",
            "A tool.",
            json!({"type": "object"}),
            |_, _| async { Ok::<_, String>(json!(1)) },
        );
        let registry = Registry::builder()
            .filter(|spec| matches!(spec.name(), "plain_add" | "call_id_of"))
            .tool(dynamic)
            .build()
            .expect("a registry");
        McpServer::new(registry)
    }

    fn request(params: CallToolRequestParams) -> JsonRpcRequest<ClientRequest> {
        let call = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        JsonRpcRequest::new(NumberOrString::Number(1), call)
    }

    fn takes(server: &McpServer, params: CallToolRequestParams) -> bool {
        PlainCall::take(&mut request(params), server).is_some()
    }

    #[test]
    fn only_calls_of_tools_that_take_only_their_arguments_go_without_a_lane() {
        let server = server();
        assert!(takes(&server, CallToolRequestParams::new("plain_add")));
        for name in ["call_id_of", "dynamic", "missing"] {
            assert!(!takes(&server, CallToolRequestParams::new(name)), "{name}");
        }
        let responses: InputResponses =
            serde_json::from_value(json!({"name": {"action": "decline"}})).expect("responses");
        let answering = CallToolRequestParams::new("plain_add").with_input_responses(responses);
        assert!(!takes(&server, answering));
        let mut stated = CallToolRequestParams::new("plain_add");
        stated.request_state = Some("state".to_owned());
        assert!(!takes(&server, stated));

        let audited = server.clone().audit(AuditLog::writer(std::io::sink()));
        assert!(!takes(&audited, CallToolRequestParams::new("plain_add")));
        let relaying = server.relay(Relay::new("gateway"));
        assert!(!takes(&relaying, CallToolRequestParams::new("plain_add")));
    }

    #[test]
    fn a_request_left_to_a_lane_is_left_untouched() {
        let listing = JsonRpcRequest::new(
            NumberOrString::Number(3),
            ClientRequest::ListToolsRequest(Default::default()),
        );
        let arguments = json!({"a": 1}).as_object().cloned().unwrap_or_default();
        let dynamic = request(CallToolRequestParams::new("dynamic").with_arguments(arguments));
        let as_json = |request: &JsonRpcRequest<ClientRequest>| serde_json::to_value(request).ok();
        for left in [listing, dynamic] {
            let mut untouched = left.clone();
            assert!(PlainCall::take(&mut untouched, &server()).is_none());
            assert_eq!(as_json(&untouched), as_json(&left));
        }
    }
}
