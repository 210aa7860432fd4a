//! An MCP server as a tool source: [`McpSource`] and its options (what it reports is
//! `source_report.rs`).

use lazytool_runtime::source::SourceError;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

use crate::connection::health::Health;
use crate::connection::link::{Backoff, Link};
use crate::connection::upstream::Upstream;
use crate::lock::file::{Lock, LockState, ServerLock};
use crate::lock::pins::Pins;
use crate::lock::verify::Pin;
use crate::offers::admission::ToolNote;
use crate::offers::selection::ToolSelection;
use crate::requests::elicitor::Elicitor;
use lazytool_mcp_core::Relay;
use lazytool_mcp_core::limit::CallQuota;
use lazytool_mcp_core::limit::limiter::Limiter;

/// The default of [`McpSource::start_timeout`]: 30 seconds.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`McpSource::call_timeout`]: 5 minutes.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(300);
/// The default of [`McpSource::idle_timeout`]: 10 minutes.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// One MCP server as a [`ToolSource`](lazytool_runtime::source::ToolSource): its tools become lazy
/// [`DynamicTool`](lazytool_runtime::DynamicTool)s named `SERVER__TOOL` that validate
/// their arguments against the server's input schema, then forward the call.
///
/// - Listing follows `nextCursor` to the last page; each tool keeps its description, input
///   and output schema and annotations. Names outside `^[a-zA-Z0-9_-]{1,64}$` are mapped
///   (invalid characters replaced, long names cut and ended by a short stable hash); a call
///   reaches the upstream under its own name.
/// - A call returns the server's content blocks as
///   [`McpContent`](crate::McpContent) (served over MCP as those blocks, with
///   `structuredContent`), and an upstream `isError` as an error result with its text. A
///   transport failure, a timeout ([`call_timeout`](McpSource::call_timeout)) or a server
///   that is down are error results too, never a failure of the caller.
/// - Cancelling the call's [`ToolContext`](lazytool_runtime::ToolContext) (or its timeout)
///   sends the server `notifications/cancelled`.
/// - The server is started on first use, within
///   [`start_timeout`](McpSource::start_timeout) (which bounds each listing too); a server that exited or failed to start is
///   started again on a later use, after a wait that doubles with each failure
///   ([`restart_backoff`](McpSource::restart_backoff)). Until then, calls fail at once.
/// - `notifications/tools/list_changed` from the server (and a restart) is reported on
///   [`tools_changed`](McpSource::tools_changed); [`McpCatalog`](crate::McpCatalog) lists it
///   again.
/// - A child process gets its own `env` and only the parent's variables that
///   [`InheritEnv`](crate::InheritEnv) allows (by default the few every program needs, as
///   the official SDKs do), runs in its own process group, has its stderr logged (`tracing`
///   target `lazytool::upstream`; each line cut at 4 KiB, at most 50 lines a second), and is
///   stopped with its whole process group when the source is dropped or
///   [`shutdown`](McpSource::shutdown).
/// - What a model reads of its tools is cleaned: descriptions, titles and the texts and
///   values of their schemas lose Unicode tag characters, bidi controls, zero-width and
///   other invisible characters, control characters (newline and tab kept) and terminal
///   escape sequences, and descriptions are cut at
///   [`max_description_chars`](McpSource::max_description_chars); each tool's removals are
///   logged and reported ([`cleaned`](McpSource::cleaned)).
/// - No error, log line or report about the server shows the values of its `env` or
///   `headers`, or the user information or query values of a URL.
/// - An upstream tool that cannot be served (an invalid name, a schema that does not
///   compile, a definition over [`max_definition_bytes`](McpSource::max_definition_bytes))
///   is left out and reported ([`left_out`](McpSource::left_out)); the server's other tools
///   are served.
/// - With a [`Lock`] entry made for its command or URL ([`lock`](McpSource::lock)), the
///   source lists its tools from the entry without starting the server, starts it on the
///   first call and stops it after [`idle_timeout`](McpSource::idle_timeout) without calls.
///   Whenever it starts or announces `list_changed`, its live definitions are compared with
///   the entry and its [`Pin`] decides ([`pin_decisions`](McpSource::pin_decisions)); a
///   call is checked against the definitions of the run it goes to, so a changed tool never
///   runs under the definition a client discovered before.
///
/// ```rust,no_run
/// use lazytool_mcp_client::{McpSource, ToolSelection, Upstream};
/// use lazytool_runtime::source::ToolSource;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let git = McpSource::new("git", Upstream::command("uvx", ["mcp-server-git"]))
///     .selection(ToolSelection::new().deny(["git_reset"])?.eager(["git_status"])?);
/// let tools = git.list_tools(Default::default()).await?;
/// assert!(tools.iter().any(|tool| tool.name() == "git__git_status"));
/// # Ok(()) }
/// ```
// Its methods by concept: listing in `offers/listing.rs`, prompts and resources in
// `offers/offered.rs`, what it reports in `source_report.rs`.
pub struct McpSource {
    pub(crate) name: Arc<str>,
    pub(crate) prefix: String,
    pub(crate) upstream: Upstream,
    pub(crate) selection: ToolSelection,
    pub(crate) start_timeout: Duration,
    pub(crate) call_timeout: Duration,
    pub(crate) backoff: Backoff,
    pub(crate) max_description_chars: usize,
    pub(crate) max_definition_bytes: usize,
    pub(crate) relay: Option<Relay>,
    pub(crate) elicitor: Option<Arc<dyn Elicitor>>,
    pub(crate) entry: Option<ServerLock>,
    pub(crate) lock_state: LockState,
    pub(crate) pin: Pin,
    pub(crate) approve: Option<String>,
    pub(crate) idle_timeout: Duration,
    pub(crate) first_use: bool,
    /// `None` unless [`McpSource::call_quota`] limits something.
    pub(crate) limiter: Option<Arc<Limiter>>,
    /// Set by [`McpSource::shared_store`].
    #[cfg(feature = "redis")]
    pub(crate) store: Option<lazytool_mcp_core::shared::SharedStore>,
    pub(crate) link: std::sync::OnceLock<Arc<Link>>,
    pub(crate) pins: std::sync::OnceLock<Arc<Pins>>,
    pub(crate) listed: std::sync::Mutex<Listed>,
    /// Each served prompt name (`SERVER__PROMPT`) and the upstream's name of it.
    pub(crate) prompt_names: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

/// What the last listing made of the upstream's tools.
#[derive(Clone, Debug, Default)]
pub(crate) struct Listed {
    /// Each offered tool's exposed name and upstream name.
    pub(crate) origins: Vec<(String, String)>,
    pub(crate) left_out: Vec<ToolNote>,
    pub(crate) cleaned: Vec<ToolNote>,
    /// What the pin decided for each tool that differs from the lock.
    pub(crate) pinning: Vec<ToolNote>,
}

impl McpSource {
    /// The server `name` (also the prefix of its tools' names) at `upstream`.
    pub fn new(name: impl Into<Arc<str>>, upstream: Upstream) -> Self {
        let name = name.into();
        McpSource {
            prefix: name.to_string(),
            name,
            upstream,
            selection: ToolSelection::new(),
            start_timeout: DEFAULT_START_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            backoff: Backoff {
                first: Duration::from_secs(1),
                max: Duration::from_secs(60),
            },
            max_description_chars: crate::offers::sanitize::DEFAULT_MAX_DESCRIPTION_CHARS,
            max_definition_bytes: lazytool_runtime::DEFAULT_MAX_DEFINITION_BYTES,
            relay: None,
            elicitor: None,
            entry: None,
            lock_state: LockState::Unlocked,
            pin: Pin::Block,
            approve: None,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            first_use: true,
            limiter: None,
            #[cfg(feature = "redis")]
            store: None,
            link: std::sync::OnceLock::new(),
            pins: std::sync::OnceLock::new(),
            listed: std::sync::Mutex::default(),
            prompt_names: std::sync::Mutex::default(),
        }
    }

    /// Names the tools `PREFIX__TOOL` instead of `NAME__TOOL`; an empty prefix keeps the
    /// upstream's names. In names mode each prefix costs about two tokens per name in the
    /// discovery list, unless the session lists them with
    /// [`DiscoveryListing::GroupedNames`](lazytool_runtime::DiscoveryListing::GroupedNames)
    /// (the gateway's default), which writes it once per server.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Which tools are offered and which are eager (default: all offered, all lazy).
    pub fn selection(mut self, selection: ToolSelection) -> Self {
        self.selection = selection;
        self
    }

    /// How long starting the server (spawn and handshake) may take. Default:
    /// [`DEFAULT_START_TIMEOUT`].
    pub fn start_timeout(mut self, timeout: Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// How long a call may take before it is cancelled upstream and answered with an error.
    /// Default: [`DEFAULT_CALL_TIMEOUT`].
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The wait before the first restart of a failed server, doubled on each further
    /// failure up to `max`. Default: 1 s, at most 60 s.
    pub fn restart_backoff(mut self, first: Duration, max: Duration) -> Self {
        self.backoff = Backoff { first, max };
        self
    }

    /// Announces to the server what the program's MCP clients can answer (sampling,
    /// elicitation), as `relay` records it; see [`Relay`]. Whatever the relay, a
    /// `sampling/createMessage` or `elicitation/create` the server sends during a call is
    /// passed on to the client of that call when that client announced the capability, and
    /// refused with a JSON-RPC error that says why otherwise; its `notifications/progress`
    /// for the call reach that client under the client's own progress token when the client
    /// asked for progress. A 2026-07-28 server's `input_required` answer is treated the
    /// same way: its requests are passed on, and the call sent again with the answers.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Relay, Upstream};
    ///
    /// let relay = Relay::new("my-gateway");
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["@modelcontextprotocol/server-everything"]))
    ///     .relay(relay.clone());
    /// // and `McpServer::relay(relay)` on the server its tools are served by.
    /// # drop(everything);
    /// ```
    pub fn relay(mut self, relay: Relay) -> Self {
        self.relay = Some(relay);
        self
    }

    /// Answers the server's `elicitation/create` requests that no MCP client can be asked
    /// (see [`Elicitor`]), and announces `elicitation` to the server. Without one, such a
    /// request is refused with a JSON-RPC error that says why.
    ///
    /// ```
    /// use lazytool_mcp_client::rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
    /// use lazytool_mcp_client::{Elicited, Elicitor, McpSource, Upstream};
    ///
    /// struct Decline;
    ///
    /// impl Elicitor for Decline {
    ///     fn elicit<'a>(&'a self, _server: &'a str, _request: ElicitRequestParams) -> Elicited<'a> {
    ///         Box::pin(async { Ok(ElicitResult::new(ElicitationAction::Decline)) })
    ///     }
    /// }
    ///
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["@modelcontextprotocol/server-everything"]))
    ///     .elicitor(Decline);
    /// # drop(everything);
    /// ```
    pub fn elicitor(mut self, elicitor: impl Elicitor + 'static) -> Self {
        self.elicitor = Some(Arc::new(elicitor));
        self
    }

    /// Holds the server to its entry in `lock`, when the entry was made for this command or
    /// URL: its tools are listed from the entry until the server is started by a call, and
    /// its live definitions are compared with the entry ([`pin`](McpSource::pin)). Without
    /// such an entry the server is started at once as without a lock
    /// ([`lock_state`](McpSource::lock_state) says which).
    ///
    /// ```
    /// use lazytool_mcp_client::{Lock, LockState, McpSource, ServerLock, Upstream};
    ///
    /// let upstream = Upstream::command("uvx", ["mcp-server-time"]);
    /// let mut lock = Lock::new();
    /// lock.set("time", ServerLock::new(&upstream));
    /// let time = McpSource::new("time", upstream).lock(&lock);
    /// assert_eq!(time.lock_state(), LockState::Locked);
    /// ```
    pub fn lock(mut self, lock: &Lock) -> Self {
        match lock.server(&self.name) {
            Some(entry) if entry.starts(&self.upstream) => {
                self.entry = Some(entry.clone());
                self.lock_state = LockState::Locked;
            }
            Some(_) => {
                tracing::warn!(target: "lazytool::lock", server = %self.name, "the lock entry was made for another command or URL: ignored, the server starts at once");
                self.entry = None;
                self.lock_state = LockState::Mismatch;
            }
            None => {
                self.entry = None;
                self.lock_state = LockState::NotInLock;
            }
        }
        self
    }

    /// What a definition that differs from the lock becomes. Default: [`Pin::Block`].
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Pin, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"])).pin(Pin::Warn);
    /// ```
    pub fn pin(mut self, pin: Pin) -> Self {
        self.pin = pin;
        self
    }

    /// The command that accepts a server's changed definitions, named in the error of a
    /// blocked call. Default: `lock --update NAME`.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]))
    ///     .approval_command("lazytool-gateway --config mcp.json lock --update time");
    /// ```
    pub fn approval_command(mut self, command: impl Into<String>) -> Self {
        self.approve = Some(command.into());
        self
    }

    /// How long a server started on first use stays up without calls before it is stopped
    /// (the next call starts it again); zero keeps it up. Applies to a locked source
    /// ([`LockState::Locked`]). Default: [`DEFAULT_IDLE_TIMEOUT`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]))
    ///     .idle_timeout(Duration::from_secs(60));
    /// ```
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Limits the calls to this server, whoever makes them: a rate (token bucket) and calls
    /// in flight. A call over a limit is refused before it is sent: as a JSON-RPC error
    /// saying which limit and when to retry ([`LimitExceeded`](crate::LimitExceeded)) when
    /// called through an [`McpServer`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html), else as the tool's error. Default:
    /// no limit.
    ///
    /// ```
    /// use std::num::NonZeroU32;
    /// use lazytool_mcp_client::{CallQuota, McpSource, Rate, Upstream};
    ///
    /// let quota = CallQuota::default()
    ///     .rate(Rate::new(10.0, 20).unwrap())
    ///     .max_in_flight(NonZeroU32::new(4).unwrap());
    /// let github = McpSource::new("github", Upstream::url("https://api.githubcopilot.com/mcp/"))
    ///     .call_quota(quota);
    /// assert_eq!(github.quota(), quota);
    /// assert_eq!(github.limits_hit(), lazytool_mcp_client::LimitsHit::default());
    /// ```
    pub fn call_quota(mut self, quota: CallQuota) -> Self {
        self.limiter = (!quota.is_unlimited()).then(|| Arc::new(Limiter::new(quota)));
        self
    }

    /// Decides [`call_quota`](McpSource::call_quota)'s limits in `store`, which every
    /// replica shares: the server's calls are counted together, whichever replica makes
    /// them, under the key `bucket:server:NAME` and `leases:server:NAME` (`NAME` the source's
    /// name). A call's place in flight is leased for the source's
    /// [`call_timeout`](McpSource::call_timeout) plus
    /// [`LEASE_MARGIN`](lazytool_mcp_core::LEASE_MARGIN). While the store is down, its
    /// [`FailurePolicy`](crate::FailurePolicy) decides: this replica's own limits, or the
    /// call refused as the tool's error. Without a quota, the store is never asked.
    ///
    /// ```
    /// use lazytool_mcp_client::{CallQuota, McpSource, Rate, SharedStore, Upstream};
    ///
    /// let store = SharedStore::new("redis://127.0.0.1:6379").unwrap();
    /// let github = McpSource::new("github", Upstream::url("https://api.githubcopilot.com/mcp/"))
    ///     .call_quota(CallQuota::default().rate(Rate::new(10.0, 20).unwrap()))
    ///     .shared_store(store);
    /// # drop(github);
    /// ```
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn shared_store(mut self, store: lazytool_mcp_core::shared::SharedStore) -> Self {
        self.store = Some(store);
        self
    }

    /// Whether a locked source waits for the first call to start its server (the default).
    /// `false` starts it on the first listing and compares its definitions with the lock
    /// then (what `--check` does).
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]))
    ///     .start_on_first_use(false);
    /// ```
    pub fn start_on_first_use(mut self, lazily: bool) -> Self {
        self.first_use = lazily;
        self
    }

    /// Starts the server (if it does not run) and returns a lock entry of its definitions
    /// now (tools, prompts, resources and resource templates): what `lazytool-gateway lock`
    /// writes.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{Lock, McpSource, Upstream};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// let mut lock = Lock::new();
    /// lock.set("time", time.pin_now().await?);
    /// lock.write("lazytool.lock")?;
    /// # Ok(()) }
    /// ```
    pub async fn pin_now(&self) -> Result<ServerLock, SourceError> {
        let link = Arc::clone(self.link());
        let failed = |message: String| SourceError::new(Arc::clone(&self.name), message);
        let peer = link.peer().await.map_err(failed)?;
        let listed = self.list_live(&link, &peer).await.map_err(failed)?;
        let listed = self.clean(listed, &mut Listed::default());
        let mut entry = ServerLock::new(&self.upstream);
        let info = peer.peer_info();
        entry.protocol_version = info.as_ref().map(|info| info.protocol_version.to_string());
        entry.server_info = info.and_then(|info| serde_json::to_value(&info.server_info).ok());
        entry.pin_tools(&listed);
        self.pin_offers(&mut entry).await?;
        Ok(entry)
    }

    /// The longest description (or title) of a tool or parameter, in characters; a longer
    /// one is cut, ending with a marker that says how much was cut. Default: 2,048.
    pub fn max_description_chars(mut self, max: usize) -> Self {
        self.max_description_chars = max;
        self
    }

    /// The largest definition one of its tools may have as a model reads it, in bytes: its
    /// exposed name, description, input schema, and output schema, title and annotations
    /// when it has them, as compact JSON after cleaning (exactly what
    /// [`DynamicTool::definition_bytes`](lazytool_runtime::DynamicTool::definition_bytes)
    /// measures). A larger tool is left out, logged and reported
    /// ([`left_out`](McpSource::left_out)) with its size and the bound; the server's other
    /// tools are served. Default:
    /// [`DEFAULT_MAX_DEFINITION_BYTES`](lazytool_runtime::DEFAULT_MAX_DEFINITION_BYTES)
    /// (64 KiB, about 16,000 tokens).
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let git = McpSource::new("git", Upstream::command("uvx", ["mcp-server-git"]))
    ///     .max_definition_bytes(16 * 1024);
    /// # drop(git);
    /// ```
    pub fn max_definition_bytes(mut self, bytes: usize) -> Self {
        self.max_definition_bytes = bytes;
        self
    }

    pub(crate) fn listed(&self) -> std::sync::MutexGuard<'_, Listed> {
        self.listed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stops the server: a child process is asked to exit, then killed.
    pub async fn shutdown(&self) {
        if let Some(link) = self.link.get() {
            link.shutdown().await;
        }
    }

    /// Stops the server once no call is under way (waiting at most its call timeout and a
    /// second more): what a server removed from its catalog gets.
    pub(crate) async fn shutdown_after_calls(&self) {
        if let Some(link) = self.link.get() {
            let deadline = Instant::now() + self.call_timeout + Duration::from_secs(1);
            while link.has_calls() && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            link.shutdown().await;
        }
    }

    pub(crate) fn link(&self) -> &Arc<Link> {
        self.link.get_or_init(|| {
            Arc::new(Link::new(
                Arc::clone(&self.name),
                self.upstream.clone(),
                self.start_timeout,
                self.backoff,
                self.relay.clone(),
                self.elicitor.clone(),
                self.stops_when_idle().then_some(self.idle_timeout),
            ))
        })
    }

    /// Whether the tools are listed from the lock until a call starts the server.
    pub(crate) fn lazy(&self) -> bool {
        self.first_use && self.lock_state == LockState::Locked
    }

    pub(crate) fn stops_when_idle(&self) -> bool {
        self.lazy() && !self.idle_timeout.is_zero()
    }

    pub(crate) fn pins(&self) -> &Arc<Pins> {
        self.pins.get_or_init(|| {
            Arc::new(Pins::new(
                Arc::clone(&self.name),
                self.entry.clone(),
                self.pin,
                (self.approve.clone()).unwrap_or_else(|| format!("lock --update {}", self.name)),
                self.max_description_chars,
                self.start_timeout,
            ))
        })
    }
}

impl McpSource {
    /// What a model is told of this server when it is down, `None` when it is up or waits
    /// for its first call with its tools listed from the lock.
    pub(crate) fn down(&self) -> Option<String> {
        let health = self
            .link
            .get()
            .map_or(Health::NotStarted, |link| link.health());
        match health {
            Health::NotStarted if self.lazy() => None,
            health => health.down(&self.name),
        }
    }

    /// How long until the next start may be attempted, after a failed one.
    pub(crate) fn next_start_in(&self) -> Option<Duration> {
        match self.link.get()?.health() {
            Health::Failed { retry_at, .. } => {
                Some(retry_at.saturating_duration_since(Instant::now()))
            }
            _ => None,
        }
    }

    /// Whether `name` is one of this server's names (`PREFIX__...`); with an empty prefix
    /// no name is known to be its own.
    pub(crate) fn owns_name(&self, name: &str) -> bool {
        !self.prefix.is_empty()
            && (name.strip_prefix(self.prefix.as_str())).is_some_and(|rest| rest.starts_with("__"))
    }
}

impl std::fmt::Debug for McpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSource")
            .field("name", &self.name)
            .field("prefix", &self.prefix)
            .field("upstream", &self.upstream)
            .field("pin", &self.pin)
            .field("idle_timeout", &self.idle_timeout)
            .finish_non_exhaustive()
    }
}
