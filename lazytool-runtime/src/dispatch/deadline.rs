//! The per-call timeout's timer (armed by [`Run`](super::Run) when a call is still
//! pending after its first poll).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Sleep;

static TIMERS_UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// A tokio timer, or `None` outside a tokio runtime with timers enabled (calls then run
/// without a timeout, which is logged once).
pub(crate) fn arm(timeout: Duration) -> Option<Pin<Box<Sleep>>> {
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
