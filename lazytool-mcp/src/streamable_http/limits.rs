//! The resource bounds of HTTP serving: [`HttpLimits`], with defaults that hold on a 2-core
//! machine with 1,024 file descriptors.

use std::time::Duration;

/// The default of [`HttpLimits::max_connections`]: 512, half of a 1,024-descriptor limit (the
/// rest for upstream children, logs, sessions' own files). Serving lowers it to half the
/// process's open-file limit when that is lower.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// The default of [`HttpLimits::max_sessions`]: 1,000 (about 60 KB each, so a flood of
/// handshakes keeps a server under about 100 MB).
pub const DEFAULT_MAX_SESSIONS: usize = 1_000;
/// The default of [`HttpLimits::max_streams`]: 128 long-lived SSE streams (each holds a
/// connection).
pub const DEFAULT_MAX_STREAMS: usize = 128;
/// The default of [`HttpLimits::max_streams_per_session`]: 4 (the session's stream of server
/// messages and resumptions).
pub const DEFAULT_MAX_STREAMS_PER_SESSION: usize = 4;
/// The default of [`HttpLimits::header_read_timeout`]: 10 seconds.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default of [`HttpLimits::body_read_timeout`]: 30 seconds.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::drain_timeout`]: 30 seconds.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::session_idle_timeout`]: 10 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// What `Retry-After` tells a client refused for a full table of sessions or streams, or too
/// many connections.
pub(crate) const RETRY_AFTER_SECONDS: u64 = 1;

/// The resource bounds of [`McpHttp`](crate::McpHttp), each configurable; set them with
/// [`McpHttp::limits`](crate::McpHttp::limits).
///
/// | bound | default | over it |
/// |---|---|---|
/// | `max_connections` | [`DEFAULT_MAX_CONNECTIONS`] | the connection gets `503` with `Retry-After` and is closed |
/// | `max_sessions` | [`DEFAULT_MAX_SESSIONS`] | the least recently used session with no request in flight is closed (its client gets 404 and starts another); if every session is busy, `503` with `Retry-After` |
/// | `max_sessions_per_principal` | unset (only `max_sessions` applies) | the same among that principal's sessions, `429` with `Retry-After` when all are busy; with a shared store (`McpHttp::shared_store`, feature `redis`), across replicas: its least recently active session is ended on every replica |
/// | `session_idle_timeout` | [`DEFAULT_SESSION_IDLE_TIMEOUT`] | the session is closed (404 afterwards) |
/// | `max_connections` under pressure | — | a new connection first closes the one idle longest (one that never sent a whole request before one between requests); only with none idle is it refused |
/// | `max_streams` | [`DEFAULT_MAX_STREAMS`], at most half of `max_connections` | a `GET` stream or `subscriptions/listen` gets `503` with `Retry-After` |
/// | `max_streams_per_session` | [`DEFAULT_MAX_STREAMS_PER_SESSION`] | a session's `GET` stream gets `429` with `Retry-After` |
/// | `header_read_timeout` | [`DEFAULT_HEADER_READ_TIMEOUT`] | the connection is closed: a request's headers must arrive whole within it, and an idle keep-alive connection waits at most that long for the next |
/// | `body_read_timeout` | [`DEFAULT_BODY_READ_TIMEOUT`] | `408` with a JSON-RPC error, and the connection is closed |
/// | `drain_timeout` | [`DEFAULT_DRAIN_TIMEOUT`] | on shutdown, requests still running after it are cut |
///
/// ```
/// use std::time::Duration;
/// use lazytool_mcp::HttpLimits;
///
/// let limits = HttpLimits::default()
///     .max_sessions(200)
///     .max_sessions_per_principal(20)
///     .session_idle_timeout(Duration::from_secs(300));
/// assert_eq!(limits.max_sessions, 200);
/// assert_eq!(HttpLimits::default().max_connections, lazytool_mcp::DEFAULT_MAX_CONNECTIONS);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Live sessions (protocol versions with a handshake) at once.
    pub max_sessions: usize,
    /// Live sessions of one principal at once; `None`: only `max_sessions` applies.
    pub max_sessions_per_principal: Option<usize>,
    /// How long a session may stay without requests before it is closed.
    pub session_idle_timeout: Duration,
    /// Long-lived SSE streams open at once: `GET` streams of sessions and 2026-07-28
    /// `subscriptions/listen` streams.
    pub max_streams: usize,
    /// Long-lived `GET` streams of one session open at once.
    pub max_streams_per_session: usize,
    /// How long a request's headers may take to arrive, and an idle connection may wait for
    /// the next request.
    pub header_read_timeout: Duration,
    /// How long a request's body may take to arrive.
    pub body_read_timeout: Duration,
    /// How long a graceful shutdown lets running requests finish.
    pub drain_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_principal: None,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max_streams: DEFAULT_MAX_STREAMS,
            max_streams_per_session: DEFAULT_MAX_STREAMS_PER_SESSION,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
        }
    }
}

impl HttpLimits {
    /// Sets how many connections may be open at once (at least 1).
    ///
    /// ```
    /// let limits = lazytool_mcp::HttpLimits::default().max_connections(64);
    /// assert_eq!(limits.max_connections, 64);
    /// ```
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// Sets how many sessions may live at once (at least 1).
    ///
    /// ```
    /// let limits = lazytool_mcp::HttpLimits::default().max_sessions(100);
    /// assert_eq!(limits.max_sessions, 100);
    /// ```
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// Sets how many sessions one principal may have at once (at least 1).
    ///
    /// ```
    /// let limits = lazytool_mcp::HttpLimits::default().max_sessions_per_principal(10);
    /// assert_eq!(limits.max_sessions_per_principal, Some(10));
    /// ```
    pub fn max_sessions_per_principal(mut self, max: usize) -> Self {
        self.max_sessions_per_principal = Some(max.max(1));
        self
    }

    /// Sets how long a session may stay without requests.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let limits = lazytool_mcp::HttpLimits::default().session_idle_timeout(Duration::from_secs(60));
    /// assert_eq!(limits.session_idle_timeout, Duration::from_secs(60));
    /// ```
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Sets how many long-lived SSE streams may be open at once.
    ///
    /// ```
    /// let limits = lazytool_mcp::HttpLimits::default().max_streams(16);
    /// assert_eq!(limits.max_streams, 16);
    /// ```
    pub fn max_streams(mut self, max: usize) -> Self {
        self.max_streams = max;
        self
    }

    /// Sets how many long-lived `GET` streams one session may have open at once (at least 1).
    ///
    /// ```
    /// let limits = lazytool_mcp::HttpLimits::default().max_streams_per_session(1);
    /// assert_eq!(limits.max_streams_per_session, 1);
    /// ```
    pub fn max_streams_per_session(mut self, max: usize) -> Self {
        self.max_streams_per_session = max.max(1);
        self
    }

    /// Sets how long a request's headers may take.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let limits = lazytool_mcp::HttpLimits::default().header_read_timeout(Duration::from_secs(5));
    /// assert_eq!(limits.header_read_timeout, Duration::from_secs(5));
    /// ```
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Sets how long a request's body may take.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let limits = lazytool_mcp::HttpLimits::default().body_read_timeout(Duration::from_secs(5));
    /// assert_eq!(limits.body_read_timeout, Duration::from_secs(5));
    /// ```
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets how long a graceful shutdown waits for running requests.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let limits = lazytool_mcp::HttpLimits::default().drain_timeout(Duration::from_secs(10));
    /// assert_eq!(limits.drain_timeout, Duration::from_secs(10));
    /// ```
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// The bound of one principal's sessions, when below the overall one.
    pub(crate) fn per_principal(&self) -> Option<usize> {
        self.max_sessions_per_principal
            .filter(|&max| max < self.max_sessions)
    }

    /// The streams open at once: at most half the connections, so that streams never hold
    /// every connection.
    pub(crate) fn streams_cap(&self) -> usize {
        self.max_streams.min(self.max_connections / 2)
    }

    /// These limits with the connection cap lowered to half of `open_files`, the process's
    /// open-file limit, when that is lower: past it nothing can be accepted, not even to be
    /// refused.
    pub(crate) fn within_open_files(mut self, open_files: Option<u64>) -> Self {
        let Some(open_files) = open_files else {
            return self;
        };
        let within = usize::try_from(open_files / 2).unwrap_or(usize::MAX).max(1);
        if within < self.max_connections {
            tracing::warn!(target: "lazytool::mcp", max_connections = self.max_connections, open_files, lowered_to = within, "the connection cap is above half the open-file limit (ulimit -n): lowered");
            self.max_connections = within;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_stays_within_half_the_open_files_and_streams_within_half_of_it() {
        let limits = HttpLimits::default().within_open_files(Some(64));
        assert_eq!(limits.max_connections, 32);
        assert_eq!(limits.streams_cap(), 16);
        let roomy = HttpLimits::default().within_open_files(Some(1 << 20));
        assert_eq!(roomy.max_connections, DEFAULT_MAX_CONNECTIONS);
        assert_eq!(roomy.streams_cap(), DEFAULT_MAX_STREAMS);
        assert_eq!(
            HttpLimits::default().within_open_files(None),
            HttpLimits::default()
        );
    }
}
