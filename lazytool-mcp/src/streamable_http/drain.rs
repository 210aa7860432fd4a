//! Graceful shutdown: [`Drain`]. When the shutdown token is cancelled, long-lived streams end,
//! new sessions are refused and `/readyz` answers 503; requests in flight run to their end
//! within the drain timeout; then rmcp's sessions are stopped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use lazytool_runtime::CancellationToken;
use tokio::sync::watch;

/// The shutdown state shared by the serving loop and the service.
#[derive(Clone)]
pub(crate) struct Drain {
    /// Cancelled to start the drain (the application's shutdown token).
    pub(crate) shutdown: CancellationToken,
    /// Cancelled once the drain is over: rmcp then ends every session.
    pub(crate) stopped: CancellationToken,
    in_flight: Arc<watch::Sender<usize>>,
    watching: Arc<AtomicBool>,
    timeout: Duration,
}

/// A request in flight: the drain waits until it is dropped.
pub(crate) struct InFlight(Arc<watch::Sender<usize>>);

impl Drain {
    pub(crate) fn new(shutdown: CancellationToken, timeout: Duration) -> Self {
        Drain {
            shutdown,
            stopped: CancellationToken::new(),
            in_flight: Arc::new(watch::Sender::new(0)),
            watching: Arc::new(AtomicBool::new(false)),
            timeout,
        }
    }

    /// The drain of the crate's own serving loop, which stops the sessions itself once its
    /// connections are closed: a request can still arrive after the count of requests in
    /// flight touches zero (its head was half read at the shutdown), so [`watch`](Self::watch)
    /// must not stop them then.
    pub(crate) fn of_serving_loop(shutdown: CancellationToken, timeout: Duration) -> Self {
        let drain = Drain::new(shutdown, timeout);
        drain.watching.store(true, Ordering::Release);
        drain
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.shutdown.is_cancelled()
    }

    pub(crate) fn enter(&self) -> InFlight {
        self.in_flight.send_modify(|count| *count += 1);
        InFlight(Arc::clone(&self.in_flight))
    }

    /// Starts, once, the task that stops the sessions after the drain: the service mounted in
    /// an application's own server drains too (the crate's own loop does it itself).
    pub(crate) fn watch(&self) {
        if self.watching.swap(true, Ordering::AcqRel) {
            return;
        }
        let drain = self.clone();
        tokio::spawn(async move {
            drain.shutdown.cancelled().await;
            drain.finish().await;
        });
    }

    /// Waits until no request is in flight or the drain timeout passed, then stops the
    /// sessions.
    pub(crate) async fn finish(&self) {
        let mut in_flight = self.in_flight.subscribe();
        let idle = in_flight.wait_for(|count| *count == 0);
        if tokio::time::timeout(self.timeout, idle).await.is_err() {
            let cut = *self.in_flight.borrow();
            tracing::warn!(target: "lazytool::mcp", requests = cut, timeout = ?self.timeout, "drain timeout: cutting the requests still running");
        }
        self.stopped.cancel();
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|count| *count = count.saturating_sub(1));
    }
}
