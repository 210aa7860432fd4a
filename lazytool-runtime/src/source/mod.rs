//! Tool catalogs behind a network call: [`ToolSource`] and [`CachedSource`]; catalogs that
//! change while served: [`LiveRegistry`].
//!
//! A source lists its tools asynchronously (an MCP server's `tools/list`, an HTTP API).
//! [`CachedSource`] wraps one with a TTL cache and in-flight de-duplication, and reports
//! every listing as `tracing` events with target `lazytool::source`:
//!
//! - `catalog listing started` (info): `source`;
//! - `catalog listing completed` (info): `source`, `tool_count`, `duration_ms`;
//! - `catalog listing failed` (warn): `source`, `error`, `kind`, `duration_ms`;
//! - `tool catalog served from cache` (debug): `source`, `tool_count`;
//! - `serving the last good tool catalog` (warn): `source`, `error`, with
//!   [`CachedSource::stale_on_error`].
//!
//! Failures are loud: a failed listing is an error for every caller, never an empty catalog.

mod cached;
mod live;
mod missing;
#[cfg(test)]
mod tests;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use cached::CachedSource;
pub use live::LiveRegistry;

use crate::tool::DynamicTool;

/// The future a [`ToolSource`] returns from [`list_tools`](ToolSource::list_tools).
///
/// ```
/// use lazytool_runtime::DynamicTool;
/// use lazytool_runtime::source::{ListToolsFuture, SourceError};
///
/// let empty: ListToolsFuture<'static> = Box::pin(async { Ok::<Vec<DynamicTool>, SourceError>(Vec::new()) });
/// # drop(empty);
/// ```
pub type ListToolsFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<DynamicTool>, SourceError>> + Send + 'a>>;

/// A source of tools behind an async call.
///
/// Implementations do not cache: wrap them in a [`CachedSource`].
///
/// ```
/// use lazytool_runtime::DynamicTool;
/// use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
/// use tokio_util::sync::CancellationToken;
///
/// struct Hub;
///
/// impl ToolSource for Hub {
///     fn name(&self) -> &str {
///         "hub"
///     }
///
///     fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
///         Box::pin(async move {
///             let fetch = async { Err::<Vec<DynamicTool>, _>("hub unreachable") };
///             match cancel.run_until_cancelled(fetch).await {
///                 Some(listing) => listing.map_err(|error| SourceError::new(self.name(), error)),
///                 None => Err(SourceError::cancelled(self.name(), "listing cancelled")),
///             }
///         })
///     }
/// }
/// ```
pub trait ToolSource: Send + Sync + 'static {
    /// A short name for events and errors (`"github-mcp"`).
    ///
    /// ```
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::DynamicTool;
    /// # use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
    /// # use tokio_util::sync::CancellationToken;
    /// # use serde_json::json;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         Box::pin(async move {
    /// #             if fail {
    /// #                 return Err(SourceError::new("hub", "503 Service Unavailable"));
    /// #             }
    /// #             Ok(vec![DynamicTool::new("search", "Searches.", json!({"type": "object"}),
    /// #                 |_, _| async { Ok::<_, String>(json!([])) })])
    /// #         })
    /// #     }
    /// # }
    /// assert_eq!(Hub::new(usize::MAX).name(), "hub");
    /// ```
    fn name(&self) -> &str;

    /// Lists the tools. Called again when the cache expires.
    ///
    /// `cancel` is cancelled when nobody waits for the listing any more or it timed out;
    /// the future is dropped right after, so honoring it matters only for work the source
    /// started elsewhere (a spawned request, a subprocess).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::DynamicTool;
    /// # use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
    /// # use tokio_util::sync::CancellationToken;
    /// # use serde_json::json;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         Box::pin(async move {
    /// #             if fail {
    /// #                 return Err(SourceError::new("hub", "503 Service Unavailable"));
    /// #             }
    /// #             Ok(vec![DynamicTool::new("search", "Searches.", json!({"type": "object"}),
    /// #                 |_, _| async { Ok::<_, String>(json!([])) })])
    /// #         })
    /// #     }
    /// # }
    /// // Without a cache, every call lists.
    /// let hub = Hub::new(usize::MAX);
    /// let tools = hub.list_tools(CancellationToken::new()).await.unwrap();
    /// assert_eq!(tools[0].name(), "search");
    /// hub.list_tools(CancellationToken::new()).await.unwrap();
    /// assert_eq!(hub.listings.load(Ordering::SeqCst), 2);
    /// # }
    /// ```
    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_>;

    /// Why the tool `name`, which the registry does not hold, is missing, when the name is
    /// this source's and the source knows: a server that failed to start, say. The text
    /// answers a discovery of the name and a call to it; `None` (the default) leaves the
    /// name an unknown tool. Asked through
    /// [`RegistryBuilder::explain_missing`](crate::RegistryBuilder::explain_missing).
    ///
    /// ```
    /// # use lazytool_runtime::DynamicTool;
    /// # use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
    /// # use tokio_util::sync::CancellationToken;
    /// struct Hub;
    ///
    /// impl ToolSource for Hub {
    ///     fn name(&self) -> &str {
    ///         "hub"
    ///     }
    ///
    ///     fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
    ///         Box::pin(async { Err(SourceError::new("hub", "401 Unauthorized")) })
    ///     }
    ///
    ///     fn missing_tool(&self, name: &str) -> Option<String> {
    ///         name.starts_with("hub__").then(|| "`hub` refused the listing: 401 Unauthorized".to_owned())
    ///     }
    /// }
    ///
    /// assert!(Hub.missing_tool("hub__search").is_some());
    /// assert_eq!(Hub.missing_tool("weather"), None);
    /// ```
    fn missing_tool(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// What this source cannot offer now and why, for a search, which cannot name the
    /// tools it misses: `None` (the default) when nothing is missing.
    ///
    /// ```
    /// # use lazytool_runtime::DynamicTool;
    /// # use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
    /// # use tokio_util::sync::CancellationToken;
    /// struct Hub;
    ///
    /// impl ToolSource for Hub {
    ///     fn name(&self) -> &str {
    ///         "hub"
    ///     }
    ///
    ///     fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
    ///         Box::pin(async { Err(SourceError::new("hub", "401 Unauthorized")) })
    ///     }
    ///
    ///     fn unavailable(&self) -> Option<String> {
    ///         Some("the tools of `hub` are not searched: it refused the listing".to_owned())
    ///     }
    /// }
    ///
    /// assert!(Hub.unavailable().is_some());
    /// ```
    fn unavailable(&self) -> Option<String> {
        None
    }
}

impl<P: ToolSource + ?Sized> ToolSource for Arc<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
        (**self).list_tools(cancel)
    }

    fn missing_tool(&self, name: &str) -> Option<String> {
        (**self).missing_tool(name)
    }

    fn unavailable(&self) -> Option<String> {
        (**self).unavailable()
    }
}

impl<P: ToolSource + ?Sized> ToolSource for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
        (**self).list_tools(cancel)
    }

    fn missing_tool(&self, name: &str) -> Option<String> {
        (**self).missing_tool(name)
    }

    fn unavailable(&self) -> Option<String> {
        (**self).unavailable()
    }
}

/// Why listing failed: never an empty catalog in disguise.
///
/// ```
/// use lazytool_runtime::source::{SourceError, SourceErrorKind};
///
/// let error = SourceError::new("github", "401 Unauthorized");
/// assert_eq!(error.kind(), SourceErrorKind::Failed);
/// assert_eq!(error.to_string(), "listing the tools of `github` failed: 401 Unauthorized");
/// ```
#[derive(Debug, Clone)]
pub struct SourceError {
    name: Arc<str>,
    message: Arc<str>,
    kind: SourceErrorKind,
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// What kind of failure a [`SourceError`] is.
///
/// ```
/// use lazytool_runtime::source::{SourceError, SourceErrorKind};
///
/// assert_eq!(SourceError::new("hub", "401").kind(), SourceErrorKind::Failed);
/// assert_eq!(SourceError::cancelled("hub", "shutting down").kind(), SourceErrorKind::Cancelled);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SourceErrorKind {
    /// The source could not list its tools (network, authentication, a bad answer, a panic).
    Failed,
    /// The listing was cancelled, or the caller stopped waiting for it.
    Cancelled,
    /// The listing took longer than [`CachedSource::timeout`].
    TimedOut,
}

impl SourceError {
    /// A failure of the source named `name`, described by `message`.
    ///
    /// ```
    /// use lazytool_runtime::source::SourceError;
    ///
    /// let error = SourceError::new("github", "401 Unauthorized");
    /// assert_eq!((error.source_name(), error.message()), ("github", "401 Unauthorized"));
    /// ```
    pub fn new(name: impl Into<Arc<str>>, message: impl Into<Arc<str>>) -> Self {
        SourceError {
            name: name.into(),
            message: message.into(),
            kind: SourceErrorKind::Failed,
            cause: None,
        }
    }

    /// A listing of the source named `name` that was cancelled, for sources honoring their
    /// token.
    ///
    /// ```
    /// use lazytool_runtime::source::SourceError;
    ///
    /// let error = SourceError::cancelled("github", "shutting down");
    /// assert_eq!(error.to_string(), "listing the tools of `github` was cancelled: shutting down");
    /// ```
    pub fn cancelled(name: impl Into<Arc<str>>, message: impl Into<Arc<str>>) -> Self {
        SourceError {
            kind: SourceErrorKind::Cancelled,
            ..SourceError::new(name, message)
        }
    }

    fn timed_out(name: &Arc<str>, limit: Duration) -> Self {
        SourceError {
            kind: SourceErrorKind::TimedOut,
            ..SourceError::new(
                Arc::clone(name),
                format!("no tool catalog within {limit:?}"),
            )
        }
    }

    /// Attaches the underlying error, returned by [`Error::source`](std::error::Error::source).
    ///
    /// ```
    /// use std::error::Error;
    /// use lazytool_runtime::source::SourceError;
    ///
    /// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
    /// let error = SourceError::new("github", "unreachable").with_cause(io);
    /// assert_eq!(error.source().unwrap().to_string(), "connection refused");
    /// ```
    pub fn with_cause(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.cause = Some(Arc::new(cause));
        self
    }

    /// The name of the source that failed ([`ToolSource::name`]).
    ///
    /// ```
    /// use lazytool_runtime::source::SourceError;
    ///
    /// assert_eq!(SourceError::new("github", "401").source_name(), "github");
    /// ```
    pub fn source_name(&self) -> &str {
        &self.name
    }

    /// What went wrong.
    ///
    /// ```
    /// use lazytool_runtime::source::SourceError;
    ///
    /// assert_eq!(SourceError::new("github", "401 Unauthorized").message(), "401 Unauthorized");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use lazytool_runtime::source::{SourceError, SourceErrorKind};
    ///
    /// assert_eq!(SourceError::new("github", "401").kind(), SourceErrorKind::Failed);
    /// ```
    pub fn kind(&self) -> SourceErrorKind {
        self.kind
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            SourceErrorKind::Failed => "failed",
            SourceErrorKind::Cancelled => "was cancelled",
            SourceErrorKind::TimedOut => "timed out",
        };
        write!(
            f,
            "listing the tools of `{}` {what}: {}",
            self.name, self.message
        )
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}
