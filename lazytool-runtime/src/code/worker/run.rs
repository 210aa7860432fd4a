//! One script on a worker, from the async side: a place among the scripts that run, a worker
//! from the pool, its CPU budget, the script sent, and its end awaited; at its deadline plus a
//! grace, or when its call is cancelled, the worker is killed.

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use super::broker::Broker;
use super::death;
use super::pool::{Pool, PoolKey, end};
use super::process::Outcome;
use super::wire::{Run, ToWorker};
use crate::call::{ToolContext, ToolErrorKind, ToolResult};
use crate::code::CodeMode;
use crate::code::host::{Bounds, CallTool};
use crate::code::outcome::Limit;

/// How long past its wall time a script's worker is given to stop by itself before it is
/// killed: the engine's interrupt ends most scripts well within it; what QuickJS does not
/// interrupt (a builtin's long loop) ends here.
const KILL_GRACE: Duration = Duration::from_millis(250);

/// Room in a frame beyond the values it carries (keys, numbers, escapes).
const FRAME_SLACK: usize = 64 << 10;

/// Runs `source` in a worker process, its tool calls through `call`.
pub(crate) async fn run(
    source: String,
    call: CallTool,
    context: &ToolContext,
    bounds: Bounds,
    mode: &CodeMode,
) -> ToolResult {
    // A worker's frames: a call's arguments, or its value and console (each bounded by the
    // output limit); JSON's escapes may make text up to six times longer.
    let max_frame = (bounds
        .max_argument_bytes
        .max(bounds.max_output.saturating_mul(2)))
    .saturating_mul(6)
    .saturating_add(FRAME_SLACK);
    let pool = Pool::shared(PoolKey::of(mode, max_frame));
    let _admitted = match pool.admit(context.cancellation()).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let worker = match pool.checkout().await {
        Ok(worker) => worker,
        Err(why) => return could_not_start(&why),
    };
    let cpu_seconds = bounds.wall_time.as_secs() + 1;
    if let Err(why) = worker.allow_cpu_seconds(cpu_seconds) {
        return could_not_start(&why);
    }
    let Some(outcome) = worker.begin(Broker::new(call, context, &bounds, worker.outbox())) else {
        return could_not_start("the worker was not idle");
    };
    let wall_time = bounds.wall_time;
    let max_output = bounds.max_output;
    let script = ToWorker::Run(Run {
        source,
        max_memory_bytes: mode.max_memory_bytes,
        max_stack_bytes: mode.max_stack_bytes,
        bounds,
    });
    if !worker.send(&script) {
        worker.kill();
    }
    let deadline = tokio::time::sleep(wall_time.saturating_add(KILL_GRACE));
    let cancelled = context.cancellation().cancelled();
    let (mut deadline, mut cancelled, mut outcome) = (pin!(deadline), pin!(cancelled), outcome);
    let mut killed_for = None;
    let ended = std::future::poll_fn(|cx| {
        if killed_for.is_none() {
            if cancelled.as_mut().poll(cx).is_ready() {
                killed_for = Some(Limit::Cancelled);
                worker.kill();
            } else if deadline.as_mut().poll(cx).is_ready() {
                killed_for = Some(Limit::WallTime(wall_time));
                worker.kill();
            }
        }
        std::pin::Pin::new(&mut outcome).poll(cx)
    })
    .await;
    let result = match (ended, killed_for) {
        (Ok(Outcome::Finished(finished)), None) => {
            let console_bytes: usize = finished.console.iter().map(|line| line.len() + 1).sum();
            if let Some(worn) = pool.checkin(worker) {
                end(worn).await;
            }
            if console_bytes > max_output {
                return Limit::Output(max_output).result();
            }
            return finished.result();
        }
        (_, Some(limit)) => limit.result(),
        (Ok(Outcome::Died(death)), None) => {
            death::result(&death, cpu_seconds, mode.max_memory_bytes)
        }
        (Err(_), None) => ToolResult::error(
            ToolErrorKind::ToolFailed,
            "Error: the script's worker died.",
        ),
    };
    end(worker).await;
    result
}

/// The result of a script whose worker could not start, with the fix.
fn could_not_start(why: &str) -> ToolResult {
    ToolResult::error(
        ToolErrorKind::ToolFailed,
        format!(
            "Error: the script could not run: its worker process could not start ({why}). \
             Scripts run in a worker process started from this same executable \
             (/proc/self/exe) with lazytool-runtime's `code-mode` linked in; where that cannot \
             be, `CodeMode::in_process()` runs them in the server's own process, with no \
             security boundary."
        ),
    )
}
