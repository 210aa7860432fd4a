//! The accept loop: each connection with `TCP_NODELAY`, served by hyper's HTTP/1 with a
//! header read timeout, at most `max_connections` at once (over that, the connection idle
//! longest is closed to make room ([`IdleConnections`]) and its place is owed to the new one
//! ([`Slots`]); with none idle, the new one gets 503 and is closed), and on shutdown the drain: accepting stops, each connection finishes the
//! request it is answering and closes, within the drain timeout.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::body::refusal;
use super::drain::Drain;
use super::forwarded::PeerAddress;
use super::guard::McpHttpService;
use super::idle::{IdleConnections, Tracked};
use super::limits::HttpLimits;
use super::mcp_http::MCP_PATH;
use super::metrics::{HttpMetrics, Refusal};
use super::slots::Slots;

/// Connections over the cap answered at once; beyond these they are closed unanswered.
const MAX_REFUSING: usize = 64;
/// How long a connection over the cap may take to send the request it is refused.
const REFUSAL_READ_TIMEOUT: Duration = Duration::from_secs(1);
/// The longest pause after an accept error (out of descriptors, say) before accepting again:
/// shorter when an idle connection closed for it gives its descriptor back sooner.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// How long a new connection waits for the place of the idle one closed for it (a moment,
/// unless the machine is loaded: generous, since each waiting one stands for one closed).
const SHED_WAIT: Duration = Duration::from_secs(5);
/// The period of the accept loop's tick, which keeps a timer due within this time: see
/// `serve`.
const TIMER_TICK: Duration = Duration::from_secs(1);

/// What the accept loop serves: the MCP path straight to its service, every other path
/// through the router, whose routing and boxes would cost each MCP request about 2,500
/// instructions more (callgrind, `add`, 1 client).
#[derive(Clone)]
pub(crate) struct Routes {
    router: TowerToHyperService<Router>,
    /// The service the router serves at [`MCP_PATH`].
    mcp: McpHttpService,
}

impl Routes {
    /// `router`, which serves `mcp` at [`MCP_PATH`].
    pub(crate) fn new(router: Router, mcp: McpHttpService) -> Self {
        Routes {
            router: TowerToHyperService::new(router),
            mcp,
        }
    }

    /// The answer to `request`, from the service its path names.
    fn call(&self, request: Request<Incoming>) -> Answering {
        if request.uri().path() == MCP_PATH {
            return tower_service::Service::call(&mut self.mcp.clone(), request.map(Body::new));
        }
        Box::pin(hyper::service::Service::call(&self.router, request))
    }
}

type Answering = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

/// Serves `routes` on `listener` until `stop` resolves, then drains.
pub(crate) async fn serve(
    listener: TcpListener,
    routes: Routes,
    limits: HttpLimits,
    drain: Drain,
    metrics: HttpMetrics,
    stop: impl Future<Output = ()>,
) {
    let slots = Slots::new(limits.max_connections);
    let idle = Arc::new(IdleConnections::default());
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    // hyper arms a header read timer for every request. Tokio wakes its timer driver when a
    // timer is due before the driver's next wake, which with only far timers (idle sessions,
    // minutes away) meant an eventfd write and a worker woken for nothing on every request.
    // A timer that is never more than a second away keeps every header deadline later than it.
    let mut tick = tokio::time::interval(TIMER_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stop = std::pin::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => break,
            _ = tick.tick() => continue,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::warn!(target: "lazytool::mcp", %error, "cannot accept a connection");
                    // Out of descriptors, most likely: an idle connection gives one back.
                    let closed = idle.shed_one().unwrap_or_else(CancellationToken::new);
                    let _ = tokio::time::timeout(ACCEPT_BACKOFF, closed.cancelled()).await;
                    continue;
                }
            },
        };
        // Answers may leave in several writes (a slow call's priming event, then its message):
        // with Nagle's algorithm the last one would wait for the client's delayed ACK (40 ms).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(target: "lazytool::mcp", %error, "cannot set TCP_NODELAY");
        }
        let slot = match slots.take() {
            Some(slot) => Ok(slot),
            // The shed connection's task gives its place back in a moment: wait for it.
            None if idle.shed_one().is_some() => Err(slots.owe()),
            None => {
                metrics.refuse(Refusal::Connections);
                if let Ok(refusing) = Arc::clone(&refusing).try_acquire_owned() {
                    connections.spawn(async move {
                        refuse(stream).await;
                        drop(refusing);
                    });
                }
                continue;
            }
        };
        let tracked = Arc::new(idle.open());
        let shed = tracked.shed.clone();
        let closed = tracked.closed.clone();
        let service = tracking(routes.clone(), tracked, PeerAddress(peer));
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        let metrics = metrics.clone();
        connections.spawn(async move {
            // Dropped last: the connection is closed by then.
            let _closed = closed.drop_guard();
            let connection = connection;
            let slot = match slot {
                Ok(slot) => slot,
                Err(owed) => match owed.wait(SHED_WAIT).await {
                    Some(slot) => slot,
                    None => return,
                },
            };
            metrics.connections.inc();
            tokio::select! {
                served = connection => if let Err(error) = served {
                    tracing::debug!(target: "lazytool::mcp", %error, "connection ended with an error");
                },
                () = shed.cancelled() => {}
            }
            metrics.connections.dec();
            drop(slot);
        });
    }
    drop(listener);
    drain.shutdown.cancel();
    tracing::info!(target: "lazytool::mcp", connections = graceful.count(), timeout = ?limits.drain_timeout, "draining");
    if tokio::time::timeout(limits.drain_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(target: "lazytool::mcp", "drain timeout: closing the connections still open");
    }
    connections.shutdown().await;
    // The connections are closed, so no request is in flight any more: the sessions stop.
    drain.finish().await;
}

/// `service`, marking the connection busy while a request's answer is being sent, and
/// telling each request the connection's peer.
fn tracking(
    routes: Routes,
    tracked: Arc<Tracked>,
    peer: PeerAddress,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = Response<Body>,
    Error = Infallible,
    Future = impl Future<Output = Result<Response<Body>, Infallible>> + Send,
> + Clone {
    hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(peer);
        let working = tracked.working();
        let answer = routes.call(request);
        async move {
            let response = answer.await?;
            // The body carries the mark until its last byte is sent (or the client goes).
            Ok(response.map(|body| {
                Body::new(body.map_frame(move |frame| {
                    let _working = &working;
                    frame
                }))
            }))
        }
    })
}

/// Answers one request of a connection over the cap with 503 and closes it.
async fn refuse(stream: TcpStream) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(REFUSAL_READ_TIMEOUT)
        .keep_alive(false);
    let service = hyper::service::service_fn(|_| async {
        let mut response = refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            "Service unavailable: too many connections; retry later",
        );
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        Ok::<_, Infallible>(response)
    });
    let served = http.serve_connection(TokioIo::new(stream), service);
    if let Err(error) = served.await {
        tracing::debug!(target: "lazytool::mcp", %error, "a refused connection ended with an error");
    }
}
