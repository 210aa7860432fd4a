use super::*;
use std::sync::Mutex;
use tokio::time::Instant;

const TARGET: &str = "lazytool::source";
type Listing = Result<Arc<[DynamicTool]>, SourceError>;
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

/// A source that counts its listings and keeps the token of each.
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

impl ToolSource for Hub {
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
                Mode::Fail => Err(SourceError::new("hub", "hub unreachable")),
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

async fn concurrently<P: ToolSource>(cached: &Arc<CachedSource<P>>, n: usize) -> Vec<Listing> {
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
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
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
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
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
    let cached = Arc::new(CachedSource::new(Arc::clone(&hub), TTL));
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
    let cached = Arc::new(CachedSource::new(Arc::clone(&hub), TTL));
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
    let cached = Arc::new(CachedSource::new(Arc::clone(&hub), TTL));
    for outcome in concurrently(&cached, 10).await {
        let error = outcome.expect_err("failed");
        assert_eq!(error.kind(), SourceErrorKind::Failed);
        assert_eq!(error.source_name(), "hub");
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
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
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
    let cached = CachedSource::new(Arc::clone(&hub), TTL).stale_on_error(true);
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
    assert_eq!(events.named("catalog listing failed").len(), 3);
    assert_eq!(events.named("serving the last good tool catalog").len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_slow_listing_times_out_and_is_cancelled() {
    let _events = record_events();
    let hub = Hub::new(Duration::ZERO);
    hub.set(Mode::Hang);
    let cached = CachedSource::new(Arc::clone(&hub), TTL).timeout(Duration::from_secs(5));
    let started = Instant::now();
    let error = cached.tools().await.expect_err("timed out");
    assert_eq!(error.kind(), SourceErrorKind::TimedOut);
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert!(hub.token(1).is_cancelled());
    assert!(cached.last_good().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_caller_gives_up_promptly() {
    let events = record_events();
    let hub = Hub::new(Duration::ZERO);
    hub.set(Mode::Hang);
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
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
    assert_eq!(error.kind(), SourceErrorKind::Cancelled);
    assert_eq!(started.elapsed(), Duration::from_millis(10));
    assert!(hub.token(1).is_cancelled(), "nobody else waited");
    let failed = events.named("catalog listing failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].1["kind"], "Cancelled");
    assert_eq!(failed[0].1["duration_ms"], "10");

    let error = cached
        .tools_with_cancel(cancel)
        .await
        .expect_err("already cancelled");
    assert_eq!(error.kind(), SourceErrorKind::Cancelled);
    assert_eq!(hub.calls(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_listing_goes_on_while_another_caller_waits() {
    let _events = record_events();
    let hub = Hub::new(Duration::from_secs(1));
    let cached = Arc::new(CachedSource::new(Arc::clone(&hub), TTL));
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
    assert_eq!(quit.kind(), SourceErrorKind::Cancelled);
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
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
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
    let cached = Arc::new(CachedSource::new(Arc::clone(&hub), TTL));
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
async fn a_panicking_source_fails_the_listing() {
    let _events = record_events();
    let hub = Hub::new(Duration::ZERO);
    hub.set(Mode::Panic);
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
    let error = cached.tools().await.expect_err("failed");
    assert_eq!(error.kind(), SourceErrorKind::Failed);
    assert!(error.message().contains("hub exploded"), "{error}");
    hub.set(Mode::Ok);
    cached.tools().await.expect("listed again");
}

#[tokio::test(start_paused = true)]
async fn listings_are_reported_as_events() {
    let events = record_events();
    let hub = Hub::new(Duration::from_millis(250));
    let cached = CachedSource::new(Arc::clone(&hub), TTL);
    cached.tools().await.expect("listed");
    cached.tools().await.expect("cached");
    advance(TTL).await;
    hub.set(Mode::Fail);
    cached.tools().await.expect_err("failed");

    let started = events.named("catalog listing started");
    assert_eq!(started.len(), 2);
    assert_eq!(started[0].0, tracing::Level::INFO);
    assert_eq!(started[0].1["source"], "hub");

    let completed = events.named("catalog listing completed");
    assert_eq!(completed.len(), 1);
    assert_eq!(completed[0].0, tracing::Level::INFO);
    assert_eq!(completed[0].1["source"], "hub");
    assert_eq!(completed[0].1["tool_count"], "2");
    assert_eq!(completed[0].1["duration_ms"], "250");

    let hit = events.named("tool catalog served from cache");
    assert_eq!(hit.len(), 1);
    assert_eq!(hit[0].0, tracing::Level::DEBUG);

    let failed = events.named("catalog listing failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].0, tracing::Level::WARN);
    assert_eq!(failed[0].1["source"], "hub");
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
    let cached = CachedSource::new(Arc::clone(&hub), TTL).timeout(Duration::from_secs(5));
    cached.tools().await.expect_err("timed out");
    let failed = events.named("catalog listing failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].1["kind"], "TimedOut");
    assert_eq!(failed[0].1["duration_ms"], "5000");
}
