//! The signal a server stops on: [`shutdown_signal`].

use std::future::Future;

/// Resolves on Ctrl-C (SIGINT) or, on Unix, SIGTERM: what a terminal and a service manager
/// send to stop a server. Pass it to
/// [`McpHttp::serve_with_shutdown`](crate::McpHttp::serve_with_shutdown) or
/// [`McpServer::serve_stdio_until`](crate::McpServer::serve_stdio_until) so that calls in
/// flight are answered before the server returns.
///
/// On Unix the handlers are installed when this function is called, not when the future is
/// first polled: a signal that arrives in between is not lost. Once installed they stay for
/// the life of the process, so a signal that arrives while no future of this function is
/// alive is swallowed rather than stopping the process: call it once, early, and keep the
/// future until the server has stopped.
///
/// ```no_run
/// # async fn run(server: lazytool_mcp::McpServer) -> Result<(), lazytool_mcp::McpError> {
/// server.serve_stdio_until(lazytool_mcp::shutdown_signal()).await
/// # }
/// ```
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupted = signal(SignalKind::interrupt());
        let terminated = signal(SignalKind::terminate());
        async move {
            let next = |signal: std::io::Result<tokio::signal::unix::Signal>| async move {
                match signal {
                    Ok(mut signal) => drop(signal.recv().await),
                    Err(_) => std::future::pending().await,
                }
            };
            tokio::select! {
                () = next(interrupted) => {}
                () = next(terminated) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        drop(tokio::signal::ctrl_c().await);
    }
}
