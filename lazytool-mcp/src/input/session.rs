//! Input over a 2025-11-25 session: the client is sent the request, and the tool waits for its
//! answer.

use lazytool_mcp_core::capabilities::has;
use lazytool_runtime::{InputChannel, InputError, InputFuture, InputRequest};
use rmcp::model::{RequestId, ServerRequest};
use rmcp::service::OriginatingRequestId;
use rmcp::{Peer, RoleServer};
use serde_json::json;

/// Asks the client of a stateful session, on the stream of the request `request`.
pub(crate) struct SessionInput {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) request: RequestId,
}

impl InputChannel for SessionInput {
    fn ask(&self, _key: &str, request: InputRequest) -> InputFuture<'_> {
        Box::pin(async move {
            let declared = self.peer.peer_info().map(|info| info.capabilities.clone());
            if !declared.is_some_and(|capabilities| has(&capabilities, request.capability())) {
                return Err(InputError::Unsupported {
                    capability: request.capability(),
                });
            }
            let message = json!({"method": request.method(), "params": request.params()});
            let mut sent: ServerRequest = serde_json::from_value(message)
                .map_err(|error| InputError::Failed(error.to_string()))?;
            // Over streamable HTTP, the request rides the stream of the call it belongs to.
            let originating = OriginatingRequestId(self.request.clone());
            match &mut sent {
                ServerRequest::CreateMessageRequest(request) => {
                    request.extensions.insert(originating);
                }
                ServerRequest::ElicitRequest(request) => {
                    request.extensions.insert(originating);
                }
                ServerRequest::ListRootsRequest(request) => {
                    request.extensions.insert(originating);
                }
                _ => {}
            }
            let answer = (self.peer.send_request(sent).await)
                .map_err(|error| InputError::Failed(error.to_string()))?;
            serde_json::to_value(answer).map_err(|error| InputError::Failed(error.to_string()))
        })
    }
}
