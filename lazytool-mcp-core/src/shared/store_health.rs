//! Whether a shared store answers, and since when: [`StoreHealth`].

use std::time::SystemTime;

/// Whether a [`SharedStore`](crate::SharedStore) answered its last command, and since when
/// it has been so ([`SharedStore::health`](crate::SharedStore::health)). A store not asked
/// anything yet counts as up since it was made.
///
/// ```
/// let store = lazytool_mcp_core::SharedStore::new("redis://127.0.0.1:6379").unwrap();
/// let health = store.health();
/// assert!(health.up);
/// assert!(health.since <= std::time::SystemTime::now());
/// assert_eq!(health.error, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreHealth {
    /// Whether the last command was answered.
    pub up: bool,
    /// When the store went up or down last.
    pub since: SystemTime,
    /// While down: why the last command failed.
    pub error: Option<String>,
}
