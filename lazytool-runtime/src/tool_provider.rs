//! Tool catalogs behind a network call: [`ToolProvider`] and [`CachedProvider`].
//!
//! A provider lists its tools asynchronously (an MCP server's `tools/list`, an HTTP API).
//! [`CachedProvider`] wraps one with a TTL cache and in-flight de-duplication, and reports
//! every listing as `tracing` events with target `lazytool::provider`:
//!
//! - `tool discovery started` (info): `provider`;
//! - `tool discovery completed` (info): `provider`, `tool_count`, `duration_ms`;
//! - `tool discovery failed` (warn): `provider`, `error`, `kind`, `duration_ms`;
//! - `tool catalog served from cache` (debug): `provider`, `tool_count`;
//! - `serving the last good tool catalog` (warn): `provider`, `error`, with
//!   [`CachedProvider::stale_on_error`].
//!
//! Failures are loud: a failed listing is an error for every caller, never an empty catalog.

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

use crate::DynamicTool;
use crate::unwind::panic_message;

const TARGET: &str = "lazytool::provider";

/// The future a [`ToolProvider`] returns from [`list_tools`](ToolProvider::list_tools).
pub type ListToolsFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<DynamicTool>, ProviderError>> + Send + 'a>>;

/// A source of tools behind an async call.
///
/// Implementations do not cache: wrap them in a [`CachedProvider`].
///
/// ```
/// use lazytool_runtime::DynamicTool;
/// use lazytool_runtime::tool_provider::{ListToolsFuture, ProviderError, ToolProvider};
/// use tokio_util::sync::CancellationToken;
///
/// struct Hub;
///
/// impl ToolProvider for Hub {
///     fn name(&self) -> &str {
///         "hub"
///     }
///
///     fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
///         Box::pin(async move {
///             let fetch = async { Err::<Vec<DynamicTool>, _>("hub unreachable") };
///             match cancel.run_until_cancelled(fetch).await {
///                 Some(listing) => listing.map_err(|error| ProviderError::new(self.name(), error)),
///                 None => Err(ProviderError::cancelled(self.name(), "listing cancelled")),
///             }
///         })
///     }
/// }
/// ```
pub trait ToolProvider: Send + Sync + 'static {
    /// A short name for events and errors (`"github-mcp"`).
    fn name(&self) -> &str;

    /// Lists the tools. Called again when the cache expires.
    ///
    /// `cancel` is cancelled when nobody waits for the listing any more or it timed out;
    /// the future is dropped right after, so honoring it matters only for work the provider
    /// started elsewhere (a spawned request, a subprocess).
    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_>;
}

impl<P: ToolProvider + ?Sized> ToolProvider for Arc<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
        (**self).list_tools(cancel)
    }
}

impl<P: ToolProvider + ?Sized> ToolProvider for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
        (**self).list_tools(cancel)
    }
}

/// Why listing failed: never an empty catalog in disguise.
#[derive(Debug, Clone)]
pub struct ProviderError {
    provider: Arc<str>,
    message: Arc<str>,
    kind: ProviderErrorKind,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// What kind of failure a [`ProviderError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// The provider could not list its tools (network, authentication, a bad answer, a panic).
    Failed,
    /// The listing was cancelled, or the caller stopped waiting for it.
    Cancelled,
    /// The listing took longer than [`CachedProvider::timeout`].
    TimedOut,
}

impl ProviderError {
    /// A failure of `provider` described by `message`.
    pub fn new(provider: impl Into<Arc<str>>, message: impl Into<Arc<str>>) -> Self {
        ProviderError {
            provider: provider.into(),
            message: message.into(),
            kind: ProviderErrorKind::Failed,
            source: None,
        }
    }

    /// A listing of `provider` that was cancelled, for providers honoring their token.
    pub fn cancelled(provider: impl Into<Arc<str>>, message: impl Into<Arc<str>>) -> Self {
        ProviderError {
            kind: ProviderErrorKind::Cancelled,
            ..ProviderError::new(provider, message)
        }
    }

    fn timed_out(provider: &Arc<str>, limit: Duration) -> Self {
        ProviderError {
            kind: ProviderErrorKind::TimedOut,
            ..ProviderError::new(
                Arc::clone(provider),
                format!("no tool catalog within {limit:?}"),
            )
        }
    }

    /// Attaches the underlying error, returned by [`Error::source`](std::error::Error::source).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// The name of the provider that failed.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ProviderErrorKind {
        self.kind
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ProviderErrorKind::Failed => "failed",
            ProviderErrorKind::Cancelled => "was cancelled",
            ProviderErrorKind::TimedOut => "timed out",
        };
        write!(
            f,
            "listing the tools of `{}` {what}: {}",
            self.provider, self.message
        )
    }
}

impl std::error::Error for ProviderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

type Listing = Result<Arc<[DynamicTool]>, ProviderError>;
type ListingFuture = Pin<Box<dyn Future<Output = Listing> + Send>>;

/// A provider with a TTL cache and in-flight de-duplication.
///
/// - A catalog younger than the TTL (counted from when its listing completed) is returned
///   without calling the provider.
/// - Otherwise one listing runs, shared by every concurrent caller.
/// - A failed listing is an error for every caller waiting on it and is not cached: the next
///   call lists again. The previous good catalog stays readable with
///   [`last_good`](Self::last_good), and [`stale_on_error`](Self::stale_on_error) makes
///   callers get it instead of the error.
///
/// No task is spawned: the callers drive the shared listing. Once every caller waiting on a
/// listing has given up, the listing is dropped and its token cancelled.
///
/// Share it behind an `Arc`.
pub struct CachedProvider<P> {
    provider: Arc<P>,
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

impl<P: ToolProvider> CachedProvider<P> {
    /// Caches the tools of `provider` for `ttl`. The provider's name is read once, here.
    pub fn new(provider: P, ttl: Duration) -> Self {
        let name = provider.name().into();
        CachedProvider {
            provider: Arc::new(provider),
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
    pub fn stale_on_error(mut self, yes: bool) -> Self {
        self.stale_on_error = yes;
        self
    }

    /// Fails a listing that takes longer than `timeout` with
    /// [`ProviderErrorKind::TimedOut`] and cancels it (default: no limit). The limit is the
    /// shared listing's, counted from its start, not each caller's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The wrapped provider.
    pub fn provider(&self) -> &P {
        &self.provider
    }

    /// The tools: the cached catalog while it is fresh, a new listing otherwise.
    pub async fn tools(&self) -> Result<Arc<[DynamicTool]>, ProviderError> {
        self.tools_with_cancel(CancellationToken::new()).await
    }

    /// Like [`tools`](Self::tools), but this caller gives up with
    /// [`ProviderErrorKind::Cancelled`] as soon as `cancel` is cancelled (at once if it
    /// already is). The shared listing goes on for the other callers; it is cancelled only
    /// when every caller waiting on it has given up.
    pub async fn tools_with_cancel(
        &self,
        cancel: CancellationToken,
    ) -> Result<Arc<[DynamicTool]>, ProviderError> {
        if cancel.is_cancelled() {
            return Err(self.caller_gave_up());
        }
        let flight = {
            let mut state = self.state();
            if let Some(catalog) = state.fresh(self.ttl) {
                tracing::debug!(
                    target: TARGET,
                    provider = %self.name,
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
                    provider = %self.name,
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
    pub fn invalidate(&self) {
        let mut state = self.state();
        state.fetched_at = None;
        state.in_flight = Weak::new();
    }

    /// The catalog of the last successful listing, fresh or not.
    pub fn last_good(&self) -> Option<Arc<[DynamicTool]>> {
        self.state().last_good.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every update of the state is a plain assignment: it is consistent even after a panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn caller_gave_up(&self) -> ProviderError {
        ProviderError::cancelled(Arc::clone(&self.name), "the caller stopped waiting")
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
        let provider = Arc::clone(&self.provider);
        let name = Arc::clone(&self.name);
        let limit = self.timeout;
        Box::pin(async move {
            let token = CancellationToken::new();
            let attempt = Attempt::start(Arc::clone(&name), token.clone());
            let listing = list_catching_panics(&*provider, &name, token.clone());
            let outcome = match limit {
                None => listing.await,
                Some(limit) => match tokio::time::timeout(limit, listing).await {
                    Ok(outcome) => outcome,
                    Err(_) => {
                        token.cancel();
                        Err(ProviderError::timed_out(&name, limit))
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

impl<P> fmt::Debug for CachedProvider<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedProvider")
            .field("provider", &self.name)
            .field("ttl", &self.ttl)
            .field("timeout", &self.timeout)
            .field("stale_on_error", &self.stale_on_error)
            .finish_non_exhaustive()
    }
}

/// Lists the tools, turning a panic of the provider into an error.
async fn list_catching_panics<P: ToolProvider + ?Sized>(
    provider: &P,
    name: &str,
    token: CancellationToken,
) -> Listing {
    let panicked = |payload: Box<dyn Any + Send>| {
        ProviderError::new(
            name,
            format!("the provider panicked: {}", panic_message(&*payload)),
        )
    };
    // A listing that panicked is never polled again: it is dropped with its error.
    let mut listing = match catch_unwind(AssertUnwindSafe(|| provider.list_tools(token))) {
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
    provider: Arc<str>,
    token: CancellationToken,
    started: Instant,
    finished: bool,
}

impl Attempt {
    fn start(provider: Arc<str>, token: CancellationToken) -> Self {
        tracing::info!(target: TARGET, provider = %provider, "tool discovery started");
        Attempt {
            provider,
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
                provider = %self.provider,
                tool_count = catalog.len(),
                duration_ms = self.duration_ms(),
                "tool discovery completed"
            ),
            Err(error) => self.failed(error),
        }
    }

    fn failed(&self, error: &ProviderError) {
        tracing::warn!(
            target: TARGET,
            provider = %self.provider,
            %error,
            kind = ?error.kind(),
            duration_ms = self.duration_ms(),
            "tool discovery failed"
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
            self.failed(&ProviderError::cancelled(
                Arc::clone(&self.provider),
                "every caller stopped waiting",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::task::JoinSet;
    use tokio::time::{advance, sleep};
    use tracing::field::{Field, Visit};
    use tracing::span;

    const TTL: Duration = Duration::from_secs(60);

    #[derive(Clone, Copy)]
    enum Mode {
        Ok,
        Fail,
        Hang,
        Panic,
    }

    /// A provider that counts its listings and keeps the token of each.
    struct Hub {
        calls: AtomicUsize,
        delay: Duration,
        mode: Mutex<Mode>,
        tokens: Mutex<Vec<CancellationToken>>,
    }

    impl Hub {
        fn new(delay: Duration) -> Arc<Hub> {
            Arc::new(Hub {
                calls: AtomicUsize::new(0),
                delay,
                mode: Mutex::new(Mode::Ok),
                tokens: Mutex::default(),
            })
        }

        fn set(&self, mode: Mode) {
            *self.mode.lock().expect("not poisoned") = mode;
        }

        fn calls(&self) -> usize {
            self.calls.load(Ordering::SeqCst)
        }

        fn token(&self, listing: usize) -> CancellationToken {
            self.tokens.lock().expect("not poisoned")[listing - 1].clone()
        }
    }

    impl ToolProvider for Hub {
        fn name(&self) -> &str {
            "hub"
        }

        fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
            let listing = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
            self.tokens.lock().expect("not poisoned").push(cancel);
            let mode = *self.mode.lock().expect("not poisoned");
            Box::pin(async move {
                sleep(self.delay).await;
                match mode {
                    Mode::Ok => Ok(catalog(listing)),
                    Mode::Fail => Err(ProviderError::new("hub", "hub unreachable")),
                    Mode::Hang => std::future::pending().await,
                    Mode::Panic => panic!("hub exploded"),
                }
            })
        }
    }

    fn catalog(listing: usize) -> Vec<DynamicTool> {
        ["search", "fetch"]
            .map(|name| {
                DynamicTool::new(
                    name,
                    format!("listing {listing}"),
                    serde_json::json!({"type": "object"}),
                    |_: serde_json::Value, _| async { Ok::<_, String>(serde_json::Value::Null) },
                )
                .lazy(true)
            })
            .into()
    }

    fn listing(tools: &[DynamicTool]) -> &str {
        tools[0].description()
    }

    type Recorded = (tracing::Level, BTreeMap<String, String>);

    thread_local! {
        static RECORDED: RefCell<Option<Vec<Recorded>>> = const { RefCell::new(None) };
    }

    /// Records the events of this thread (a current-thread runtime's) from now on.
    ///
    /// Every test calls it first: the recorder is a global subscriber installed before any
    /// event, because a callsite registered while a scoped subscriber is being set can keep
    /// a stale "never" interest and lose events.
    fn record_events() -> Events {
        static INSTALLED: OnceLock<()> = OnceLock::new();
        INSTALLED.get_or_init(|| {
            tracing::subscriber::set_global_default(Recorder).expect("no other subscriber");
        });
        RECORDED.set(Some(Vec::new()));
        Events
    }

    struct Events;

    impl Events {
        fn named(&self, message: &str) -> Vec<Recorded> {
            RECORDED.with_borrow(|recorded| {
                (recorded.iter().flatten())
                    .filter(|(_, fields)| fields["message"] == message)
                    .cloned()
                    .collect()
            })
        }
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }
    }

    struct Recorder;

    impl tracing::Subscriber for Recorder {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
            span::Id::from_u64(1)
        }

        fn record(&self, _: &span::Id, _: &span::Record<'_>) {}

        fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}

        fn event(&self, event: &tracing::Event<'_>) {
            if event.metadata().target() != TARGET {
                return;
            }
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            let level = *event.metadata().level();
            RECORDED.with_borrow_mut(|recorded| {
                if let Some(recorded) = recorded {
                    recorded.push((level, fields));
                }
            });
        }

        fn enter(&self, _: &span::Id) {}

        fn exit(&self, _: &span::Id) {}
    }

    async fn concurrently<P: ToolProvider>(
        cached: &Arc<CachedProvider<P>>,
        n: usize,
    ) -> Vec<Listing> {
        let mut tasks = JoinSet::new();
        for _ in 0..n {
            let cached = Arc::clone(cached);
            tasks.spawn(async move { cached.tools().await });
        }
        tasks.join_all().await
    }

    #[tokio::test(start_paused = true)]
    async fn a_fresh_catalog_is_served_without_listing_again() {
        let _events = record_events();
        let hub = Hub::new(Duration::ZERO);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        let first = cached.tools().await.expect("listed");
        advance(TTL - Duration::from_millis(1)).await;
        let second = cached.tools().await.expect("cached");
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(hub.calls(), 1);
        assert_eq!(first.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn an_expired_catalog_is_listed_again() {
        let _events = record_events();
        let hub = Hub::new(Duration::ZERO);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        cached.tools().await.expect("listed");
        advance(TTL).await;
        let refreshed = cached.tools().await.expect("listed again");
        assert_eq!(listing(&refreshed), "listing 2");
        assert_eq!(hub.calls(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_callers_share_one_listing() {
        let _events = record_events();
        let hub = Hub::new(Duration::from_secs(1));
        let cached = Arc::new(CachedProvider::new(Arc::clone(&hub), TTL));
        let outcomes = concurrently(&cached, 50).await;
        let first = outcomes[0].clone().expect("listed");
        for outcome in outcomes {
            assert!(Arc::ptr_eq(&first, &outcome.expect("listed")));
        }
        assert_eq!(hub.calls(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 8)]
    async fn concurrent_callers_on_many_threads_share_one_listing() {
        let _events = record_events();
        let hub = Hub::new(Duration::from_millis(2));
        let cached = Arc::new(CachedProvider::new(Arc::clone(&hub), TTL));
        for outcome in concurrently(&cached, 50).await {
            assert_eq!(listing(&outcome.expect("listed")), "listing 1");
        }
        assert_eq!(hub.calls(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failure_reaches_every_waiter_and_is_not_cached() {
        let _events = record_events();
        let hub = Hub::new(Duration::from_secs(1));
        hub.set(Mode::Fail);
        let cached = Arc::new(CachedProvider::new(Arc::clone(&hub), TTL));
        for outcome in concurrently(&cached, 10).await {
            let error = outcome.expect_err("failed");
            assert_eq!(error.kind(), ProviderErrorKind::Failed);
            assert_eq!(error.provider(), "hub");
            assert_eq!(
                error.to_string(),
                "listing the tools of `hub` failed: hub unreachable"
            );
        }
        assert_eq!(hub.calls(), 1);
        hub.set(Mode::Ok);
        let tools = cached.tools().await.expect("listed again");
        assert_eq!(listing(&tools), "listing 2");
    }

    #[tokio::test(start_paused = true)]
    async fn a_failure_keeps_the_last_good_catalog_but_reports_the_error() {
        let _events = record_events();
        let hub = Hub::new(Duration::ZERO);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        assert!(cached.last_good().is_none());
        let good = cached.tools().await.expect("listed");
        advance(TTL).await;
        hub.set(Mode::Fail);
        cached.tools().await.expect_err("failed loudly");
        let kept = cached.last_good().expect("kept");
        assert!(Arc::ptr_eq(&good, &kept));
    }

    #[tokio::test(start_paused = true)]
    async fn stale_on_error_serves_the_last_good_catalog_and_reports_the_failure() {
        let events = record_events();
        let hub = Hub::new(Duration::ZERO);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL).stale_on_error(true);
        hub.set(Mode::Fail);
        cached.tools().await.expect_err("nothing stale to serve");
        hub.set(Mode::Ok);
        let good = cached.tools().await.expect("listed");
        advance(TTL).await;
        hub.set(Mode::Fail);
        let stale = cached.tools().await.expect("stale");
        assert!(Arc::ptr_eq(&good, &stale));
        cached.tools().await.expect("stale again");
        assert_eq!(hub.calls(), 4, "a failure is not cached");
        assert_eq!(events.named("tool discovery failed").len(), 3);
        assert_eq!(events.named("serving the last good tool catalog").len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_listing_times_out_and_is_cancelled() {
        let _events = record_events();
        let hub = Hub::new(Duration::ZERO);
        hub.set(Mode::Hang);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL).timeout(Duration::from_secs(5));
        let started = Instant::now();
        let error = cached.tools().await.expect_err("timed out");
        assert_eq!(error.kind(), ProviderErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(5));
        assert!(hub.token(1).is_cancelled());
        assert!(cached.last_good().is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_cancelled_caller_gives_up_promptly() {
        let events = record_events();
        let hub = Hub::new(Duration::ZERO);
        hub.set(Mode::Hang);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        let cancel = CancellationToken::new();
        let canceller = cancel.clone();
        tokio::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            canceller.cancel();
        });
        let started = Instant::now();
        let error = cached
            .tools_with_cancel(cancel.clone())
            .await
            .expect_err("cancelled");
        assert_eq!(error.kind(), ProviderErrorKind::Cancelled);
        assert_eq!(started.elapsed(), Duration::from_millis(10));
        assert!(hub.token(1).is_cancelled(), "nobody else waited");
        let failed = events.named("tool discovery failed");
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].1["kind"], "Cancelled");
        assert_eq!(failed[0].1["duration_ms"], "10");

        let error = cached
            .tools_with_cancel(cancel)
            .await
            .expect_err("already cancelled");
        assert_eq!(error.kind(), ProviderErrorKind::Cancelled);
        assert_eq!(hub.calls(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_listing_goes_on_while_another_caller_waits() {
        let _events = record_events();
        let hub = Hub::new(Duration::from_secs(1));
        let cached = Arc::new(CachedProvider::new(Arc::clone(&hub), TTL));
        let cancel = CancellationToken::new();
        let quitter = tokio::spawn({
            let (cached, cancel) = (Arc::clone(&cached), cancel.clone());
            async move { cached.tools_with_cancel(cancel).await }
        });
        let stayer = tokio::spawn({
            let cached = Arc::clone(&cached);
            async move { cached.tools().await }
        });
        let started = Instant::now();
        sleep(Duration::from_millis(100)).await;
        cancel.cancel();
        let quit = quitter.await.expect("joined").expect_err("gave up");
        assert_eq!(quit.kind(), ProviderErrorKind::Cancelled);
        let tools = stayer.await.expect("joined").expect("listed");
        assert_eq!(listing(&tools), "listing 1");
        assert_eq!(
            started.elapsed(),
            Duration::from_secs(1),
            "the same listing"
        );
        assert_eq!(hub.calls(), 1);
        assert!(!hub.token(1).is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn invalidate_forces_a_new_listing() {
        let _events = record_events();
        let hub = Hub::new(Duration::ZERO);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        cached.tools().await.expect("listed");
        cached.invalidate();
        assert!(cached.last_good().is_some());
        let tools = cached.tools().await.expect("listed again");
        assert_eq!(listing(&tools), "listing 2");
        cached.tools().await.expect("cached");
        assert_eq!(hub.calls(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn invalidate_during_a_listing_keeps_its_catalog_out_of_the_cache() {
        let _events = record_events();
        let hub = Hub::new(Duration::from_secs(1));
        let cached = Arc::new(CachedProvider::new(Arc::clone(&hub), TTL));
        let early = tokio::spawn({
            let cached = Arc::clone(&cached);
            async move { cached.tools().await }
        });
        sleep(Duration::from_millis(100)).await;
        cached.invalidate();
        let late = cached.tools().await.expect("listed");
        let early = early.await.expect("joined").expect("listed");
        assert_eq!(listing(&early), "listing 1");
        assert_eq!(listing(&late), "listing 2");
        let cached_now = cached.tools().await.expect("cached");
        assert_eq!(listing(&cached_now), "listing 2");
        assert_eq!(hub.calls(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_panicking_provider_fails_the_listing() {
        let _events = record_events();
        let hub = Hub::new(Duration::ZERO);
        hub.set(Mode::Panic);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        let error = cached.tools().await.expect_err("failed");
        assert_eq!(error.kind(), ProviderErrorKind::Failed);
        assert!(error.message().contains("hub exploded"), "{error}");
        hub.set(Mode::Ok);
        cached.tools().await.expect("listed again");
    }

    #[tokio::test(start_paused = true)]
    async fn listings_are_reported_as_events() {
        let events = record_events();
        let hub = Hub::new(Duration::from_millis(250));
        let cached = CachedProvider::new(Arc::clone(&hub), TTL);
        cached.tools().await.expect("listed");
        cached.tools().await.expect("cached");
        advance(TTL).await;
        hub.set(Mode::Fail);
        cached.tools().await.expect_err("failed");

        let started = events.named("tool discovery started");
        assert_eq!(started.len(), 2);
        assert_eq!(started[0].0, tracing::Level::INFO);
        assert_eq!(started[0].1["provider"], "hub");

        let completed = events.named("tool discovery completed");
        assert_eq!(completed.len(), 1);
        assert_eq!(completed[0].0, tracing::Level::INFO);
        assert_eq!(completed[0].1["provider"], "hub");
        assert_eq!(completed[0].1["tool_count"], "2");
        assert_eq!(completed[0].1["duration_ms"], "250");

        let hit = events.named("tool catalog served from cache");
        assert_eq!(hit.len(), 1);
        assert_eq!(hit[0].0, tracing::Level::DEBUG);

        let failed = events.named("tool discovery failed");
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].0, tracing::Level::WARN);
        assert_eq!(failed[0].1["provider"], "hub");
        assert_eq!(failed[0].1["kind"], "Failed");
        assert_eq!(failed[0].1["duration_ms"], "250");
        assert_eq!(
            failed[0].1["error"],
            "listing the tools of `hub` failed: hub unreachable"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_is_reported_with_its_duration() {
        let events = record_events();
        let hub = Hub::new(Duration::ZERO);
        hub.set(Mode::Hang);
        let cached = CachedProvider::new(Arc::clone(&hub), TTL).timeout(Duration::from_secs(5));
        cached.tools().await.expect_err("timed out");
        let failed = events.named("tool discovery failed");
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].1["kind"], "TimedOut");
        assert_eq!(failed[0].1["duration_ms"], "5000");
    }
}
