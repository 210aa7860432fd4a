//! How an upstream server stands, as a status page shows it: [`ServerState`].

use std::fmt;

use crate::connection::health::Health;

/// How an upstream server stands now ([`McpSource::state`](crate::McpSource::state),
/// [`McpCatalog::server_states`](crate::McpCatalog::server_states)).
///
/// ```
/// use lazytool_mcp_client::{McpSource, ServerState, Upstream};
///
/// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
/// assert_eq!(time.state(), ServerState::NotStarted);
/// assert_eq!(time.state().to_string(), "not started");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Never started (a server held to its lock starts on its first call).
    NotStarted,
    /// A start is under way.
    Starting,
    /// Running.
    Running,
    /// Stopped when idle (or shut down); its next call starts it.
    IdleStopped,
    /// Its start failed or it exited, and why (secrets hidden).
    Failed {
        /// Why.
        reason: String,
    },
}

impl From<Health> for ServerState {
    fn from(health: Health) -> Self {
        match health {
            Health::NotStarted => ServerState::NotStarted,
            Health::Starting { .. } => ServerState::Starting,
            Health::Running => ServerState::Running,
            Health::Stopped => ServerState::IdleStopped,
            Health::Failed { error, .. } => ServerState::Failed { reason: error },
        }
    }
}

impl fmt::Display for ServerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerState::NotStarted => write!(f, "not started"),
            ServerState::Starting => write!(f, "starting"),
            ServerState::Running => write!(f, "running"),
            ServerState::IdleStopped => write!(f, "idle-stopped"),
            ServerState::Failed { reason } => write!(f, "failed: {reason}"),
        }
    }
}
