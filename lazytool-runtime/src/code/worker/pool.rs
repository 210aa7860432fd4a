//! Worker processes kept between scripts, and the global budget: how many scripts run at
//! once in all (each holds a worker, also while it awaits a tool), and how many wait, for how
//! long. Every [`CodeMode`] with the same worker settings shares one pool, so the cap holds
//! across sessions.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::process::WorkerProcess;
use super::wire::Start;
use crate::call::{ToolErrorKind, ToolResult};
use crate::code::CodeMode;

/// What a pool is made with: the settings of [`CodeMode`] that concern its workers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PoolKey {
    max_memory_bytes: usize,
    max_scripts: usize,
    max_queued_scripts: usize,
    max_queue_wait: Duration,
    max_idle_workers: usize,
    recycle_after_scripts: usize,
    recycle_above_bytes: u64,
    /// The largest frame the parent reads from a worker.
    max_frame: usize,
}

impl PoolKey {
    pub(super) fn of(mode: &CodeMode, max_frame: usize) -> PoolKey {
        PoolKey {
            max_memory_bytes: mode.max_memory_bytes,
            max_scripts: mode.max_scripts.max(1),
            max_queued_scripts: mode.max_queued_scripts,
            max_queue_wait: mode.max_queue_wait,
            max_idle_workers: mode.max_idle_workers,
            recycle_after_scripts: mode.recycle_after_scripts.max(1),
            recycle_above_bytes: mode.recycle_above_bytes as u64,
            max_frame,
        }
    }
}

/// The pools of this process, one per key: kept for the process's life (a pool holds at most
/// its idle workers).
static POOLS: Mutex<Vec<Arc<Pool>>> = Mutex::new(Vec::new());

/// Idle workers and the budget of one [`PoolKey`].
pub(super) struct Pool {
    key: PoolKey,
    idle: Mutex<Vec<WorkerProcess>>,
    slots: Arc<Semaphore>,
    queued: AtomicUsize,
}

/// A place among the scripts that run: held until the script ends.
pub(super) struct Admitted(#[allow(dead_code)] OwnedSemaphorePermit);

impl Pool {
    /// The pool of `key`, made on first use.
    pub(super) fn shared(key: PoolKey) -> Arc<Pool> {
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pool) = pools.iter().find(|pool| pool.key == key) {
            return Arc::clone(pool);
        }
        let pool = Arc::new(Pool {
            slots: Arc::new(Semaphore::new(key.max_scripts)),
            key,
            idle: Mutex::new(Vec::new()),
            queued: AtomicUsize::new(0),
        });
        pools.push(Arc::clone(&pool));
        pool
    }

    /// A place for one more script: at once if fewer than the cap run, else after a wait in
    /// a bounded queue; an error result naming the limit otherwise.
    pub(super) async fn admit(
        &self,
        cancelled: &CancellationToken,
    ) -> Result<Admitted, ToolResult> {
        if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
            return Ok(Admitted(permit));
        }
        let busy = |why: String| ToolResult::error(ToolErrorKind::ToolFailed, why);
        let cap = self.key.max_scripts;
        let queued = self.queued.fetch_add(1, Ordering::AcqRel);
        let _leave = Leave(&self.queued);
        if queued >= self.key.max_queued_scripts {
            return Err(busy(format!(
                "Error: the server runs its limit of {cap} scripts at once and {queued} more wait (the queue's limit): try again later."
            )));
        }
        let wait = self.key.max_queue_wait;
        let permit = tokio::time::timeout(wait, Arc::clone(&self.slots).acquire_owned());
        let cancelled = cancelled.cancelled();
        let (mut permit, mut cancelled) = (pin!(permit), pin!(cancelled));
        std::future::poll_fn(|cx| {
            if cancelled.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(busy(
                    "Error: the script was cancelled while it waited for a place.".to_owned(),
                )));
            }
            permit.as_mut().poll(cx).map(|permit| match permit {
                Ok(Ok(permit)) => Ok(Admitted(permit)),
                Ok(Err(_)) => Err(busy("Error: the server runs no more scripts.".to_owned())),
                Err(_) => Err(busy(format!(
                    "Error: the server runs its limit of {cap} scripts at once, and this one waited {wait:?} (the queue's wait limit) without a place: try again later."
                ))),
            })
        })
        .await
    }

    /// An idle worker, or a new one.
    pub(super) async fn checkout(&self) -> Result<WorkerProcess, String> {
        loop {
            let worker = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            match worker {
                Some(worker) if worker.is_idle() => return Ok(worker),
                Some(dead) => drop(dead),
                None => break,
            }
        }
        let start = Start {
            max_memory_bytes: self.key.max_memory_bytes,
        };
        let max_frame = self.key.max_frame;
        tokio::task::spawn_blocking(move || WorkerProcess::spawn(start, max_frame))
            .await
            .map_err(|error| format!("its start was interrupted: {error}"))?
    }

    /// Takes `worker` back after a script: kept while the pool has room and the worker is
    /// under its recycling bounds; given back to be [`end`]ed otherwise.
    pub(super) fn checkin(&self, mut worker: WorkerProcess) -> Option<WorkerProcess> {
        worker.scripts += 1;
        let worn = worker.scripts >= self.key.recycle_after_scripts
            || worker
                .resident_bytes()
                .is_none_or(|bytes| bytes > self.key.recycle_above_bytes);
        if worn || !worker.is_idle() {
            return Some(worker);
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < self.key.max_idle_workers {
            idle.push(worker);
            return None;
        }
        Some(worker)
    }
}

/// Ends `worker` and waits until its process is gone, so that the place it held is free only
/// once its memory is back to the OS.
pub(super) async fn end(worker: WorkerProcess) {
    let _ = tokio::task::spawn_blocking(move || worker.end()).await;
}

/// Leaves the queue when dropped.
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
