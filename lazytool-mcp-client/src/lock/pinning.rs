//! Servers started, pinned and stopped to write a lock: [`Lock::pin_servers`], and what it did
//! to each entry: [`Repinned`].

use futures_util::StreamExt;
use lazytool_runtime::source::ToolSource;

use super::file::{Lock, LockError, ServerLock};
use crate::mcp_source::McpSource;

/// How many servers [`Lock::pin_servers`] starts at a time: starting interpreters is
/// CPU-bound, and a server starved of CPU can miss its handshake's deadline.
const PINNING_AT_ONCE: usize = 4;

/// A server's lock entry as [`Lock::pin_servers`] wrote it, beside the entry it replaced.
///
/// ```
/// use lazytool_mcp_client::Repinned;
///
/// // What `lazytool-gateway lock` says of each server it pinned.
/// fn what(repinned: &Repinned) -> &'static str {
///     if repinned.is_new() {
///         "pinned"
///     } else if repinned.is_unchanged() {
///         "unchanged"
///     } else {
///         "updated"
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Repinned {
    /// The server's name in the lock.
    pub name: String,
    /// Its entry before, `None` when it was not in the lock.
    pub old: Option<ServerLock>,
    /// Its entry now.
    pub new: ServerLock,
}

impl Repinned {
    /// Whether the server was not in the lock before.
    pub fn is_new(&self) -> bool {
        self.old.is_none()
    }

    /// Whether the server was in the lock with the same entry.
    pub fn is_unchanged(&self) -> bool {
        self.old.as_ref() == Some(&self.new)
    }
}

impl Lock {
    /// Starts `servers` (a few at a time), pins what starts each and its definitions, and
    /// stops it; then, when every server was pinned, sets their entries in this lock and
    /// returns them in order, each beside the entry it replaced. When one fails, the lock is
    /// left as it was and the error names every server that failed and why. Entries of other
    /// servers are kept: remove those no longer configured with [`stale`](Lock::stale).
    ///
    /// ```no_run
    /// use lazytool_mcp_client::{Lock, McpSource, Upstream};
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// let mut lock = Lock::load("lazytool.lock").unwrap_or_default();
    /// for repinned in lock.pin_servers(&[&time]).await? {
    ///     println!("{}: {} tools", repinned.name, repinned.new.tools.len());
    /// }
    /// lock.write("lazytool.lock")?;
    /// # Ok(()) }
    /// ```
    pub async fn pin_servers(
        &mut self,
        servers: &[&McpSource],
    ) -> Result<Vec<Repinned>, LockError> {
        let pinning = servers.iter().map(|server| async move {
            // Not `error.to_string()`, which speaks of tools: the message says what failed.
            let pinned = (server.pin_now().await)
                .map_err(|error| format!("`{}`: {}", error.source_name(), error.message()));
            server.shutdown().await;
            pinned
        });
        let pinned: Vec<Result<ServerLock, String>> = futures_util::stream::iter(pinning)
            .buffered(PINNING_AT_ONCE)
            .collect()
            .await;
        let failures: Vec<&str> = (pinned.iter())
            .filter_map(|pinned| pinned.as_ref().err().map(String::as_str))
            .collect();
        if !failures.is_empty() {
            return Err(LockError {
                message: failures.join("; "),
            });
        }
        let entries = servers.iter().zip(pinned.into_iter().flatten());
        Ok(entries
            .map(|(server, new)| {
                let name = server.name().to_owned();
                let old = self.set(name.clone(), new.clone());
                Repinned { name, old, new }
            })
            .collect())
    }
}
