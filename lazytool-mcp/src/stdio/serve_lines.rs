//! Serving one connection of newline-delimited JSON-RPC: on stdin and stdout, or on any
//! reader and writer.

use std::pin::Pin;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::transport::{LineTransport, OUTBOX_CAPACITY};
use super::until::Until;
use crate::error::McpError;
use crate::jsonrpc::lines::write_lines;
use crate::server::McpServer;

impl McpServer {
    /// Serves one connection on the process's stdin and stdout until the client closes
    /// stdin. Log to stderr only: stdout carries the protocol.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::Registry;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// McpServer::new(Registry::from_inventory()?).serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        self.serve(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves one connection on stdin and stdout until the client closes stdin or `stop`
    /// resolves (a signal, say): see [`serve_until`](McpServer::serve_until).
    ///
    /// ```rust,no_run
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::Registry;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// // Cancelled by a signal handler, say.
    /// let stop = lazytool_runtime::CancellationToken::new();
    /// McpServer::new(Registry::from_inventory()?)
    ///     .serve_stdio_until(stop.cancelled_owned())
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_stdio_until(
        &self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        self.serve_until(tokio::io::stdin(), tokio::io::stdout(), stop)
            .await
    }

    /// [`serve`](McpServer::serve), also ending when `stop` resolves: then no more input is
    /// read, and the requests in flight are answered (rmcp waits up to 5 s for them) before
    /// it returns.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let (_client, connection) = tokio::io::duplex(64 * 1024);
    /// let (reader, writer) = tokio::io::split(connection);
    /// // The client never closes its end: the server stops on its own.
    /// McpServer::new(registry).serve_until(reader, writer, async {}).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_until<R, W>(
        &self,
        reader: R,
        writer: W,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send,
    {
        self.lines(Box::new(Until::new(reader, stop)), Box::new(writer))
            .await
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
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    /// use serde_json::Value;
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let (client, connection) = tokio::io::duplex(64 * 1024);
    /// let (reader, writer) = tokio::io::split(connection);
    /// let server = McpServer::new(registry);
    /// let serving = tokio::spawn(async move { server.serve(reader, writer).await });
    ///
    /// let (output, mut input) = tokio::io::split(client);
    /// input.write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\"\n").await?;
    /// let mut lines = BufReader::new(output).lines();
    /// let reply: Value = serde_json::from_str(&lines.next_line().await?.unwrap_or_default())?;
    /// assert_eq!((&reply["id"], &reply["error"]["code"]), (&Value::from(7), &Value::from(-32700)));
    ///
    /// // Serving ends with the input.
    /// input.shutdown().await?;
    /// serving.await??;
    /// # Ok(()) }
    /// ```
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> Result<(), McpError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send,
    {
        self.lines(Box::new(reader), Box::new(writer)).await
    }

    /// The serving of [`serve`](McpServer::serve), built here rather than in the crate that
    /// awaits it. rustc compiles an `async fn`'s body in every crate that awaits it, and with
    /// it each generic future that body awaits: without this boundary, each server's own crate
    /// compiled rmcp's serving loop, the transport and the handler's futures again, in its
    /// incremental build's many units (8 MB of the debug information of a crate of 200
    /// `#[tool]`s served over stdio). With the reader and writer boxed, all that is one
    /// instance, compiled once in this crate.
    #[inline(never)]
    fn lines<'a>(&'a self, reader: Reader, writer: Writer<'a>) -> Serving<'a> {
        Box::pin(self.serve_lines(reader, writer))
    }

    async fn serve_lines(&self, reader: Reader, writer: Writer<'_>) -> Result<(), McpError> {
        let (outbox, lines) = mpsc::channel(OUTBOX_CAPACITY);
        let connection = self.connection();
        let closed = connection.input_closed();
        let transport = LineTransport::new(reader, self.max_message_bytes(), outbox, closed);
        // The transport and every pending send hold the outbox: once rmcp is done with
        // them, the writer drains what is left and ends.
        let served = async move {
            match connection.serve(transport).await {
                Ok(running) => running.waiting().await.map(drop).map_err(McpError::Task),
                Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
                Err(error) => Err(McpError::Handshake(error.to_string())),
            }
        };
        let (served, written) = tokio::join!(served, write_lines(writer, lines));
        served?;
        written.map_err(McpError::Io)
    }
}

/// What [`McpServer::serve`] reads, boxed: see [`McpServer::lines`].
type Reader = Box<dyn AsyncRead + Unpin + Send>;
/// What [`McpServer::serve`] writes, boxed.
type Writer<'a> = Box<dyn AsyncWrite + Unpin + Send + 'a>;
/// A connection's serving, boxed.
type Serving<'a> = Pin<Box<dyn Future<Output = Result<(), McpError>> + Send + 'a>>;
