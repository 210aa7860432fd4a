//! The signal a server stops on: [`shutdown_signal`].

/// Resolves on Ctrl-C (SIGINT) or, on Unix, SIGTERM: what a terminal and a service manager
/// send to stop a server. Pass it to
/// [`McpHttp::serve_with_shutdown`](crate::McpHttp::serve_with_shutdown) or
/// [`McpServer::serve_stdio_until`](crate::McpServer::serve_stdio_until) so that calls in
/// flight are answered before the server returns.
///
/// ```no_run
/// # async fn run(server: lazytool_mcp::McpServer) -> Result<(), lazytool_mcp::McpError> {
/// server.serve_stdio_until(lazytool_mcp::shutdown_signal()).await
/// # }
/// ```
pub async fn shutdown_signal() {
    #[cfg(unix)]
    let terminated = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => drop(signal.recv().await),
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminated = std::future::pending::<()>();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
}
