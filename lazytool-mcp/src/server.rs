//! Serving a registry over MCP: [`McpServer`].

use rmcp::ServiceExt;
use rmcp::model::{Implementation, ServerConfig};
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use crate::connection::{McpConnection, capabilities};
use crate::error::McpError;
use crate::transport::{self, LineTransport, OUTBOX_CAPACITY};
use lazytool_runtime::{Registry, SessionOptions};

/// The default of [`McpServer::max_line_bytes`]: 4 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// An MCP server for a [`Registry`], one [`Session`](lazytool_runtime::Session) per connection.
///
/// ```rust,no_run
/// # async fn run(registry: lazytool_runtime::Registry) -> Result<(), lazytool_mcp::McpError> {
/// use lazytool_mcp::McpServer;
///
/// McpServer::new(registry).serve_stdio().await
/// # }
/// ```
///
/// Cheap to clone; [`serve`](McpServer::serve) may run for many connections at once.
#[derive(Clone, Debug)]
#[must_use]
pub struct McpServer {
    registry: Registry,
    options: SessionOptions,
    max_line_bytes: usize,
    name: String,
    version: String,
    instructions: Option<String>,
}

impl McpServer {
    /// A server for `registry`, with default session options, a line limit of
    /// [`DEFAULT_MAX_LINE_BYTES`], and `lazytool` with this crate's version as the server
    /// name clients see.
    pub fn new(registry: Registry) -> Self {
        McpServer {
            registry,
            options: SessionOptions::default(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            name: "lazytool".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
        }
    }

    /// The options of every connection's session (discovery listing, gating).
    pub fn options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }

    /// The longest message accepted, in bytes (newline excluded). A longer line is skipped
    /// without being buffered and answered with a JSON-RPC error (`-32600`).
    pub fn max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max;
        self
    }

    /// The name and version clients are told in `serverInfo`.
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// Instructions for the client's model, sent with the handshake.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// A new connection with a fresh session, for serving over another rmcp transport.
    pub fn connection(&self) -> McpConnection {
        let mut config = ServerConfig::new(capabilities())
            .with_server_info(Implementation::new(&self.name, &self.version));
        config.instructions.clone_from(&self.instructions);
        McpConnection::new(self.registry.session_with(self.options.clone()), config)
    }

    /// Serves one connection on the process's stdin and stdout until the client closes
    /// stdin. Log to stderr only: stdout carries the protocol.
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        self.serve(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves one connection of newline-delimited JSON-RPC over `reader` and `writer` until
    /// `reader` ends, then shuts `writer` down.
    ///
    /// Every request gets an answer: a line that is not JSON (or nests deeper than
    /// serde_json's recursion limit) gets `-32700`, JSON that is not a JSON-RPC message
    /// `-32600`, a request with malformed params `-32602`, a line over
    /// [`max_line_bytes`](McpServer::max_line_bytes) `-32600`; each with the request id when
    /// it can be read from the raw text, else `null`. The connection keeps serving after
    /// each.
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> Result<(), McpError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send,
    {
        let (outbox, lines) = mpsc::channel(OUTBOX_CAPACITY);
        let connection = self.connection();
        let closed = connection.input_closed();
        let transport = LineTransport::new(reader, self.max_line_bytes, outbox, closed);
        // The transport and every pending send hold the outbox: once rmcp is done with
        // them, the writer drains what is left and ends.
        let served = async move {
            match connection.serve(transport).await {
                Ok(running) => running.waiting().await.map(drop).map_err(McpError::Task),
                Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
                Err(error) => Err(McpError::Handshake(error.to_string())),
            }
        };
        let (served, written) = tokio::join!(served, transport::write_lines(writer, lines));
        served?;
        written.map_err(McpError::Io)
    }
}
