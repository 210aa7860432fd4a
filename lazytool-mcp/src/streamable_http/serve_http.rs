//! Serving an [`McpServer`] over streamable HTTP: `McpServer::http` and `serve_http`, as
//! `serve_stdio` is for stdio, and [`McpHttp`]'s accept loop (`serve` and its kin).

use std::net::SocketAddr;

use tokio::net::{TcpListener, ToSocketAddrs};

use super::drain::Drain;
use super::mcp_http::{MCP_PATH, McpHttp};
use super::{connections, open_files};
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

impl McpHttp {
    /// Binds `addr` and serves [`router`](McpHttp::router) until the
    /// [shutdown token](McpHttp::shutdown_on) is cancelled, then drains.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// use lazytool_runtime::CancellationToken;
    ///
    /// let stop = CancellationToken::new();
    /// let serving = tokio::spawn(server.http().shutdown_on(stop.clone()).serve("127.0.0.1:0"));
    /// stop.cancel(); // on a signal, say
    /// serving.await.unwrap().unwrap();
    /// # }
    /// ```
    pub async fn serve(self, addr: impl ToSocketAddrs) -> Result<(), McpError> {
        let listener = TcpListener::bind(addr).await.map_err(McpError::Io)?;
        self.serve_on(listener).await
    }

    /// Binds `addr` and serves until `signal` resolves (or the
    /// [shutdown token](McpHttp::shutdown_on) is cancelled), then drains: accepting stops,
    /// `/readyz` answers 503, long-lived streams end, requests in flight finish within the
    /// [drain timeout](super::limits::HttpLimits::drain_timeout) (the rest are cut), sessions
    /// end; then it returns.
    ///
    /// ```rust,no_run
    /// # async fn run(server: lazytool_mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
    /// // Cancelled by a signal handler, say.
    /// let stop = lazytool_runtime::CancellationToken::new();
    /// server.http().serve_with_shutdown("127.0.0.1:8080", stop.cancelled_owned()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_with_shutdown(
        self,
        addr: impl ToSocketAddrs,
        signal: impl Future<Output = ()>,
    ) -> Result<(), McpError> {
        let listener = TcpListener::bind(addr).await.map_err(McpError::Io)?;
        self.serve_on_with_shutdown(listener, signal).await
    }

    /// Serves on a bound listener (bind port 0 to let the system pick a free port) until the
    /// [shutdown token](McpHttp::shutdown_on) is cancelled, then drains.
    ///
    /// ```rust,no_run
    /// # async fn run(server: lazytool_mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// println!("serving at http://{}/mcp", listener.local_addr()?);
    /// server.http().serve_on(listener).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_on(self, listener: TcpListener) -> Result<(), McpError> {
        self.serve_on_with_shutdown(listener, std::future::pending())
            .await
    }

    /// Serves on a bound listener until `signal` resolves (or the
    /// [shutdown token](McpHttp::shutdown_on) is cancelled), then drains as
    /// [`serve_with_shutdown`](McpHttp::serve_with_shutdown) does.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let serving = tokio::spawn(server.http().serve_on_with_shutdown(listener, async {
    ///     stopped.await.unwrap_or_default();
    /// }));
    /// stop.send(()).unwrap_or_default();
    /// serving.await??;
    /// # Ok(()) }
    /// ```
    pub async fn serve_on_with_shutdown(
        self,
        listener: TcpListener,
        signal: impl Future<Output = ()>,
    ) -> Result<(), McpError> {
        let local = listener.local_addr().map_err(McpError::Io)?;
        self.warn_about_hosts(local);
        tracing::info!(target: "lazytool::mcp", "serving MCP at http://{local}{MCP_PATH}");
        let mut this = self;
        this.limits = this
            .limits
            .within_open_files(open_files::open_files_limit());
        let drain = Drain::of_serving_loop(this.shutdown.clone(), this.limits.drain_timeout);
        let (router, mcp) = this.routes_draining(&drain);
        let shutdown = this.shutdown.clone();
        let stop = async move {
            tokio::select! {
                () = signal => {}
                () = shutdown.cancelled() => {}
            }
        };
        let routes = connections::Routes::new(router, mcp);
        connections::serve(listener, routes, this.limits, drain, this.metrics, stop).await;
        tracing::info!(target: "lazytool::mcp", "stopped serving MCP at http://{local}{MCP_PATH}");
        Ok(())
    }

    fn warn_about_hosts(&self, local: SocketAddr) {
        if !local.ip().is_loopback() && self.hosts.is_none() {
            tracing::warn!(
                target: "lazytool::mcp",
                %local,
                "listening beyond this machine, but only the loopback host names are accepted: set McpHttp::allowed_hosts to the names clients use"
            );
        }
    }
}
