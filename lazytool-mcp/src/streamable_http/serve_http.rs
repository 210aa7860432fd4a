//! Serving an [`McpServer`] over streamable HTTP: `McpServer::http` and `serve_http`, as
//! `serve_stdio` is for stdio.

use super::mcp_http::McpHttp;
use crate::error::McpError;
use crate::server::McpServer;

impl McpServer {
    /// Streamable HTTP serving for this server, with the defaults of [`McpHttp::new`]; set
    /// its options, then serve it or mount it in an axum router.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp::McpServer;
    ///
    /// # async fn run(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
    /// server.http().bearer_token("a secret").serve("127.0.0.1:8080").await?;
    /// # Ok(()) }
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
    pub fn http(&self) -> McpHttp {
        McpHttp::new(self.clone())
    }

    /// Serves streamable HTTP at `http://ADDR/mcp` until the process ends, with the defaults
    /// of [`McpHttp::new`] (no token, localhost origins): `server.http().serve(addr)`.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::Registry;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// McpServer::new(Registry::from_inventory()?).serve_http("127.0.0.1:8080").await?;
    /// # Ok(()) }
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> Result<(), McpError> {
        self.http().serve(addr).await
    }
}
