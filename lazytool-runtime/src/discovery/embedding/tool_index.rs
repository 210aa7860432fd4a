//! A registry's tool vectors, filled in the background: [`ToolIndex`].

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::vectors::Vectors;

/// The lazy tools' vectors once computed (in the order of the tools), or that they never
/// will be.
#[derive(Debug, Default)]
pub(crate) struct ToolIndex {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Pending,
    Ready(Arc<Vectors>),
    Failed,
}

impl ToolIndex {
    pub(crate) fn fill(&self, vectors: Vectors) {
        self.set(State::Ready(Arc::new(vectors)));
    }

    pub(crate) fn fail(&self) {
        self.set(State::Failed);
    }

    fn set(&self, state: State) {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner) = state;
        self.changed.notify_all();
    }

    /// The vectors, if they are there.
    pub(crate) fn vectors(&self) -> Option<Arc<Vectors>> {
        match &*self.state.lock().unwrap_or_else(PoisonError::into_inner) {
            State::Ready(vectors) => Some(Arc::clone(vectors)),
            State::Pending | State::Failed => None,
        }
    }

    /// Waits at most `timeout` for the vectors; whether they are there.
    pub(crate) fn wait(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match &*state {
                State::Ready(_) => return true,
                State::Failed => return false,
                State::Pending => {}
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}
