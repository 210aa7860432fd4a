//! Why serving a connection stopped: [`McpError`].

use std::fmt;

/// Why [`McpServer::serve`](crate::McpServer::serve) stopped before the client closed the
/// connection. Bad input never ends up here: every line that is not a valid message is
/// answered with a JSON-RPC error and the server keeps serving.
///
/// ```rust,no_run
/// use lazytool_mcp::{McpError, McpServer};
///
/// # async fn run(server: McpServer) {
/// match server.serve_stdio().await {
///     Ok(()) => {} // the client closed stdin
///     Err(McpError::Io(error)) => eprintln!("the client went away: {error}"),
///     Err(error) => eprintln!("{error}"),
/// }
/// # }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum McpError {
    /// Writing to the client failed (it closed its end, say).
    Io(std::io::Error),
    /// The MCP handshake could not complete (rmcp's `ServerInitializeError`, as text).
    Handshake(String),
    /// The task serving the connection stopped abnormally.
    Task(tokio::task::JoinError),
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Io(error) => write!(f, "cannot write to the MCP client: {error}"),
            McpError::Handshake(reason) => write!(f, "MCP handshake failed: {reason}"),
            McpError::Task(error) => write!(f, "the MCP connection task failed: {error}"),
        }
    }
}

impl std::error::Error for McpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            McpError::Io(error) => Some(error),
            McpError::Handshake(_) => None,
            McpError::Task(error) => Some(error),
        }
    }
}
