//! Live sessions within bounds: [`SessionTable`] counts them overall and per principal and
//! picks the least recently used idle one to close when a new one would exceed a bound;
//! [`LimitedSessions`] is the in-memory session manager ([`DirectSessions`]) reporting every
//! session created and closed to the table.
//!
//! rmcp creates a session deep inside its request handling, without the request: the guard
//! reserves the place first (under the table's lock, so concurrent handshakes cannot overshoot)
//! and hands the reservation to `create_session` through a task-local, since rmcp awaits
//! `create_session` inside the guard's own future. The same task-local carries the new
//! connection's input-closed token to the session's transport, which cancels it when the
//! session ends: the connection's list_changed tasks then stop instead of outliving it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use futures_core::Stream;
use lazytool_runtime::CancellationToken;
use prometheus_client::metrics::gauge::Gauge;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use crate::Principal;
use crate::connection::McpConnection;

mod direct;
mod direct_call;
mod events;
mod routes;
mod transport;

pub(crate) use direct::{Direct, DirectSessions, SessionError};
use transport::LateEnd;
pub(crate) use transport::SessionTransport;

tokio::task_local! {
    /// The handshake the current task is handling.
    static HANDSHAKE: RefCell<Handshake>;
}

/// What the session a handshake creates is given.
#[derive(Default)]
struct Handshake {
    reservation: Option<Reservation>,
    /// Cancelled when the session ends: the input-closed token of its connection.
    ended: Option<CancellationToken>,
    /// A handle on the session's connection, which the HTTP side may call itself.
    handler: Option<McpConnection>,
    /// For a session rmcp restores from the store: whose it is (the request's principal),
    /// and where its connection, made after its transport, leaves its token.
    restoring: Option<(Principal, LateEnd)>,
}

/// Runs `future` (rmcp handling an `initialize`) with `reservation` for the session it creates.
pub(crate) async fn with_reservation<F: Future>(reservation: Reservation, future: F) -> F::Output {
    let handshake = Handshake {
        reservation: Some(reservation),
        ..Handshake::default()
    };
    HANDSHAKE.scope(RefCell::new(handshake), future).await
}

/// Runs `future` (rmcp handling a request of a session this replica does not hold, which it
/// may restore from the store) so that a session it restores counts as `principal`'s and
/// ends its connection's tasks when it ends.
pub(crate) async fn with_restore<F: Future>(principal: Principal, future: F) -> F::Output {
    let handshake = Handshake {
        restoring: Some((principal, LateEnd::default())),
        ..Handshake::default()
    };
    HANDSHAKE.scope(RefCell::new(handshake), future).await
}

/// Hands `connection`, the connection rmcp just made for the handshake under way (if any), to
/// the session it creates next (or restored just before): its input-closed token, which the
/// session cancels when it ends, and for a new session a handle on it, which the HTTP side
/// calls the session's routine requests through.
pub(crate) fn connection_made(connection: &McpConnection) {
    // Outside a handshake (a stateless request) there is no session to end it.
    let _ = HANDSHAKE.try_with(|handshake| {
        let mut handshake = handshake.borrow_mut();
        let input_closed = connection.input_closed();
        match &handshake.restoring {
            Some((_, slot)) => {
                *slot.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(input_closed.drop_guard());
            }
            None => {
                handshake.ended = Some(input_closed);
                handshake.handler = Some(connection.handle());
            }
        }
    });
}

/// The live sessions, by id.
pub(crate) struct SessionTable {
    state: Mutex<State>,
    max: usize,
    /// `None`: only `max` bounds a principal's sessions.
    max_per_principal: Option<usize>,
    live: Gauge,
}

#[derive(Default)]
struct State {
    entries: HashMap<SessionId, Entry>,
    /// Places taken by handshakes under way, overall and per principal.
    reserved: usize,
    reserved_by: HashMap<Principal, usize>,
}

struct Entry {
    principal: Principal,
    last_used: Instant,
    /// Requests of the session not answered yet (and open streams).
    busy: usize,
    /// `GET` streams of the session open.
    streams: usize,
}

/// Why no session can be created now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every session is busy and the table is full.
    Overall,
    /// Every session of the principal is busy and it has its maximum.
    Principal,
}

/// A place for one new session of a principal, given back when dropped unused.
pub(crate) struct Reservation {
    table: Arc<SessionTable>,
    principal: Principal,
    /// Sessions closed to make room: the caller closes them through the manager.
    pub(crate) evicted: Vec<SessionId>,
    used: bool,
}

/// An open `GET` stream of a session, counted among the session's until dropped.
pub(crate) struct SessionStream {
    table: Arc<SessionTable>,
    id: SessionId,
}

/// A request of a session in flight: the session is not idle until it is dropped.
pub(crate) struct Busy {
    table: Arc<SessionTable>,
    id: SessionId,
}

impl SessionTable {
    pub(crate) fn new(max: usize, max_per_principal: Option<usize>, live: Gauge) -> Arc<Self> {
        Arc::new(SessionTable {
            state: Mutex::default(),
            max,
            max_per_principal,
            live,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held leaves consistent counts behind: keep going.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a new session of `principal`, closing the least recently used idle
    /// session (of the principal, then overall) where a bound is reached.
    pub(crate) fn reserve(self: &Arc<Self>, principal: &Principal) -> Result<Reservation, Full> {
        let mut state = self.lock();
        let mut evicted = Vec::new();
        let of_principal = state
            .entries
            .values()
            .filter(|entry| &entry.principal == principal)
            .count()
            + state.reserved_by.get(principal).copied().unwrap_or(0);
        if self
            .max_per_principal
            .is_some_and(|max| of_principal >= max)
        {
            let victim = state
                .least_recently_used(Some(principal))
                .ok_or(Full::Principal)?;
            evicted.push(victim);
        }
        if state.entries.len() + state.reserved - evicted.len() >= self.max {
            let victim = state.least_recently_used(None).ok_or(Full::Overall)?;
            evicted.push(victim);
        }
        for id in &evicted {
            state.entries.remove(id);
        }
        state.reserved += 1;
        *state.reserved_by.entry(principal.clone()).or_default() += 1;
        self.live.set(gauge_value(state.entries.len()));
        Ok(Reservation {
            table: Arc::clone(self),
            principal: principal.clone(),
            evicted,
            used: false,
        })
    }

    /// Marks a request of session `id` in flight, if the session is known.
    pub(crate) fn busy(self: &Arc<Self>, id: &str) -> Option<Busy> {
        let mut state = self.lock();
        let (id, _) = state.entries.get_key_value(id)?;
        let id = id.clone();
        if let Some(entry) = state.entries.get_mut(&id) {
            entry.busy += 1;
        }
        Some(Busy {
            table: Arc::clone(self),
            id,
        })
    }

    /// A place for a `GET` stream of session `id` if it has fewer than `max` open; `None` for
    /// a session not known (rmcp answers it).
    pub(crate) fn open_stream(
        self: &Arc<Self>,
        id: &str,
        max: usize,
    ) -> Result<Option<SessionStream>, ()> {
        let mut state = self.lock();
        let Some((id, entry)) = state.entries.get_key_value(id) else {
            return Ok(None);
        };
        if entry.streams >= max {
            return Err(());
        }
        let id = id.clone();
        if let Some(entry) = state.entries.get_mut(&id) {
            entry.streams += 1;
        }
        Ok(Some(SessionStream {
            table: Arc::clone(self),
            id,
        }))
    }

    /// How many sessions live now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().entries.len()
    }

    fn insert(&self, id: SessionId, reservation: Option<Reservation>) {
        let mut state = self.lock();
        let principal = match reservation {
            Some(mut reservation) => {
                reservation.used = true;
                state.release(&reservation.principal);
                reservation.principal.clone()
            }
            None => Principal::anonymous(),
        };
        self.enter(&mut state, id, principal);
    }

    /// A session of `principal` restored from the store: it counts like one created here.
    fn insert_restored(&self, id: SessionId, principal: Principal) {
        let mut state = self.lock();
        self.enter(&mut state, id, principal);
    }

    fn enter(&self, state: &mut State, id: SessionId, principal: Principal) {
        let entry = Entry {
            principal,
            last_used: Instant::now(),
            busy: 0,
            streams: 0,
        };
        state.entries.insert(id, entry);
        self.live.set(gauge_value(state.entries.len()));
    }

    fn remove(&self, id: &SessionId) {
        let mut state = self.lock();
        state.entries.remove(id);
        self.live.set(gauge_value(state.entries.len()));
    }
}

impl State {
    /// The idle session of `principal` (any principal for `None`) used longest ago.
    fn least_recently_used(&self, principal: Option<&Principal>) -> Option<SessionId> {
        self.entries
            .iter()
            .filter(|(_, entry)| entry.busy == 0)
            .filter(|(_, entry)| principal.is_none_or(|principal| &entry.principal == principal))
            .min_by_key(|(_, entry)| entry.last_used)
            .map(|(id, _)| id.clone())
    }

    fn release(&mut self, principal: &Principal) {
        self.reserved = self.reserved.saturating_sub(1);
        if let Some(count) = self.reserved_by.get_mut(principal) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.reserved_by.remove(principal);
            }
        }
    }
}

fn gauge_value(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.used {
            self.table.lock().release(&self.principal);
        }
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        if let Some(entry) = self.table.lock().entries.get_mut(&self.id) {
            entry.streams = entry.streams.saturating_sub(1);
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut state = self.table.lock();
        if let Some(entry) = state.entries.get_mut(&self.id) {
            entry.busy = entry.busy.saturating_sub(1);
            entry.last_used = Instant::now();
        }
    }
}

/// [`DirectSessions`], reporting to a [`SessionTable`].
pub(crate) struct LimitedSessions {
    inner: DirectSessions,
    table: Arc<SessionTable>,
}

impl LimitedSessions {
    pub(crate) fn new(inner: DirectSessions, table: Arc<SessionTable>) -> Self {
        LimitedSessions { inner, table }
    }

    /// Closes the sessions a reservation evicted.
    pub(crate) async fn close_evicted(&self, evicted: &[SessionId]) {
        for id in evicted {
            tracing::info!(target: "lazytool::mcp", session = %id, "closing the least recently used idle session to make room");
            if let Err(error) = self.inner.close_session(id).await {
                tracing::debug!(target: "lazytool::mcp", %error, "cannot close an evicted session");
            }
        }
    }

    /// See [`DirectSessions::direct`].
    pub(crate) fn direct(&self, id: &SessionId) -> Option<Direct> {
        self.inner.direct(id)
    }
}

impl SessionManager for LimitedSessions {
    type Error = SessionError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (reservation, ended, handler) = HANDSHAKE
            .try_with(|handshake| {
                let mut handshake = handshake.borrow_mut();
                let handshake = &mut *handshake;
                (
                    handshake.reservation.take(),
                    handshake.ended.take(),
                    handshake.handler.take(),
                )
            })
            .unwrap_or_default();
        let (id, mut transport) = self.inner.create_session_for(handler);
        if let Some(ended) = ended {
            transport.cancel_when_ended(ended);
        }
        self.table.insert(id.clone(), reservation);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let restoring = HANDSHAKE
            .try_with(|handshake| handshake.borrow().restoring.clone())
            .ok()
            .flatten();
        let outcome = self.inner.restore_session(id.clone()).await?;
        let RestoreOutcome::Restored(mut transport) = outcome else {
            return Ok(outcome);
        };
        let principal = match restoring {
            Some((principal, slot)) => {
                transport.cancel_later_when_ended(slot);
                principal
            }
            None => Principal::anonymous(),
        };
        tracing::debug!(target: "lazytool::mcp", session = %id, "restoring a session from the shared store");
        self.table.insert_restored(id, principal);
        Ok(RestoreOutcome::Restored(transport))
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.table.remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }
}

#[cfg(test)]
mod tests;
