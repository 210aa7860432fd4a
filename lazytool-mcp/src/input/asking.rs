//! Whom a request's tool or prompt asks for input: the session's client, or this round's
//! answers; and, after it ran, whether the request ends as it answered or with an
//! input-required result.

use std::sync::Arc;

use lazytool_runtime::InputChannel;
use rmcp::RoleServer;
use rmcp::model::{ErrorData, InputResponses};
use rmcp::service::RequestContext;
use serde_json::Value;

use super::round::{self, RoundEnd, RoundInput};
use super::session::SessionInput;
use crate::Principal;
use crate::server::McpServer;
use lazytool_mcp_core::capabilities::has;

/// The input of one request.
pub(crate) struct Asking {
    /// For the tool's or the prompt's context.
    pub(crate) channel: Arc<dyn InputChannel>,
    /// A 2026-07-28 round: its binding and its answers.
    round: Option<(Vec<u8>, Arc<RoundInput>)>,
}

/// What a request that may ask for input says of itself.
pub(crate) struct Asked<'a> {
    pub(crate) method: &'a str,
    pub(crate) name: &'a str,
    pub(crate) arguments: &'a Value,
    pub(crate) responses: Option<InputResponses>,
    pub(crate) state: Option<String>,
}

impl Asking {
    /// The input of `asked`: a round's when the request is `stateless`, else the session's
    /// client; an error for a `requestState` this server did not seal for this request.
    pub(crate) fn begin(
        server: &McpServer,
        principal: &Principal,
        context: &RequestContext<RoleServer>,
        stateless: bool,
        asked: Asked<'_>,
    ) -> Result<Asking, ErrorData> {
        if !stateless {
            return Ok(Asking {
                channel: Arc::new(SessionInput {
                    peer: context.peer.clone(),
                    request: context.id.clone(),
                }),
                round: None,
            });
        }
        let capabilities = context.client_capabilities().unwrap_or_default();
        // A client that can be asked nothing, and brings no state, gets no input-required
        // result: its round needs no binding (the arguments are not written out).
        let can_answer = ["elicitation", "sampling", "roots"]
            .iter()
            .any(|capability| has(&capabilities, capability));
        let binding = if can_answer || asked.state.is_some() {
            round::binding(principal.name(), asked.method, asked.name, asked.arguments)
        } else {
            Vec::new()
        };
        let input = Arc::new(RoundInput::begin(
            server,
            &binding,
            asked.responses,
            asked.state.as_deref(),
            capabilities,
        )?);
        Ok(Asking {
            channel: Arc::clone(&input) as Arc<dyn InputChannel>,
            round: Some((binding, input)),
        })
    }

    /// How the request ends, its tool or prompt having failed (`failed`) or not.
    pub(crate) fn end(&self, server: &McpServer, failed: bool) -> RoundEnd {
        match &self.round {
            Some((binding, input)) => input.end(server, binding, failed),
            None => RoundEnd::Complete,
        }
    }
}
