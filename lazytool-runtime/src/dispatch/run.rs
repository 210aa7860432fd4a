//! Running an admitted call: its future polled with panics caught and under its timeout,
//! and the outcome turned into the call's result.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::Poll;

use super::admission::Admitted;
use super::deadline;
use super::panic::{panic_message, panicked};
use super::span::{CallSpan, trace_outcome};
use crate::call::{CallCancellation, ToolErrorKind, ToolResult, cut_output};
use crate::tool::{CallFuture, Tool};

/// Runs an admitted call with panics caught and its timeout, or returns the answer given
/// instead.
#[inline]
pub(crate) fn run(admitted: Result<Admitted, ToolResult>) -> Run {
    Run(match admitted {
        Ok(Admitted {
            tool,
            future,
            cancellation,
            span,
        }) => RunState::Running {
            started: tracing::enabled!(target: "lazytool::call", tracing::Level::DEBUG)
                .then(std::time::Instant::now),
            timer: Timer::Unarmed,
            future,
            tool,
            cancellation,
            span,
        },
        Err(answer) => RunState::Answered(Box::new(answer)),
    })
}

/// A call in flight, as [`Registry::call`](crate::Registry::call) and
/// [`Session::call`](crate::Session::call) return it: the tool's future polled with panics
/// caught and under its timeout, in one hand-written state machine of a few words (an answer
/// given up front, an error, is boxed), since it is moved at least once on every call.
///
/// A call given up — timed out, or dropped by its caller before it finished — cancels the
/// tool's [`ToolContext`](crate::ToolContext) token, so that work the tool spawned and tied
/// to it stops too; the tool's future is dropped with panics caught.
pub(crate) struct Run(RunState);

enum RunState {
    Answered(Box<ToolResult>),
    Running {
        tool: Tool,
        future: CallFuture,
        timer: Timer,
        started: Option<std::time::Instant>,
        cancellation: Option<CallCancellation>,
        /// The execute tool span, entered while the tool's future is polled.
        span: CallSpan,
    },
    Finished,
}

/// The timeout's timer: armed only when the tool is still pending after its first poll, so
/// that calls that finish at once never touch the timer wheel.
enum Timer {
    Unarmed,
    Armed(Pin<Box<tokio::time::Sleep>>),
    /// No timeout configured, or no tokio timer available (see [`deadline::arm`]).
    Off,
}

impl Future for Run {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<ToolResult> {
        let state = &mut self.get_mut().0;
        let outcome = match state {
            RunState::Running {
                tool,
                future,
                timer,
                span,
                ..
            } => {
                let _entered = span.enter();
                match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                    Ok(Poll::Ready(result)) => Some(Ok(result)),
                    Err(payload) => Some(Err(payload)),
                    Ok(Poll::Pending) => {
                        if let Timer::Unarmed = timer {
                            *timer = match tool.inner().limits.timeout.and_then(deadline::arm) {
                                Some(sleep) => Timer::Armed(sleep),
                                None => Timer::Off,
                            };
                        }
                        match timer {
                            Timer::Armed(sleep) => match sleep.as_mut().poll(cx) {
                                Poll::Ready(()) => None,
                                Poll::Pending => return Poll::Pending,
                            },
                            _ => return Poll::Pending,
                        }
                    }
                }
            }
            RunState::Answered(_) => None,
            // Polled again after it finished: never ready again (the `Future` contract).
            RunState::Finished => return Poll::Pending,
        };
        match std::mem::replace(state, RunState::Finished) {
            RunState::Answered(answer) => Poll::Ready(*answer),
            RunState::Running {
                tool,
                started,
                future,
                timer,
                cancellation,
                span,
            } => {
                let entered = span.enter();
                if outcome.is_none()
                    && let Some(cancellation) = &cancellation
                {
                    cancellation.cancel();
                }
                drop_caught(&tool, future);
                // Most calls finish before their timer is armed: nothing to drop then.
                if let Timer::Armed(sleep) = timer {
                    drop_sleep(sleep);
                }
                let result = finish(&tool, outcome, started);
                drop(entered);
                span.close(&result);
                Poll::Ready(result)
            }
            RunState::Finished => Poll::Pending,
        }
    }
}

impl Drop for Run {
    #[inline]
    fn drop(&mut self) {
        // Most calls are dropped once they finished: nothing to give up then.
        if matches!(self.0, RunState::Running { .. }) {
            self.give_up();
        }
    }
}

impl Run {
    /// Gives up a call dropped before it finished: its token cancelled, its future dropped.
    #[cold]
    #[inline(never)]
    fn give_up(&mut self) {
        if let RunState::Running {
            tool,
            future,
            cancellation,
            span,
            ..
        } = std::mem::replace(&mut self.0, RunState::Finished)
        {
            let _entered = span.enter();
            if let Some(cancellation) = &cancellation {
                cancellation.cancel();
            }
            drop_caught(&tool, future);
        }
    }
}

/// Drops a tool's future, which runs the destructors of everything it holds, with a panic
/// among them caught and logged: it must not reach the caller's task.
#[inline]
fn drop_caught(tool: &Tool, future: CallFuture) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(future))) {
        tracing::error!(
            target: "lazytool::call",
            tool = %tool.name(),
            panic = panic_message(&*payload),
            "a value of the tool panicked while it was dropped"
        );
    }
}

/// The result of a call that ran: its output cut to the limit, or the error for a timeout
/// (`None`) or a panic; the outcome traced.
#[inline]
fn finish(
    tool: &Tool,
    outcome: Option<Result<ToolResult, Box<dyn std::any::Any + Send>>>,
    started: Option<std::time::Instant>,
) -> ToolResult {
    let limits = &tool.inner().limits;
    let result = match outcome {
        Some(Ok(result)) => cut_output(result, limits.max_output_bytes),
        None => ToolResult::error(
            ToolErrorKind::TimedOut,
            format!(
                "Error: tool '{}' did not finish within its time limit of {:?} and was stopped. It may have done part of its work: check before calling it again.",
                tool.name(),
                limits.timeout.unwrap_or_default()
            ),
        ),
        Some(Err(payload)) => panicked(tool.name(), &*payload),
    };
    trace_outcome(tool, &result, started);
    result
}

#[cold]
#[inline(never)]
fn drop_sleep(sleep: Pin<Box<tokio::time::Sleep>>) {
    drop(sleep);
}
