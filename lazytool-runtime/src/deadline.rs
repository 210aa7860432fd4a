//! The per-call timeout: a timer armed only when the tool's future is still pending after its
//! first poll, so that calls that finish at once never touch the timer wheel.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Sleep;

/// Resolves to `Some(output)`, or `None` when `timeout` passed first.
pub(crate) struct Deadline<F> {
    future: F,
    timeout: Option<Duration>,
    timer: Option<Pin<Box<Sleep>>>,
}

impl<F> Deadline<F> {
    pub(crate) fn new(future: F, timeout: Option<Duration>) -> Self {
        Deadline {
            future,
            timeout,
            timer: None,
        }
    }
}

impl<F: Future + Unpin> Future for Deadline<F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Poll::Ready(output) = Pin::new(&mut this.future).poll(cx) {
            return Poll::Ready(Some(output));
        }
        if this.timer.is_none()
            && let Some(timeout) = this.timeout.take()
        {
            this.timer = arm(timeout);
        }
        match &mut this.timer {
            Some(timer) => timer.as_mut().poll(cx).map(|()| None),
            None => Poll::Pending,
        }
    }
}

static TIMERS_UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// A tokio timer, or `None` outside a tokio runtime with timers enabled (calls then run
/// without a timeout, which is logged once).
fn arm(timeout: Duration) -> Option<Pin<Box<Sleep>>> {
    if TIMERS_UNAVAILABLE.load(Ordering::Relaxed) || tokio::runtime::Handle::try_current().is_err()
    {
        return None;
    }
    // tokio panics when its runtime was built without `enable_time`; there is no way to ask.
    match catch_unwind(AssertUnwindSafe(|| Box::pin(tokio::time::sleep(timeout)))) {
        Ok(timer) => Some(timer),
        Err(_) => {
            TIMERS_UNAVAILABLE.store(true, Ordering::Relaxed);
            tracing::warn!(
                target: "lazytool::call",
                "the tokio runtime has no timers (`enable_time`): tool calls run without a timeout"
            );
            None
        }
    }
}
