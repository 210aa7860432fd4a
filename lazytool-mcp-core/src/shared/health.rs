//! The health of a shared store as its commands find it: [`Health`], which says when the
//! store goes down (a warning) and when it is back (info), once each.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use super::failure_policy::FailurePolicy;
use super::store_health::StoreHealth;

const TARGET: &str = "lazytool::shared";

/// Up or down, from the outcome of every command; whether a probe runs.
#[derive(Debug)]
pub struct Health {
    down: AtomicBool,
    /// Taken by the one task that probes a store that is down.
    pub probing: AtomicBool,
    state: Mutex<StoreHealth>,
}

impl Health {
    pub fn new() -> Self {
        Health {
            down: AtomicBool::new(false),
            probing: AtomicBool::new(false),
            state: Mutex::new(StoreHealth {
                up: true,
                since: SystemTime::now(),
                error: None,
            }),
        }
    }

    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Acquire)
    }

    pub fn now(&self) -> StoreHealth {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A command was answered.
    pub fn answered(&self, url: &str) {
        if !self.down.load(Ordering::Acquire) {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.down.swap(false, Ordering::AcqRel) {
            return;
        }
        let down_for = state.since.elapsed().unwrap_or_default();
        *state = StoreHealth {
            up: true,
            since: SystemTime::now(),
            error: None,
        };
        tracing::info!(target: TARGET, store = url, down_seconds = down_for.as_secs(), "the shared store is back: limits are shared again");
    }

    /// A command failed with `error`.
    pub fn failed(&self, url: &str, error: &str, policy: FailurePolicy) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if self.down.swap(true, Ordering::AcqRel) {
            state.error = Some(error.to_owned());
            return;
        }
        *state = StoreHealth {
            up: false,
            since: SystemTime::now(),
            error: Some(error.to_owned()),
        };
        match policy {
            FailurePolicy::Local => {
                tracing::warn!(target: TARGET, store = url, error, "the shared store is down: each replica applies its limits alone until it is back");
            }
            FailurePolicy::Refuse => {
                tracing::warn!(target: TARGET, store = url, error, "the shared store is down: limited tool calls are refused until it is back");
            }
        }
    }
}
