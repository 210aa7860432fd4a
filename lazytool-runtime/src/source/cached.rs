//! A source with a TTL cache, one listing shared by concurrent callers, and events:
//! [`CachedSource`].

use std::any::Any;
use std::fmt;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::Poll;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{SourceError, ToolSource};
use crate::dispatch::panic_message;
use crate::tool::DynamicTool;

const TARGET: &str = "lazytool::source";

type Listing = Result<Arc<[DynamicTool]>, SourceError>;
type ListingFuture = Pin<Box<dyn Future<Output = Listing> + Send>>;

/// A source with a TTL cache and in-flight de-duplication.
///
/// - A catalog younger than the TTL (counted from when its listing completed) is returned
///   without calling the source.
/// - Otherwise one listing runs, shared by every concurrent caller.
/// - A failed listing is an error for every caller waiting on it and is not cached: the next
///   call lists again. The previous good catalog stays readable with
///   [`last_good`](Self::last_good), and [`stale_on_error`](Self::stale_on_error) makes
///   callers get it instead of the error.
///
/// No task is spawned: the callers drive the shared listing. Once every caller waiting on a
/// listing has given up, the listing is dropped and its token cancelled.
///
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// # use std::sync::atomic::{AtomicUsize, Ordering};
/// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
/// # use tokio_util::sync::CancellationToken;
/// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
/// # struct Hub { listings: AtomicUsize, fail_from: usize }
/// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
/// # impl ToolSource for Hub {
/// #     fn name(&self) -> &str { "hub" }
/// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
/// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
/// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
/// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
/// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
/// #     }
/// # }
/// use std::time::Duration;
/// use lazytool_runtime::Registry;
/// use lazytool_runtime::source::CachedSource;
///
/// // `Hub` (hidden) lists one tool, `search`, and counts its listings.
/// let hub = CachedSource::new(Hub::new(usize::MAX), Duration::from_secs(300));
/// let tools = hub.tools().await.unwrap();
/// let registry = Registry::builder()
///     .without_inventory()
///     .tools(tools.iter().cloned().map(|tool| tool.lazy(true)))
///     .build()
///     .unwrap();
/// assert_eq!(registry.session().lazy_tool_names(), ["search"]);
///
/// hub.tools().await.unwrap(); // fresh: served from the cache
/// assert_eq!(hub.source().listings.load(Ordering::SeqCst), 1);
/// # }
/// ```
///
/// Share it behind an `Arc`.
pub struct CachedSource<P> {
    source: Arc<P>,
    name: Arc<str>,
    ttl: Duration,
    timeout: Option<Duration>,
    stale_on_error: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    last_good: Option<Arc<[DynamicTool]>>,
    /// When `last_good` arrived; `None` once invalidated.
    fetched_at: Option<Instant>,
    in_flight: Weak<InFlight>,
}

/// One listing and the callers waiting on it, who hold it alive.
struct InFlight {
    stage: tokio::sync::Mutex<Stage>,
}

enum Stage {
    Running(ListingFuture),
    Settled(Listing),
}

impl<P: ToolSource> CachedSource<P> {
    /// Caches the tools of `source` for `ttl`. The source's name is read once, here.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::CachedSource;
    ///
    /// let hub = CachedSource::new(Hub::new(usize::MAX), Duration::from_secs(300));
    /// assert_eq!(hub.tools().await.unwrap()[0].name(), "search");
    /// # }
    /// ```
    pub fn new(source: P, ttl: Duration) -> Self {
        let name = source.name().into();
        CachedSource {
            source: Arc::new(source),
            name,
            ttl,
            timeout: None,
            stale_on_error: false,
            state: Mutex::default(),
        }
    }

    /// Whether a failed listing returns the last good catalog instead of the error, when
    /// there is one (default: no). The failure is still reported as a `tracing` event, and
    /// not cached: every call lists again until a listing succeeds.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::CachedSource;
    ///
    /// // `Hub::new(2)`: the first listing succeeds, every later one fails.
    /// let hub = CachedSource::new(Hub::new(2), Duration::from_secs(300)).stale_on_error(true);
    /// hub.tools().await.unwrap();
    /// hub.invalidate();
    /// let tools = hub.tools().await.unwrap(); // the listing failed: the last good catalog
    /// assert_eq!(tools[0].name(), "search");
    /// # }
    /// ```
    pub fn stale_on_error(mut self, yes: bool) -> Self {
        self.stale_on_error = yes;
        self
    }

    /// Fails a listing that takes longer than `timeout` with
    /// [`SourceErrorKind::TimedOut`](super::SourceErrorKind::TimedOut) and cancels it (default: no limit). The limit is the
    /// shared listing's, counted from its start, not each caller's.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::time::Duration;
    /// use lazytool_runtime::source::{CachedSource, ListToolsFuture, SourceErrorKind, ToolSource};
    /// use tokio_util::sync::CancellationToken;
    ///
    /// struct Stuck;
    /// impl ToolSource for Stuck {
    ///     fn name(&self) -> &str {
    ///         "stuck"
    ///     }
    ///     fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
    ///         Box::pin(std::future::pending())
    ///     }
    /// }
    ///
    /// let stuck = CachedSource::new(Stuck, Duration::from_secs(300)).timeout(Duration::from_millis(10));
    /// assert_eq!(stuck.tools().await.unwrap_err().kind(), SourceErrorKind::TimedOut);
    /// # }
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The wrapped source.
    ///
    /// ```
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::CachedSource;
    ///
    /// let hub = CachedSource::new(Hub::new(usize::MAX), Duration::from_secs(300));
    /// assert_eq!(hub.source().name(), "hub");
    /// ```
    pub fn source(&self) -> &P {
        &self.source
    }

    /// The tools: the cached catalog while it is fresh, a new listing otherwise.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::CachedSource;
    ///
    /// let hub = CachedSource::new(Hub::new(2), Duration::from_secs(300));
    /// assert_eq!(hub.tools().await.unwrap().len(), 1);
    /// hub.invalidate();
    /// let error = hub.tools().await.unwrap_err(); // loud: never an empty catalog
    /// assert_eq!(error.to_string(), "listing the tools of `hub` failed: 503");
    /// # }
    /// ```
    pub async fn tools(&self) -> Result<Arc<[DynamicTool]>, SourceError> {
        self.tools_with_cancel(CancellationToken::new()).await
    }

    /// Like [`tools`](Self::tools), but this caller gives up with
    /// [`SourceErrorKind::Cancelled`](super::SourceErrorKind::Cancelled) as soon as `cancel` is cancelled (at once if it
    /// already is). The shared listing goes on for the other callers; it is cancelled only
    /// when every caller waiting on it has given up.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::{CachedSource, SourceErrorKind};
    ///
    /// let hub = CachedSource::new(Hub::new(usize::MAX), Duration::from_secs(300));
    /// let cancel = CancellationToken::new();
    /// cancel.cancel(); // the caller's request is gone
    /// let error = hub.tools_with_cancel(cancel).await.unwrap_err();
    /// assert_eq!(error.kind(), SourceErrorKind::Cancelled);
    /// # }
    /// ```
    pub async fn tools_with_cancel(
        &self,
        cancel: CancellationToken,
    ) -> Result<Arc<[DynamicTool]>, SourceError> {
        if cancel.is_cancelled() {
            return Err(self.caller_gave_up());
        }
        let flight = {
            let mut state = self.state();
            if let Some(catalog) = state.fresh(self.ttl) {
                tracing::debug!(
                    target: TARGET,
                    source = %self.name,
                    tool_count = catalog.len(),
                    "tool catalog served from cache"
                );
                return Ok(catalog);
            }
            state.in_flight.upgrade().unwrap_or_else(|| {
                let flight = Arc::new(InFlight {
                    stage: tokio::sync::Mutex::new(Stage::Running(self.listing())),
                });
                state.in_flight = Arc::downgrade(&flight);
                flight
            })
        };
        let outcome = cancel
            .run_until_cancelled(self.wait(&flight))
            .await
            .ok_or_else(|| self.caller_gave_up())?;
        let error = match outcome {
            Ok(catalog) => return Ok(catalog),
            Err(error) => error,
        };
        match self.last_good().filter(|_| self.stale_on_error) {
            Some(stale) => {
                tracing::warn!(
                    target: TARGET,
                    source = %self.name,
                    %error,
                    "serving the last good tool catalog"
                );
                Ok(stale)
            }
            None => Err(error),
        }
    }

    /// Makes the next call list again, even if the cache is fresh. A listing already running
    /// still answers its callers, but its catalog is not cached. [`last_good`](Self::last_good)
    /// is kept.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::CachedSource;
    ///
    /// let hub = CachedSource::new(Hub::new(usize::MAX), Duration::from_secs(300));
    /// hub.tools().await.unwrap();
    /// hub.invalidate(); // say, on an MCP `notifications/tools/list_changed`
    /// hub.tools().await.unwrap();
    /// assert_eq!(hub.source().listings.load(Ordering::SeqCst), 2);
    /// # }
    /// ```
    pub fn invalidate(&self) {
        let mut state = self.state();
        state.fetched_at = None;
        state.in_flight = Weak::new();
    }

    /// The catalog of the last successful listing, fresh or not.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use lazytool_runtime::{DynamicTool, source::{ListToolsFuture, SourceError, ToolSource}};
    /// # use tokio_util::sync::CancellationToken;
    /// # /// Lists one tool, counting its listings; fails from listing `fail_from` on.
    /// # struct Hub { listings: AtomicUsize, fail_from: usize }
    /// # impl Hub { fn new(fail_from: usize) -> Self { Hub { listings: AtomicUsize::new(0), fail_from } } }
    /// # impl ToolSource for Hub {
    /// #     fn name(&self) -> &str { "hub" }
    /// #     fn list_tools(&self, _: CancellationToken) -> ListToolsFuture<'_> {
    /// #         let fail = self.listings.fetch_add(1, Ordering::SeqCst) + 1 >= self.fail_from;
    /// #         let search = DynamicTool::new("search", "Searches.", serde_json::json!({"type": "object"}),
    /// #             |_, _| async { Ok::<_, String>(serde_json::json!([])) });
    /// #         Box::pin(async move { if fail { Err(SourceError::new("hub", "503")) } else { Ok(vec![search]) } })
    /// #     }
    /// # }
    /// use std::time::Duration;
    /// use lazytool_runtime::source::CachedSource;
    ///
    /// let hub = CachedSource::new(Hub::new(2), Duration::from_secs(300));
    /// assert!(hub.last_good().is_none());
    /// hub.tools().await.unwrap();
    /// hub.invalidate();
    /// assert!(hub.tools().await.is_err());
    /// assert_eq!(hub.last_good().unwrap()[0].name(), "search");
    /// # }
    /// ```
    pub fn last_good(&self) -> Option<Arc<[DynamicTool]>> {
        self.state().last_good.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every update of the state is a plain assignment: it is consistent even after a panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn caller_gave_up(&self) -> SourceError {
        SourceError::cancelled(Arc::clone(&self.name), "the caller stopped waiting")
    }

    /// Waits for the shared listing, polling it while holding its lock: when this caller
    /// gives up, the next one in line goes on polling the same listing.
    async fn wait(&self, flight: &Arc<InFlight>) -> Listing {
        let mut stage = flight.stage.lock().await;
        let outcome = match &mut *stage {
            Stage::Settled(outcome) => return outcome.clone(),
            Stage::Running(listing) => listing.as_mut().await,
        };
        *stage = Stage::Settled(outcome.clone());
        let mut state = self.state();
        if std::ptr::eq(state.in_flight.as_ptr(), Arc::as_ptr(flight)) {
            state.in_flight = Weak::new();
            if let Ok(catalog) = &outcome {
                state.last_good = Some(Arc::clone(catalog));
                state.fetched_at = Some(Instant::now());
            }
        }
        outcome
    }

    fn listing(&self) -> ListingFuture {
        let source = Arc::clone(&self.source);
        let name = Arc::clone(&self.name);
        let limit = self.timeout;
        Box::pin(async move {
            let token = CancellationToken::new();
            let attempt = Attempt::start(Arc::clone(&name), token.clone());
            let listing = list_catching_panics(&*source, &name, token.clone());
            let outcome = match limit {
                None => listing.await,
                Some(limit) => match tokio::time::timeout(limit, listing).await {
                    Ok(outcome) => outcome,
                    Err(_) => {
                        token.cancel();
                        Err(SourceError::timed_out(&name, limit))
                    }
                },
            };
            attempt.finish(&outcome);
            outcome
        })
    }
}

impl State {
    fn fresh(&self, ttl: Duration) -> Option<Arc<[DynamicTool]>> {
        if self.fetched_at?.elapsed() < ttl {
            self.last_good.clone()
        } else {
            None
        }
    }
}

impl<P> fmt::Debug for CachedSource<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedSource")
            .field("source", &self.name)
            .field("ttl", &self.ttl)
            .field("timeout", &self.timeout)
            .field("stale_on_error", &self.stale_on_error)
            .finish_non_exhaustive()
    }
}

/// Lists the tools, turning a panic of the source into an error.
async fn list_catching_panics<P: ToolSource + ?Sized>(
    source: &P,
    name: &str,
    token: CancellationToken,
) -> Listing {
    let panicked = |payload: Box<dyn Any + Send>| {
        SourceError::new(
            name,
            format!("the source panicked: {}", panic_message(&*payload)),
        )
    };
    // A listing that panicked is never polled again: it is dropped with its error.
    let mut listing = match catch_unwind(AssertUnwindSafe(|| source.list_tools(token))) {
        Ok(listing) => listing,
        Err(payload) => return Err(panicked(payload)),
    };
    let tools = poll_fn(|cx| {
        catch_unwind(AssertUnwindSafe(|| listing.as_mut().poll(cx)))
            .unwrap_or_else(|payload| Poll::Ready(Err(panicked(payload))))
    })
    .await?;
    Ok(tools.into())
}

/// One listing as the events report it. Dropped unfinished, it was abandoned by every
/// caller: its token is cancelled and the failure reported.
struct Attempt {
    source: Arc<str>,
    token: CancellationToken,
    started: Instant,
    finished: bool,
}

impl Attempt {
    fn start(source: Arc<str>, token: CancellationToken) -> Self {
        tracing::info!(target: TARGET, source = %source, "catalog listing started");
        Attempt {
            source,
            token,
            started: Instant::now(),
            finished: false,
        }
    }

    fn finish(mut self, outcome: &Listing) {
        self.finished = true;
        match outcome {
            Ok(catalog) => tracing::info!(
                target: TARGET,
                source = %self.source,
                tool_count = catalog.len(),
                duration_ms = self.duration_ms(),
                "catalog listing completed"
            ),
            Err(error) => self.failed(error),
        }
    }

    fn failed(&self, error: &SourceError) {
        tracing::warn!(
            target: TARGET,
            source = %self.source,
            %error,
            kind = ?error.kind(),
            duration_ms = self.duration_ms(),
            "catalog listing failed"
        );
    }

    fn duration_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.finished {
            self.token.cancel();
            self.failed(&SourceError::cancelled(
                Arc::clone(&self.source),
                "every caller stopped waiting",
            ));
        }
    }
}
