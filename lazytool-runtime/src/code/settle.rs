//! A script run until it ends, or until nothing can move it: pending with no tool call of its
//! own running (a script has no timers), it is stopped. Both runners use it: in process, and
//! in a worker.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use super::host::Host;
use super::outcome::{Ended, Finished, Limit};
use super::script;

/// Runs `source` in a fresh engine, its calls and console through `host`.
pub(super) async fn run(
    source: String,
    host: Arc<Host>,
    max_memory_bytes: usize,
    max_stack_bytes: usize,
) -> Finished {
    let script = script::run(source, Arc::clone(&host), max_memory_bytes, max_stack_bytes);
    let mut script = pin!(script);
    std::future::poll_fn(|cx| match script.as_mut().poll(cx) {
        Poll::Pending if host.is_stalled() => {
            // A limit reached (a busy job interrupted, say) is why: it is said first.
            host.reach(Limit::Stalled);
            Poll::Ready(Finished {
                ended: Ended::Stopped("stalled".to_owned()),
                reached: host.reached(),
                console: host.take_console(),
            })
        }
        polled => polled,
    })
    .await
}
