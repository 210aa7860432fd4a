//! Serving MCP on stdio or any byte stream: `McpServer::serve_stdio` and `serve`
//! ([`serve_lines`]), newline-delimited JSON-RPC through a bounded transport in front of rmcp
//! ([`transport`]), and an input that ends on a signal ([`until`]).

mod serve_lines;
pub(crate) mod transport;
mod until;
