//! Graceful shutdown: [`Drain`]. When the shutdown token is cancelled, long-lived streams end,
//! new sessions are refused and `/readyz` answers 503; requests in flight run to their end
//! within the drain timeout; then rmcp's sessions are stopped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use lazytool_runtime::CancellationToken;
use tokio::sync::Notify;

/// The shutdown state shared by the serving loop and the service.
#[derive(Clone)]
pub(crate) struct Drain {
    /// Cancelled to start the drain (the application's shutdown token).
    pub(crate) shutdown: CancellationToken,
    /// Cancelled once the drain is over: rmcp then ends every session.
    pub(crate) stopped: CancellationToken,
    in_flight: Arc<InFlightCount>,
    watching: Arc<AtomicBool>,
    timeout: Duration,
}

/// How many requests are in flight, and a wake-up for whoever waits for none. An atomic, not a
/// `watch` channel: every request enters and leaves, and a channel's lock and wake of its
/// waiters cost each of them about a thousand instructions.
#[derive(Default)]
struct InFlightCount {
    count: AtomicUsize,
    none: Notify,
}

/// A request in flight: the drain waits until it is dropped.
pub(crate) struct InFlight(Arc<InFlightCount>);

impl Drain {
    pub(crate) fn new(shutdown: CancellationToken, timeout: Duration) -> Self {
        Drain {
            shutdown,
            stopped: CancellationToken::new(),
            in_flight: Arc::default(),
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
        self.in_flight.count.fetch_add(1, Ordering::AcqRel);
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
        let idle = async {
            loop {
                let none = self.in_flight.none.notified();
                let mut none = std::pin::pin!(none);
                // Listening before reading the count: a last request leaving in between
                // wakes this wait instead of being missed.
                none.as_mut().enable();
                if self.in_flight.count.load(Ordering::Acquire) == 0 {
                    return;
                }
                none.await;
            }
        };
        if tokio::time::timeout(self.timeout, idle).await.is_err() {
            let cut = self.in_flight.count.load(Ordering::Acquire);
            tracing::warn!(target: "lazytool::mcp", requests = cut, timeout = ?self.timeout, "drain timeout: cutting the requests still running");
        }
        self.stopped.cancel();
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.none.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_drain_ends_when_the_last_request_in_flight_leaves() {
        let drain = Drain::new(CancellationToken::new(), Duration::from_secs(60));
        let (first, second) = (drain.enter(), drain.enter());
        let finished = tokio::spawn({
            let drain = drain.clone();
            async move { drain.finish().await }
        });
        drop(first);
        tokio::task::yield_now().await;
        assert!(
            !drain.stopped.is_cancelled(),
            "one request is still in flight"
        );
        drop(second);
        finished.await.expect("the drain ends");
        assert!(drain.stopped.is_cancelled());
        // Nothing in flight: a later drain ends at once.
        drain.finish().await;
    }
}
