//! Who answers an upstream's elicitation when no client of the program can: [`Elicitor`].

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{ElicitRequestParams, ElicitResult, ErrorData};

/// What [`Elicitor::elicit`] returns: the answer the upstream gets, or the JSON-RPC error
/// it gets instead.
pub type Elicited<'a> = Pin<Box<dyn Future<Output = Result<ElicitResult, ErrorData>> + Send + 'a>>;

/// Answers the `elicitation/create` requests of an [`McpSource`](crate::McpSource)'s server
/// that no MCP client can be asked: a call made without one (`Registry::call`, an agent
/// loop), one whose client did not announce `elicitation`, or a request outside any call.
/// A client that announced it is asked first; what the elicitor answers goes back to the
/// server as it is. With one, the source announces `elicitation` to its server.
///
/// ```
/// use lazytool_mcp_client::rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
/// use lazytool_mcp_client::{Elicited, Elicitor};
///
/// /// Declines every request: the server goes on without the input.
/// struct Decline;
///
/// impl Elicitor for Decline {
///     fn elicit<'a>(&'a self, _server: &'a str, _request: ElicitRequestParams) -> Elicited<'a> {
///         Box::pin(async { Ok(ElicitResult::new(ElicitationAction::Decline)) })
///     }
/// }
/// ```
pub trait Elicitor: Send + Sync {
    /// Answers `request` of the MCP server named `server` (its source's name). It runs
    /// while the server waits; during a call, the call's timeout bounds it.
    fn elicit<'a>(&'a self, server: &'a str, request: ElicitRequestParams) -> Elicited<'a>;
}
