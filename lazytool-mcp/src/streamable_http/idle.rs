//! The open connections and whether each is idle: [`IdleConnections`]. Under pressure (the
//! connection cap reached, or no descriptor left to accept with) the accept loop closes the
//! connection idle longest to make room, those that never sent a whole request (slowloris)
//! first, rather than refusing a new client while held connections do nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

/// The open connections of one accept loop.
#[derive(Default)]
pub(crate) struct IdleConnections {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next: u64,
    open: HashMap<u64, Entry>,
}

struct Entry {
    /// Whether a whole request ever came in.
    served: bool,
    /// Requests whose answer is not sent yet.
    in_flight: usize,
    idle_since: Instant,
    shed: CancellationToken,
    closed: CancellationToken,
}

/// One connection's place in [`IdleConnections`], left when dropped.
pub(crate) struct Tracked {
    connections: Arc<IdleConnections>,
    id: u64,
    /// Cancelled when the connection is shed.
    pub(crate) shed: CancellationToken,
    /// To be cancelled once the connection is closed (its descriptor given back).
    pub(crate) closed: CancellationToken,
}

/// A request of a connection in flight: the connection is not idle until it is dropped.
pub(crate) struct Working {
    connections: Arc<IdleConnections>,
    id: u64,
}

impl IdleConnections {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update is a few assignments: consistent even after a panic elsewhere.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tracks a new connection, idle until its first request.
    pub(crate) fn open(self: &Arc<Self>) -> Tracked {
        let shed = CancellationToken::new();
        let closed = CancellationToken::new();
        let mut state = self.lock();
        let id = state.next;
        state.next += 1;
        state.open.insert(
            id,
            Entry {
                served: false,
                in_flight: 0,
                idle_since: Instant::now(),
                shed: shed.clone(),
                closed: closed.clone(),
            },
        );
        Tracked {
            connections: Arc::clone(self),
            id,
            shed,
            closed,
        }
    }

    /// Closes the connection idle longest, one that never sent a whole request first, and
    /// gives the token cancelled once it is closed; `None` when every connection has a request
    /// in flight.
    pub(crate) fn shed_one(&self) -> Option<CancellationToken> {
        let mut state = self.lock();
        let victim = state
            .open
            .iter()
            .filter(|(_, entry)| entry.in_flight == 0)
            .min_by_key(|(_, entry)| (entry.served, entry.idle_since))
            .map(|(&id, _)| id);
        let entry = victim.and_then(|id| state.open.remove(&id))?;
        tracing::debug!(target: "lazytool::mcp", served_before = entry.served, idle = ?entry.idle_since.elapsed(), "closing an idle connection to make room for a new one");
        entry.shed.cancel();
        Some(entry.closed)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().open.len()
    }
}

impl Tracked {
    /// Marks a request in flight until the returned value is dropped.
    pub(crate) fn working(&self) -> Working {
        if let Some(entry) = self.connections.lock().open.get_mut(&self.id) {
            entry.served = true;
            entry.in_flight += 1;
        }
        Working {
            connections: Arc::clone(&self.connections),
            id: self.id,
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.connections.lock().open.remove(&self.id);
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        if let Some(entry) = self.connections.lock().open.get_mut(&self.id) {
            entry.in_flight = entry.in_flight.saturating_sub(1);
            entry.idle_since = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_that_never_sent_a_request_goes_first_and_busy_ones_stay() {
        let connections = Arc::new(IdleConnections::default());
        let served = connections.open();
        drop(served.working());
        let slow = connections.open();
        let busy = connections.open();
        let _working = busy.working();

        let closed = connections.shed_one().expect("an idle connection");
        assert!(slow.shed.is_cancelled(), "never sent a request");
        assert!(!served.shed.is_cancelled());
        slow.closed.cancel();
        assert!(
            closed.is_cancelled(),
            "the token says when the one shed is closed"
        );
        assert!(connections.shed_one().is_some());
        assert!(served.shed.is_cancelled(), "idle between requests");
        assert!(connections.shed_one().is_none(), "the busy one stays");
        assert!(!busy.shed.is_cancelled());

        drop((slow, served, busy));
        assert_eq!(connections.len(), 0);
    }
}
