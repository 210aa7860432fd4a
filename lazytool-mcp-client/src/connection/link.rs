//! The connection to one upstream, started on demand, restarted with backoff and stopped
//! when idle: `Link`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, Weak};
use std::time::Duration;

use rmcp::{Peer, RoleClient};
use tokio::sync::{Mutex, watch};
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::connection::child::StderrTail;
use crate::connection::health::Health;
use crate::connection::notices::{Notices, follow_list_changes};
use crate::connection::resource_watch::ResourceWatch;
use crate::connection::start::Connected;
use crate::connection::upstream::Upstream;
use crate::redact::Redactor;
use crate::requests::elicitor::Elicitor;
use crate::requests::in_flight::InFlight;
use crate::requests::upstream_requests::UpstreamRequests;
use lazytool_mcp_core::relay::{Announced, Relay};

const TARGET: &str = "lazytool::upstream";
/// How long a failure waits for the rest of the server's stderr, which explains it.
const STDERR_SETTLE: Duration = Duration::from_millis(300);

/// How long to wait before restarting an upstream that failed `failures` times in a row:
/// `first`, doubled on each failure, at most `max`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoff {
    pub(crate) first: Duration,
    pub(crate) max: Duration,
}

impl Backoff {
    fn after(self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(20);
        self.first.saturating_mul(1 << doublings).min(self.max)
    }
}

pub(crate) struct Link {
    server: Arc<str>,
    upstream: Upstream,
    redactor: Redactor,
    start_timeout: Duration,
    backoff: Backoff,
    /// The last lines a child wrote to stderr, across its restarts.
    stderr: StderrTail,
    /// Bumped on every upstream `list_changed` and on every start: definitions checked at
    /// one value hold until it changes.
    tools_changed: watch::Sender<u64>,
    /// Stop the server after this long without calls (`None`: keep it up).
    idle_timeout: Option<Duration>,
    /// Calls under way, which keep the server up whatever the idle timeout.
    calls_under_way: AtomicUsize,
    /// When the last call ended (or the server started).
    last_used: std::sync::Mutex<Instant>,
    /// The protocol version agreed at the last start.
    protocol: std::sync::Mutex<Option<String>>,
    /// What the program's clients can answer of the server's requests.
    relay: Option<Relay>,
    /// The calls forwarded and not answered yet.
    in_flight: Arc<InFlight>,
    /// What passes the server's requests during a call on to the client of the call.
    requests: Arc<UpstreamRequests>,
    /// The resources clients subscribed to, watched on the server.
    resource_watch: ResourceWatch,
    /// How it stands, readable while a start holds `state`.
    health: std::sync::Mutex<Health>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    running: Option<Connected>,
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
    started_before: bool,
    /// What the running connection announced of the relay's capabilities.
    announced: Announced,
    /// Stops the running connection's watch of the relay.
    relay_watch: Option<DropGuard>,
    /// Counts the starts, so that an idle stop stops the run it watched and no later one.
    runs: u64,
}

/// A call under way: keeps the server from an idle stop until dropped.
pub(crate) struct Busy<'a>(&'a Link);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        *self
            .0
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
        self.0.calls_under_way.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Link {
    pub(crate) fn new(
        server: Arc<str>,
        upstream: Upstream,
        start_timeout: Duration,
        backoff: Backoff,
        relay: Option<Relay>,
        elicitor: Option<Arc<dyn Elicitor>>,
        idle_timeout: Option<Duration>,
    ) -> Self {
        let in_flight = Arc::<InFlight>::default();
        let requests = Arc::new(UpstreamRequests {
            program: Arc::from(relay.as_ref().map_or("lazytool", Relay::name)),
            server: Arc::clone(&server),
            in_flight: Arc::clone(&in_flight),
            elicitor,
        });
        Link {
            idle_timeout,
            calls_under_way: AtomicUsize::new(0),
            last_used: std::sync::Mutex::new(Instant::now()),
            server,
            redactor: upstream.redactor(),
            upstream,
            start_timeout,
            backoff,
            stderr: StderrTail::default(),
            tools_changed: watch::Sender::new(0),
            protocol: std::sync::Mutex::default(),
            relay,
            in_flight,
            requests,
            resource_watch: ResourceWatch::default(),
            health: std::sync::Mutex::default(),
            state: Mutex::default(),
        }
    }

    pub(crate) fn in_flight(&self) -> &Arc<InFlight> {
        &self.in_flight
    }

    pub(crate) fn requests(&self) -> &UpstreamRequests {
        &self.requests
    }

    /// The resources clients subscribed to, and their updates.
    pub(crate) fn resource_watch(&self) -> &ResourceWatch {
        &self.resource_watch
    }

    /// Watches the resource `uri` on the server (started if it is not running).
    pub(crate) async fn watch_resource(self: &Arc<Self>, uri: String) -> Result<(), String> {
        let peer = self.peer().await?;
        self.resource_watch.watch(&self.server, &peer, uri).await
    }

    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    /// `text` with this upstream's secrets hidden: every error about it passes here.
    pub(crate) fn redact(&self, text: &str) -> String {
        self.redactor.apply(text)
    }

    pub(crate) fn tools_changed(&self) -> watch::Receiver<u64> {
        self.tools_changed.subscribe()
    }

    /// The number of starts and `list_changed` so far.
    pub(crate) fn epoch(&self) -> u64 {
        *self.tools_changed.borrow()
    }

    /// How the server stands now.
    pub(crate) fn health(&self) -> Health {
        self.health
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_health(&self, health: Health) {
        *self.health.lock().unwrap_or_else(PoisonError::into_inner) = health;
    }

    /// Whether the server runs now (a start under way counts as not yet).
    pub(crate) fn is_running(&self) -> bool {
        self.state
            .try_lock()
            .is_ok_and(|state| state.running.is_some())
    }

    /// Whether a call is under way.
    pub(crate) fn has_calls(&self) -> bool {
        self.calls_under_way.load(Ordering::SeqCst) > 0
    }

    /// Marks a call under way until the guard is dropped.
    pub(crate) fn busy(&self) -> Busy<'_> {
        self.calls_under_way.fetch_add(1, Ordering::SeqCst);
        Busy(self)
    }

    pub(crate) fn protocol(&self) -> Option<String> {
        self.protocol
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The running connection's peer: the current one while its transport is open, else a
    /// new start, unless the last failure's backoff has not passed (then an error at once).
    /// Waits at most the start timeout (plus the wait for a start already under way).
    pub(crate) async fn peer(self: &Arc<Self>) -> Result<Peer<RoleClient>, String> {
        let mut state = self.state.lock().await;
        let mut relayed = self.relay.as_ref().map(Relay::current).unwrap_or_default();
        if self.requests.elicitor.is_some() {
            relayed.answer_elicitation();
        }
        if state.running.is_some() && state.announced.lacks(&relayed) && self.in_flight.is_empty() {
            tracing::info!(target: TARGET, server = %self.server, "restarting the upstream server to announce what the clients can answer");
            if let Some(Connected {
                mut running,
                process,
            }) = state.running.take()
            {
                let _ = running.close_with_timeout(Duration::from_millis(200)).await;
                if let Some(process) = process {
                    process.stop().await;
                }
            }
        }
        if let Some(Connected { running, .. }) = &state.running {
            if !running.is_closed() && !running.peer().is_transport_closed() {
                return Ok(running.peer().clone());
            }
            tracing::warn!(target: TARGET, server = %self.server, "the upstream server is gone");
            if let Some(Connected {
                process: Some(process),
                ..
            }) = state.running.take()
            {
                // Whatever it left running in its group goes with it.
                tokio::spawn(process.stop());
            }
            let error = self.redact(&self.with_stderr("the server exited".to_owned()).await);
            state.failures += 1;
            let retry_at = Instant::now() + self.backoff.after(state.failures);
            state.retry_at = Some(retry_at);
            self.set_health(Health::Failed {
                error: error.clone(),
                retry_at,
                exited: true,
            });
            state.last_error = Some(error);
        }
        if let Some(at) = state.retry_at
            && Instant::now() < at
        {
            let error = state.last_error.as_deref().unwrap_or("it failed");
            let wait = at.saturating_duration_since(Instant::now());
            return Err(format!(
                "the MCP server `{}` is unavailable ({error}); next restart attempt in {:.1} s",
                self.server,
                wait.as_secs_f64()
            ));
        }
        let before = self.health();
        self.set_health(Health::Starting {
            last_error: state.last_error.clone(),
        });
        // A start dropped half way (its caller gave up) is no start under way.
        let abandoned = StartGuard {
            link: self,
            before: Some(before),
        };
        let notices = Notices {
            tools_changed: self.tools_changed.clone(),
            announced: relayed.capabilities(),
            requests: Arc::clone(&self.requests),
            resource_updates: self.resource_watch.updates().clone(),
        };
        let started = tokio::time::timeout(
            self.start_timeout,
            self.upstream.connect(&self.server, notices, &self.stderr),
        )
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "the MCP server did not complete its start within {:?}",
                self.start_timeout
            ))
        });
        let started = match started {
            Ok(connected) => Ok(connected),
            Err(error) => Err(self.redact(&self.with_stderr(error).await)),
        };
        abandoned.finished();
        match started {
            Ok(connected) => {
                let peer = connected.running.peer().clone();
                let protocol = peer
                    .peer_info()
                    .map(|info| info.protocol_version.to_string());
                tracing::info!(target: TARGET, server = %self.server, restart = state.started_before, protocol = protocol.as_deref().unwrap_or("unknown"), "the upstream server is running");
                *self.protocol.lock().unwrap_or_else(PoisonError::into_inner) = protocol;
                follow_list_changes(
                    Arc::clone(&self.server),
                    peer.clone(),
                    self.tools_changed.clone(),
                );
                self.resource_watch.rewatch(&self.server, &peer);
                state.running = Some(connected);
                self.set_health(Health::Running);
                state.relay_watch = self.watch_relay(&relayed);
                state.announced = relayed;
                state.failures = 0;
                state.retry_at = None;
                state.started_before = true;
                state.runs += 1;
                self.tools_changed
                    .send_modify(|generation| *generation += 1);
                if let Some(timeout) = self.idle_timeout {
                    *self
                        .last_used
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = Instant::now();
                    tokio::spawn(stop_when_idle(Arc::downgrade(self), timeout, state.runs));
                }
                Ok(peer)
            }
            Err(error) => {
                state.failures += 1;
                let wait = self.backoff.after(state.failures);
                tracing::warn!(target: TARGET, server = %self.server, %error, failures = state.failures, retry_in_ms = wait.as_millis() as u64, "the upstream server failed to start");
                let retry_at = Instant::now() + wait;
                state.retry_at = Some(retry_at);
                self.set_health(Health::Failed {
                    error: error.clone(),
                    retry_at,
                    exited: false,
                });
                state.last_error = Some(error.clone());
                Err(format!(
                    "the MCP server `{}` failed to start: {error}",
                    self.server
                ))
            }
        }
    }

    /// Reports a change of the tools when a client announces what the running connection
    /// did not (the next listing restarts it), until the connection is replaced.
    fn watch_relay(&self, announced: &Announced) -> Option<DropGuard> {
        let mut changes = self.relay.as_ref()?.changes();
        let (announced, tools_changed) = (announced.clone(), self.tools_changed.clone());
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        tokio::spawn(async move {
            let grew = async {
                while !announced.lacks(&changes.borrow_and_update()) {
                    if changes.changed().await.is_err() {
                        return false;
                    }
                }
                true
            };
            if stopped.run_until_cancelled(grew).await == Some(true) {
                tools_changed.send_modify(|generation| *generation += 1);
            }
        });
        Some(stop.drop_guard())
    }

    /// `error`, and the last lines the server wrote to stderr when there are any (read to
    /// the end first, within [`STDERR_SETTLE`]).
    async fn with_stderr(&self, error: String) -> String {
        self.stderr.settled(STDERR_SETTLE).await;
        match self.stderr.text() {
            Some(tail) => format!("{error}; its last stderr lines: {tail}"),
            None => error,
        }
    }

    /// How long the server has been without calls, `None` while a call is under way.
    fn idle_for(&self) -> Option<Duration> {
        if self.calls_under_way.load(Ordering::SeqCst) > 0 {
            return None;
        }
        Some(
            self.last_used
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .elapsed(),
        )
    }

    /// Stops run number `run` if it is still the running one; whether it did.
    async fn stop_idle(&self, run: u64) -> bool {
        let connected = {
            let mut state = self.state.lock().await;
            if state.runs != run || self.idle_for().is_none() {
                return false;
            }
            state.running.take()
        };
        let stopped = connected.is_some();
        if stopped {
            self.set_health(Health::Stopped);
        }
        Self::close(connected).await;
        stopped
    }

    /// Closes the connection; a child process and everything in its process group are
    /// stopped (asked, then killed) within about a second.
    pub(crate) async fn shutdown(&self) {
        let connected = self.state.lock().await.running.take();
        if connected.is_some() {
            self.set_health(Health::Stopped);
        }
        Self::close(connected).await;
    }

    async fn close(connected: Option<Connected>) {
        if let Some(Connected {
            mut running,
            process,
        }) = connected
        {
            let _ = running.close_with_timeout(Duration::from_millis(200)).await;
            if let Some(process) = process {
                process.stop().await;
            }
        }
    }
}

/// Puts the health from before a start back if the start is dropped before it ends.
struct StartGuard<'a> {
    link: &'a Link,
    before: Option<Health>,
}

impl StartGuard<'_> {
    fn finished(mut self) {
        self.before = None;
    }
}

impl Drop for StartGuard<'_> {
    fn drop(&mut self) {
        if let Some(before) = self.before.take() {
            self.link.set_health(before);
        }
    }
}

/// Stops run `run` of the server once it has had no call for `timeout`; ends with the run.
async fn stop_when_idle(link: Weak<Link>, timeout: Duration, run: u64) {
    loop {
        let wait = match link.upgrade() {
            Some(link) => match link.idle_for() {
                Some(idle) => timeout.saturating_sub(idle),
                None => timeout,
            },
            None => return,
        };
        tokio::time::sleep(wait).await;
        let Some(link) = link.upgrade() else { return };
        if link.idle_for().is_some_and(|idle| idle >= timeout) {
            if link.stop_idle(run).await {
                crate::connection::memory::return_freed_memory();
                tracing::info!(target: TARGET, server = %link.server, idle_timeout_ms = timeout.as_millis() as u64, "the upstream server was stopped: no call within its idle timeout");
            }
            return;
        }
        let state = link.state.lock().await;
        if state.runs != run || state.running.is_none() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_limit() {
        let backoff = Backoff {
            first: Duration::from_millis(100),
            max: Duration::from_secs(1),
        };
        let waits: Vec<u128> = (1..=6).map(|n| backoff.after(n).as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1000, 1000]);
    }
}
