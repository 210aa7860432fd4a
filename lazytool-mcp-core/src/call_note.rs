//! What the upstream side of a tool call tells the serving side that a [`ToolResult`]
//! cannot carry: [`CallNote`], written through the call's `McpRequest` (which the serving
//! side attaches to the call's context, and reads the note of once the call ended).
//!
//! [`ToolResult`]: lazytool_runtime::ToolResult

use std::sync::Arc;

use crate::limit::LimitExceeded;

/// Of one call: the upstream server it went to and why it was refused there, if it was.
#[derive(Debug, Default)]
pub struct CallNote {
    pub server: Option<Arc<str>>,
    pub refused: Option<Refused>,
}

/// Why an upstream server's side refused a call before sending it.
#[derive(Debug)]
pub enum Refused {
    /// The server's limit: the call is answered with a JSON-RPC error.
    Limit(LimitExceeded),
    /// The tool's definition changed against the lock.
    Pin,
    /// The upstream server refused the call for a client capability the request did not
    /// declare (-32021): the client is answered with that error, as the server gave it.
    MissingCapability(rmcp::model::ErrorData),
}
