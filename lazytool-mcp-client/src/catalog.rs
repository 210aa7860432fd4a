//! A registry of a program's own tools and any number of MCP sources, rebuilt when a source
//! changes: [`McpCatalog`].

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use lazytool_runtime::source::{CachedSource, LiveRegistry, ToolSource};
use lazytool_runtime::{DynamicTool, Registry, RegistryBuilder, RegistryError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use lazytool_runtime::source::SourceError;

use crate::lock::file::{Lock, LockState};
use crate::mcp_source::McpSource;
use crate::offers::admission::ToolNote;
use crate::offers::routing::Offers;
use crate::slots::{Cached, Slots};
use lazytool_mcp_core::limit::LimitsHit;

const TARGET: &str = "lazytool::mcp";
/// How soon a source without a catalog is listed again, doubled while it keeps failing (its
/// own backoff decides whether a listing restarts it).
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(60);
/// The shortest wait between two listings of a source without a catalog.
const RETRY_FLOOR: Duration = Duration::from_millis(50);

type Base = Box<dyn Fn() -> RegistryBuilder + Send + Sync>;

/// A [`LiveRegistry`] of a program's own tools (`#[tool]`s, [`DynamicTool`]s: whatever the
/// `base` builder holds) and the tools of MCP sources, which follows the sources:
///
/// - [`start`](McpCatalog::start) lists every source at once (each within its own start
///   timeout); a source that fails is reported ([`reports`](McpCatalog::reports)) and left
///   out, the others are served, and it is listed again while it has no catalog.
/// - A source's `list_changed` (or restart) lists it again and publishes the new registry
///   when its tools changed; [`McpServer::live`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html#method.live) sends its
///   stateful clients `notifications/tools/list_changed`, and in-process sessions move
///   over with [`LiveRegistry::follow`].
/// - A source whose listing fails keeps its last good tools: their calls answer with an
///   error saying the server is down, until it is back.
/// - An upstream tool whose name is already taken (by a `#[tool]` or an earlier source) is
///   left out and reported, with a warning. A name, once given to a source's tool, is never
///   given to another source's tool while the catalog lives: a discovery made earlier can
///   never run another server's tool.
/// - An upstream tool that cannot be served (a reserved or invalid name, an input schema
///   that does not compile, a definition over its source's
///   [`max_definition_bytes`](McpSource::max_definition_bytes)) is left out and reported;
///   the rest of its server and every other server are served, at the start and on every
///   later listing.
/// - It is also a [`PromptProvider`](crate::PromptProvider) and a
///   [`ResourceProvider`](crate::ResourceProvider) of the sources' prompts (named
///   `SERVER__PROMPT`) and resources (under their own URIs), each request routed to its
///   server: give it to [`McpServer::prompts`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html#method.prompts) and
///   [`McpServer::resources`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html#method.resources). See
///   [`prompts_and_resources`](McpCatalog::prompts_and_resources).
///
/// ```rust,no_run
/// use lazytool_mcp::McpServer;
/// use lazytool_mcp_client::{McpCatalog, McpSource, Upstream};
/// use lazytool_runtime::Registry;
///
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let memory = McpSource::new("memory", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-memory"]));
/// let catalog = McpCatalog::start(Registry::builder, [memory]).await?;
/// McpServer::live(catalog.live()).serve_stdio().await?;
/// catalog.shutdown().await;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpCatalog {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    base: Base,
    /// Each server's place: a removed one's stays empty, so that its tools' names stay its
    /// own should it come back.
    pub(super) sources: Slots,
    live: LiveRegistry,
    state: Mutex<Published>,
    rebuilding: tokio::sync::Mutex<()>,
    /// The sources' prompts and resources.
    pub(super) offers: Offers,
    /// Cancelled by [`McpCatalog::shutdown`]: no source is listed (nor started) again after.
    ended: CancellationToken,
}

#[derive(Default)]
struct Published {
    /// Each served source's report, with its place.
    reports: Vec<(usize, SourceReport)>,
    fingerprint: Vec<(String, String, Value)>,
    /// Each exposed name ever published, with the source and upstream tool it runs.
    owners: HashMap<String, (usize, String)>,
}

/// What one source contributed to the catalog.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SourceReport {
    /// The source's name.
    pub name: String,
    /// The exposed names of its tools in the catalog, or why it has none.
    pub tools: Result<Vec<String>, String>,
    /// Its tools left out because another tool had the name already.
    pub collisions: Vec<String>,
    /// Its tools left out because they cannot be served (a name, a schema that does not
    /// compile, a definition over [`McpSource::max_definition_bytes`]), and why.
    pub left_out: Vec<ToolNote>,
    /// Its tools whose text was cleaned, and what was removed.
    pub cleaned: Vec<ToolNote>,
    /// The protocol version spoken with it ([`McpSource::protocol_version`]).
    pub protocol: Option<String>,
    /// How it stands with its lock ([`McpSource::lock_state`]).
    pub lock: LockState,
    /// Its tools that differ from the lock, and what its pin decided
    /// ([`McpSource::pin_decisions`]).
    pub pinning: Vec<ToolNote>,
    /// Whether it runs now (a locked server waits for its first call).
    pub running: bool,
}

impl McpCatalog {
    /// Lists every source concurrently and publishes the first registry: `base()` (a
    /// [`RegistryBuilder`], say `Registry::builder` for every `#[tool]` linked in) with the
    /// sources' tools added. Errors only when the base itself does not build.
    pub async fn start(
        base: impl Fn() -> RegistryBuilder + Send + Sync + 'static,
        sources: impl IntoIterator<Item = McpSource>,
    ) -> Result<McpCatalog, RegistryError> {
        let base: Base = Box::new(base);
        let live = LiveRegistry::new(base().build()?);
        let sources = Slots::new(sources.into_iter().map(cached).collect());
        let inner = Arc::new(Inner {
            base,
            offers: Offers::new(sources.clone()),
            sources,
            live,
            state: Mutex::default(),
            rebuilding: tokio::sync::Mutex::new(()),
            ended: CancellationToken::new(),
        });
        inner.rebuild().await?;
        inner.offers.refresh(&inner.listed()).await;
        for index in 0..inner.sources.len() {
            inner.follow(index);
        }
        Ok(McpCatalog { inner })
    }

    /// The catalog, for [`McpServer::live`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html#method.live) and in-process sessions.
    pub fn live(&self) -> &LiveRegistry {
        &self.inner.live
    }

    /// The registry now.
    pub fn registry(&self) -> Registry {
        self.inner.live.current()
    }

    /// What each source contributed, in the order given to [`start`](McpCatalog::start)
    /// (sources added by [`reconcile`](McpCatalog::reconcile) after them).
    pub fn reports(&self) -> Vec<SourceReport> {
        let reports = self.inner.state().reports.clone();
        (reports.into_iter())
            .map(|(index, mut report)| {
                if let Some(source) = self.inner.sources.get(index) {
                    report.pinning.extend(source.source().offer_pin_decisions());
                }
                report
            })
            .collect()
    }

    /// The calls each limited source's limits refused so far
    /// ([`McpSource::limits_hit`]), by source name, in the order given to
    /// [`start`](McpCatalog::start); sources without limits are left out.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{CallQuota, McpCatalog, McpSource, Rate, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let quota = CallQuota::default().rate(Rate::new(1.0, 1)?);
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"])).call_quota(quota);
    /// let catalog = McpCatalog::start(Registry::builder, [time]).await?;
    /// assert_eq!(catalog.limits_hit()[0].1.rate, 0);
    /// # Ok(()) }
    /// ```
    pub fn limits_hit(&self) -> Vec<(String, LimitsHit)> {
        (self.inner.sources.all().into_iter())
            .map(|(_, cached)| Arc::clone(cached.source()))
            .filter(|source| !source.quota().is_unlimited())
            .map(|source| (source.name.to_string(), source.limits_hit()))
            .collect()
    }

    /// Why the tool served as `name` is withheld, if a source withheld it: see
    /// [`McpSource::withheld_tool`]. What a gateway gives
    /// [`McpServer::withheld_tools`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html#method.withheld_tools).
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{McpCatalog, McpSource, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// let catalog = McpCatalog::start(Registry::builder, [time]).await?;
    /// assert_eq!(catalog.withheld_tool("time__get_current_time"), None);
    /// # Ok(()) }
    /// ```
    pub fn withheld_tool(&self, name: &str) -> Option<String> {
        (self.inner.sources.all().iter())
            .find_map(|(_, source)| source.source().withheld_tool(name))
    }

    /// How each source's server stands now, by name, in the order of
    /// [`reports`](McpCatalog::reports).
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{McpCatalog, McpSource, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// let catalog = McpCatalog::start(Registry::builder, [time]).await?;
    /// for (server, state) in catalog.server_states() {
    ///     println!("{server}: {state}");
    /// }
    /// # Ok(()) }
    /// ```
    pub fn server_states(&self) -> Vec<(String, crate::ServerState)> {
        (self.inner.sources.all().into_iter())
            .map(|(_, source)| (source.source().name.to_string(), source.source().state()))
            .collect()
    }

    /// Each source's tools whose definitions differ from its lock, by source name (sources
    /// without any left out): see [`McpSource::changed_definitions`].
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{Lock, McpCatalog, McpSource, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let lock = Lock::load("lazytool.lock")?;
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"])).lock(&lock);
    /// let catalog = McpCatalog::start(Registry::builder, [time]).await?;
    /// for (server, changes) in catalog.changed_definitions() {
    ///     println!("{server}: {} tools differ from the lock", changes.len());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn changed_definitions(&self) -> Vec<(String, Vec<crate::ChangedDefinition>)> {
        (self.inner.sources.all().into_iter())
            .map(|(_, source)| {
                let source = source.source();
                (source.name.to_string(), source.changed_definitions())
            })
            .filter(|(_, changes)| !changes.is_empty())
            .collect()
    }

    /// Lists every source again now and publishes the registry if it changed.
    pub async fn refresh(&self) -> Result<(), RegistryError> {
        for (_, source) in self.inner.sources.all() {
            source.invalidate();
        }
        self.inner.rebuild().await?;
        self.inner.offers.refresh(&self.inner.listed()).await;
        Ok(())
    }

    pub(crate) fn offers(&self) -> &Offers {
        &self.inner.offers
    }

    /// Pins every source's definitions now (starting the servers that do not run): a lock
    /// to [`write`](Lock::write), which later catalogs take with [`McpSource::lock`]. Every
    /// failure is returned, and then no lock.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{Lock, McpCatalog, McpSource, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let time = || McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// let lock = match Lock::load("lazytool.lock") {
    ///     Ok(lock) => lock,
    ///     Err(_) => {
    ///         let catalog = McpCatalog::start(Registry::builder, [time()]).await?;
    ///         let lock = catalog.pin_now().await.map_err(|errors| errors[0].to_string())?;
    ///         catalog.shutdown().await;
    ///         lock.write("lazytool.lock")?;
    ///         lock
    ///     }
    /// };
    /// // Listed from the lock; `time` starts on its first call.
    /// let catalog = McpCatalog::start(Registry::builder, [time().lock(&lock)]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn pin_now(&self) -> Result<Lock, Vec<SourceError>> {
        let mut pinning = tokio::task::JoinSet::new();
        for (_, source) in self.inner.sources.all() {
            pinning.spawn(async move {
                let pinned = source.source().pin_now().await;
                (source.source().name().to_owned(), pinned)
            });
        }
        let mut lock = Lock::new();
        let mut failures = Vec::new();
        while let Some(joined) = pinning.join_next().await {
            match joined {
                Ok((name, Ok(entry))) => {
                    lock.set(name, entry);
                }
                Ok((_, Err(error))) => failures.push(error),
                Err(error) => failures.push(SourceError::new("pin_now", error.to_string())),
            }
        }
        if failures.is_empty() {
            Ok(lock)
        } else {
            Err(failures)
        }
    }

    /// Stops every source at once: each child process, and whatever it started, is asked to
    /// exit and killed if it has not within about a second. The catalog lists no source again
    /// after (a server that failed to start is not retried).
    pub async fn shutdown(&self) {
        self.inner.ended.cancel();
        let mut stopping = tokio::task::JoinSet::new();
        for (_, source) in self.inner.sources.all() {
            stopping.spawn(async move { source.source().shutdown().await });
        }
        while stopping.join_next().await.is_some() {}
    }
}

impl Inner {
    /// The base with every source asked why a name of its is missing.
    fn builder(&self) -> RegistryBuilder {
        (self.sources.all().into_iter()).fold((self.base)(), |builder, (_, source)| {
            builder.explain_missing(Arc::clone(source.source()) as Arc<dyn ToolSource>)
        })
    }

    /// Follows the source now at `index` until it leaves its place or the catalog ends.
    pub(super) fn follow(self: &Arc<Self>, index: usize) {
        if let Some(source) = self.sources.get(index) {
            let retired = self.sources.retired(index);
            let following = follow(Arc::downgrade(self), index, source, retired);
            // Dropped at shutdown, with a listing (and a start) it has in flight.
            let ended = self.ended.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = ended.cancelled() => {}
                    () = following => {}
                }
            });
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Published> {
        // Each field is replaced by one assignment: consistent after a panic elsewhere.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The sources whose tools were listed last time: the ones whose prompts and resources
    /// can be fetched.
    pub(super) fn listed(&self) -> Vec<usize> {
        let state = self.state();
        (state.reports.iter())
            .filter(|(_, report)| report.tools.is_ok())
            .map(|(index, _)| *index)
            .collect()
    }

    /// Whether the source at `index` has no tools in the catalog.
    fn failed(&self, index: usize) -> bool {
        (self.state().reports.iter()).any(|(at, report)| *at == index && report.tools.is_err())
    }

    pub(super) async fn rebuild(&self) -> Result<(), RegistryError> {
        self.rebuild_publishing(false).await
    }

    /// Lists every source and publishes the registry if its tools changed, or always with
    /// `always` (sources were replaced: tools alike run other sources).
    pub(super) async fn rebuild_publishing(&self, always: bool) -> Result<(), RegistryError> {
        let _one_at_a_time = self.rebuilding.lock().await;
        let sources = self.sources.all();
        let mut listings = tokio::task::JoinSet::new();
        for (index, source) in &sources {
            let (index, source) = (*index, Arc::clone(source));
            listings.spawn(async move {
                let listed = match source.tools().await {
                    Ok(tools) => Ok(tools),
                    Err(error) => source.last_good().ok_or_else(|| error.to_string()),
                };
                (index, listed)
            });
        }
        let mut listed: HashMap<usize, Result<Arc<[DynamicTool]>, String>> = HashMap::new();
        while let Some(joined) = listings.join_next().await {
            if let Ok((index, tools)) = joined {
                listed.insert(index, tools);
            }
        }
        let base = (self.base)().build()?;
        let mut taken: HashSet<String> = base.tools().map(|tool| tool.name().to_owned()).collect();
        let mut owners = self.state().owners.clone();
        let mut tools = Vec::new();
        let mut reports = Vec::new();
        for (index, source) in &sources {
            let index = *index;
            let name = source.source().name().to_owned();
            let listed = (listed.remove(&index))
                .unwrap_or_else(|| Err("the listing task panicked".to_owned()));
            let record = source.source().listed().clone();
            let origin: HashMap<&str, &str> = (record.origins.iter())
                .map(|(exposed, upstream)| (exposed.as_str(), upstream.as_str()))
                .collect();
            let mut collisions = Vec::new();
            let names = listed.map(|listed| {
                let mut names = Vec::new();
                for tool in listed.iter() {
                    let exposed = tool.name();
                    let owner = (index, origin.get(exposed).copied().unwrap_or(exposed).to_owned());
                    let owned_by_other = owners.get(exposed).is_some_and(|first| *first != owner);
                    if !owned_by_other && taken.insert(exposed.to_owned()) {
                        owners.insert(exposed.to_owned(), owner);
                        names.push(exposed.to_owned());
                        tools.push(tool.clone());
                    } else {
                        tracing::warn!(target: TARGET, source = %name, tool = exposed, "an upstream tool's name is taken: left out");
                        collisions.push(exposed.to_owned());
                    }
                }
                names
            });
            if let Err(error) = &names {
                tracing::warn!(target: TARGET, source = %name, %error, "an MCP server has no tools in the catalog");
            }
            reports.push((
                index,
                SourceReport {
                    name,
                    tools: names,
                    collisions,
                    left_out: record.left_out,
                    cleaned: record.cleaned,
                    protocol: source.source().protocol_version(),
                    lock: source.source().lock_state(),
                    pinning: record.pinning,
                    running: source.source().is_running(),
                },
            ));
        }
        let registry = match self.builder().tools(tools.iter().cloned()).build() {
            Ok(registry) => registry,
            // Each tool was checked alone by its source; whatever still fails together is
            // left out rather than taking every server's tools with it.
            Err(error) => {
                tracing::warn!(target: TARGET, %error, "the catalog did not build: leaving out the tools that fail");
                let fits = |tool: &DynamicTool| (self.base)().tools([tool.clone()]).build().is_ok();
                let (kept, failed): (Vec<DynamicTool>, Vec<DynamicTool>) =
                    tools.into_iter().partition(fits);
                for tool in &failed {
                    for (_, report) in reports.iter_mut() {
                        if let Ok(names) = &mut report.tools
                            && let Some(at) = names.iter().position(|name| name == tool.name())
                        {
                            names.remove(at);
                            report.left_out.push(ToolNote {
                                tool: tool.name().to_owned(),
                                note: "it does not build beside the program's own tools".to_owned(),
                            });
                        }
                    }
                }
                self.builder().tools(kept).build()?
            }
        };
        let fingerprint: Vec<(String, String, Value)> = registry
            .tools()
            .map(|tool| {
                let schema = tool.input_schema().clone();
                (
                    tool.name().to_owned(),
                    tool.description().to_owned(),
                    schema,
                )
            })
            .collect();
        let changed = {
            let mut state = self.state();
            state.reports = reports;
            state.owners = owners;
            let changed = always || state.fingerprint != fingerprint;
            state.fingerprint = fingerprint;
            changed
        };
        if changed {
            tracing::info!(target: TARGET, tool_count = registry.len(), "publishing the changed catalog");
            self.live.publish(registry);
        }
        Ok(())
    }
}

/// Lists the source at `index` again on each of its changes, and from time to time while it
/// has no catalog; ends with the catalog, or when the source leaves its place.
async fn follow(inner: Weak<Inner>, index: usize, source: Arc<Cached>, retired: CancellationToken) {
    let mut changes = source.source().tools_changed();
    let mut retry = RETRY_FIRST;
    loop {
        let failed = match inner.upgrade() {
            Some(inner) => inner.failed(index),
            None => return,
        };
        retry = if failed { retry } else { RETRY_FIRST };
        // A server that failed to start is listed again when it may restart: the time its
        // missing tools' errors announce.
        let wait = (source.source().next_start_in()).map_or(retry, |wait| wait.max(RETRY_FLOOR));
        tokio::select! {
            () = retired.cancelled() => return,
            changed = changes.changed() => if changed.is_err() { return },
            () = tokio::time::sleep(wait), if failed => retry = (retry * 2).min(RETRY_MAX),
        }
        let Some(inner) = inner.upgrade() else { return };
        if retired.is_cancelled() {
            return;
        }
        source.invalidate();
        if let Err(error) = inner.rebuild().await {
            tracing::warn!(target: TARGET, %error, "the catalog did not build");
        }
        if inner.listed().contains(&index) {
            inner.offers.refresh(&[index]).await;
        }
    }
}

/// A source as the catalog holds it: listed again only when told to.
pub(super) fn cached(source: McpSource) -> Arc<Cached> {
    Arc::new(CachedSource::new(Arc::new(source), Duration::MAX))
}
