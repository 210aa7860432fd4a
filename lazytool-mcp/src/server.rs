//! Serving a registry over MCP: [`McpServer`].

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use lazytool_runtime::source::LiveRegistry;
use lazytool_runtime::{Registry, SessionOptions, Tool};
use rmcp::model::{
    ErrorData, Implementation, JsonObject, PromptsCapability, RequestStateCodec, RequestStateError,
    ResourcesCapability, ServerCapabilities, ServerConfig,
};
use tokio::sync::watch;

use crate::Principal;
use crate::PromptProvider;
use crate::Relay;
use crate::ResourceProvider;
use crate::audit::AuditLog;
pub use crate::input::request_state::DEFAULT_REQUEST_STATE_TTL;
use crate::input::request_state::RequestStates;
use crate::session_share::SessionShare;

/// The default of [`McpServer::list_ttl`]: 5 minutes.
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// Whether a principal may use a `T` (a tool, or a prompt or resource by its name).
pub(crate) type PrincipalGate<T> = Arc<dyn Fn(&Principal, &T) -> bool + Send + Sync>;
pub(crate) type Gate = PrincipalGate<Tool>;
pub(crate) type OffersGate = PrincipalGate<str>;

/// The default of [`McpServer::page_size`]: 100 prompts, resources or templates a page.
///
/// ```
/// assert_eq!(lazytool_mcp::DEFAULT_PAGE_SIZE, 100);
/// ```
pub const DEFAULT_PAGE_SIZE: usize = 100;

pub use lazytool_mcp_core::DEFAULT_MAX_LINE_BYTES;

/// An MCP server for a [`Registry`]: one [`Session`](lazytool_runtime::Session) per
/// connection for clients of protocol versions with a handshake, a fixed call-through tool
/// list for the stateless 2026-07-28 protocol (see
/// [`McpConnection`](crate::McpConnection)); on stdio
/// ([`serve_stdio`](McpServer::serve_stdio)), any byte stream ([`serve`](McpServer::serve)) or
/// streamable HTTP ([`serve_http`](McpServer::serve_http), [`http`](McpServer::http)).
///
/// ```rust,no_run
/// use lazytool_mcp::McpServer;
/// use lazytool_runtime::{DiscoveryMode, Registry, SessionOptions};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// McpServer::new(Registry::from_inventory()?)
///     .server_info("shop", "1.0.0")
///     .options(SessionOptions::new().mode(DiscoveryMode::Search))
///     .serve_stdio()
///     .await?;
/// # Ok(()) }
/// ```
///
/// Cheap to clone; [`serve`](McpServer::serve) may run for many connections at once.
#[derive(Clone)]
#[must_use]
// Its methods by concept: serving stdio in `stdio/serve_lines.rs`, HTTP in
// `streamable_http/serve_http.rs`, one connection in `connection.rs`, what each principal may
// use in `principal_gates.rs`.
pub struct McpServer {
    catalog: watch::Receiver<Registry>,
    pub(crate) options: SessionOptions,
    pub(crate) gate: Option<Gate>,
    pub(crate) offers_gate: Option<OffersGate>,
    session_share: Option<Arc<dyn SessionShare>>,
    list_ttl: Duration,
    max_line_bytes: usize,
    name: String,
    version: String,
    instructions: Option<String>,
    prompts: Option<Arc<dyn PromptProvider>>,
    resources: Option<Arc<dyn ResourceProvider>>,
    page_size: usize,
    relay: Option<Relay>,
    withheld: Option<Withheld>,
    audit: Option<AuditLog>,
    request_state_key: Option<Arc<[u8]>>,
    request_state_ttl: Duration,
    /// Made on first use from the two above: its random key, when none was given, is this
    /// server's (and its clones') own.
    request_states: Arc<OnceLock<Result<Arc<RequestStates>, String>>>,
}

/// Why a tool that is not served is withheld, if it is (see
/// [`McpServer::withheld_tools`]).
type Withheld = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("registry", &*self.catalog.borrow())
            .field("options", &self.options)
            .field("gated_per_principal", &self.gate.is_some())
            .field("list_ttl", &self.list_ttl)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("name", &self.name)
            .field("version", &self.version)
            .field("prompts", &self.prompts.is_some())
            .field("resources", &self.resources.is_some())
            .field("page_size", &self.page_size)
            .field("audit", &self.audit)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server for `registry`, with default session options, a line limit of
    /// [`DEFAULT_MAX_LINE_BYTES`], and `lazytool` with this crate's version as the server
    /// name clients see.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::Registry;
    ///
    /// let registry = Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry);
    /// ```
    pub fn new(registry: Registry) -> Self {
        McpServer::live(&LiveRegistry::new(registry))
    }

    /// A server for a catalog that changes while it is served (an MCP gateway whose upstream
    /// announced `list_changed`): each request is answered from the current registry, each
    /// stateful connection moves its session over with
    /// [`Session::with_registry`](lazytool_runtime::Session::with_registry) (keeping the
    /// discovered tools that still exist) and is sent `notifications/tools/list_changed`.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::Registry;
    /// use lazytool_runtime::source::LiveRegistry;
    ///
    /// let live = LiveRegistry::new(Registry::builder().without_inventory().build().unwrap());
    /// let server = McpServer::live(&live);
    /// // Later, when the catalog changed: connections follow.
    /// live.publish(Registry::builder().without_inventory().build().unwrap());
    /// ```
    pub fn live(catalog: &LiveRegistry) -> Self {
        McpServer {
            catalog: catalog.watch(),
            options: SessionOptions::default(),
            gate: None,
            offers_gate: None,
            session_share: None,
            list_ttl: DEFAULT_LIST_TTL,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            name: "lazytool".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            prompts: None,
            resources: None,
            page_size: DEFAULT_PAGE_SIZE,
            relay: None,
            withheld: None,
            audit: None,
            request_state_key: None,
            request_state_ttl: DEFAULT_REQUEST_STATE_TTL,
            request_states: Arc::default(),
        }
    }

    /// The options of every connection's session (discovery mode and listing, gating).
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    /// use lazytool_runtime::SessionOptions;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// // Connections may use only the tools whose name starts with `get`.
    /// let options = SessionOptions::new().allow(|tool| tool.name().starts_with("get"));
    /// let server = McpServer::new(registry).options(options);
    /// ```
    pub fn options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }

    /// How long stateless clients (2026-07-28) may cache the tool list: its `ttlMs`
    /// (SEP-2549). The list is a function of the deployment and the principal, so it changes
    /// only when the server is redeployed with other tools. Default: [`DEFAULT_LIST_TTL`].
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    /// use std::time::Duration;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).list_ttl(Duration::from_secs(3600));
    /// ```
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// The longest message accepted, in bytes (newline excluded). A longer line is skipped
    /// without being buffered and answered with a JSON-RPC error (`-32600`).
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).max_line_bytes(64 * 1024);
    /// ```
    pub fn max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max;
        self
    }

    /// The name and version clients are told in `serverInfo`: the `initialize` result up to
    /// protocol 2025-11-25, and `server/discover` from 2026-07-28. Clients show and log them;
    /// nothing else depends on them. Without this call they are `lazytool` and the version of
    /// `lazytool-mcp`, so a server of your own should set its package's name and version, as
    /// below.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).server_info("shop", env!("CARGO_PKG_VERSION"));
    /// ```
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// Instructions for the client's model, sent with the handshake.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).instructions("Prices are in US dollars.");
    /// ```
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Offers `provider`'s prompts: the server announces the `prompts` capability and answers
    /// `prompts/list` (page by page, [`page_size`](McpServer::page_size)) and `prompts/get`,
    /// and tells clients of each change (`notifications/prompts/list_changed`; from protocol
    /// 2026-07-28 on, on their `subscriptions/listen` streams). Without one, prompt requests
    /// are `-32601` (method not found). [`allow_offers_for`](McpServer::allow_offers_for) restricts them per principal.
    ///
    /// ```
    /// use lazytool_mcp::rmcp::model::{ErrorData, GetPromptResult, JsonObject, Prompt, PromptMessage, Role};
    /// use lazytool_mcp::{McpServer, PromptFuture, PromptProvider};
    ///
    /// struct Greeting;
    ///
    /// impl PromptProvider for Greeting {
    ///     fn prompts(&self) -> Vec<Prompt> {
    ///         vec![Prompt::new("greet", Some("Greet the user."), None)]
    ///     }
    ///     fn get_prompt(&self, name: String, _arguments: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async move {
    ///             match name.as_str() {
    ///                 "greet" => Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, "Say hello.")])),
    ///                 _ => Err(ErrorData::invalid_params(format!("no prompt named `{name}`"), None)),
    ///             }
    ///         })
    ///     }
    /// }
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).prompts(Greeting);
    /// ```
    pub fn prompts(mut self, provider: impl PromptProvider) -> Self {
        self.prompts = Some(Arc::new(provider));
        self
    }

    /// Offers `provider`'s resources and resource templates: the server announces the
    /// `resources` capability and answers `resources/list` and `resources/templates/list`
    /// (page by page, [`page_size`](McpServer::page_size)) and `resources/read`, and tells
    /// clients of each change (`notifications/resources/list_changed`). Subscriptions to one
    /// resource's updates are not offered. Without a provider, resource requests are
    /// `-32601` (method not found). [`allow_offers_for`](McpServer::allow_offers_for) restricts them per principal.
    ///
    /// ```
    /// use lazytool_mcp::rmcp::model::{ErrorData, ReadResourceResult, Resource, ResourceContents};
    /// use lazytool_mcp::{McpServer, ReadFuture, ResourceProvider};
    ///
    /// struct Readme;
    ///
    /// impl ResourceProvider for Readme {
    ///     fn resources(&self) -> Vec<Resource> {
    ///         vec![Resource::new("docs://readme", "readme").with_mime_type("text/markdown")]
    ///     }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         Box::pin(async move {
    ///             match uri.as_str() {
    ///                 "docs://readme" => Ok(ReadResourceResult::new(vec![ResourceContents::text("# Shop", uri)])),
    ///                 _ => Err(ErrorData::resource_not_found(format!("no resource at {uri}"), None)),
    ///             }
    ///         })
    ///     }
    /// }
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).resources(Readme);
    /// ```
    pub fn resources(mut self, provider: impl ResourceProvider) -> Self {
        self.resources = Some(Arc::new(provider));
        self
    }

    /// How many prompts, resources or resource templates one list result holds at most; the
    /// result's `nextCursor` leads to the next page. Default: [`DEFAULT_PAGE_SIZE`]; 0 is
    /// taken as 1.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).page_size(20);
    /// ```
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// Answers a call to a tool that is not served with an `isError` result saying why,
    /// when `why` knows the name (a tool an upstream added that its lock has not approved,
    /// say: [`McpCatalog::withheld_tool`](https://docs.rs/lazytool-mcp-client/latest/lazytool_mcp_client/struct.McpCatalog.html#method.withheld_tool)); other unknown
    /// names stay `-32602`.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).withheld_tools(|name| {
    ///     (name == "beta__deploy").then(|| "`beta__deploy` waits for approval".to_owned())
    /// });
    /// ```
    pub fn withheld_tools(
        mut self,
        why: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.withheld = Some(Arc::new(why));
        self
    }

    /// The key that signs the `requestState` of input-required results (SEP-2322: a tool's
    /// questions to a 2026-07-28 client, asked with
    /// [`ToolContext::ask`](lazytool_runtime::ToolContext::ask)): at least 32 bytes, the same on
    /// every replica that may answer a client's next round. Without one, each server makes a
    /// random key of its own, which only it can open.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let key = std::env::var("REQUEST_STATE_KEY").unwrap_or_else(|_| "a key of at least 32 bytes, shared".repeat(2));
    /// let server = McpServer::new(registry).request_state_key(key.into_bytes())?;
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// assert!(McpServer::new(registry).request_state_key(b"short".to_vec()).is_err());
    /// # Ok::<(), lazytool_mcp::rmcp::model::RequestStateError>(())
    /// ```
    pub fn request_state_key(mut self, key: Vec<u8>) -> Result<Self, RequestStateError> {
        RequestStateCodec::try_new(key.clone())?;
        self.request_state_key = Some(key.into());
        self.request_states = Arc::default();
        Ok(self)
    }

    /// How long a client may take to answer an input-required result's questions (default
    /// [`DEFAULT_REQUEST_STATE_TTL`], 10 minutes): a `requestState` older than this is
    /// refused.
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).request_state_ttl(Duration::from_secs(120));
    /// ```
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.request_state_ttl = ttl;
        self.request_states = Arc::default();
        self
    }

    /// The sealing of request states: made on first use.
    pub(crate) fn request_states(&self) -> Result<Arc<RequestStates>, ErrorData> {
        let made = self.request_states.get_or_init(|| {
            let key = self.request_state_key.as_deref().map(<[u8]>::to_vec);
            RequestStates::new(key, self.request_state_ttl)
                .map(Arc::new)
                .map_err(|error| error.to_string())
        });
        made.clone().map_err(|error| {
            ErrorData::internal_error(format!("input requests are unavailable: {error}"), None)
        })
    }

    /// Writes one line per login (`initialize`), tool call and refusal to `log`: see
    /// [`AuditLog`].
    ///
    /// ```
    /// use lazytool_mcp::{AuditLog, McpServer};
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let server = McpServer::new(registry).audit(AuditLog::writer(std::io::stderr()));
    /// ```
    pub fn audit(mut self, log: AuditLog) -> Self {
        self.audit = Some(log);
        self
    }

    pub(crate) fn audit_log(&self) -> Option<&AuditLog> {
        self.audit.as_ref()
    }

    /// Why the tool `name`, which is not served, is withheld, if that is known.
    pub(crate) fn withheld(&self, name: &str) -> Option<String> {
        self.withheld.as_ref().and_then(|why| why(name))
    }

    /// Records in `relay` what each client announces in its `initialize` (sampling,
    /// elicitation), for the [`McpSource`](https://docs.rs/lazytool-mcp-client/latest/lazytool_mcp_client/struct.McpSource.html)s whose tools this server
    /// serves: they announce it to their servers and pass those servers' requests during a
    /// call on to the client of the call. See [`Relay`].
    ///
    /// ```
    /// use lazytool_mcp::{McpServer, Relay};
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let relay = Relay::new("my-gateway");
    /// let server = McpServer::new(registry).relay(relay.clone());
    /// // and `McpSource::relay(relay)` on each source.
    /// ```
    pub fn relay(mut self, relay: Relay) -> Self {
        self.relay = Some(relay);
        self
    }

    pub(crate) fn relayed_to(&self) -> Option<&Relay> {
        self.relay.as_ref()
    }

    pub(crate) fn max_message_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// The registry now.
    pub(crate) fn registry(&self) -> Registry {
        self.catalog.borrow().clone()
    }

    /// A receiver of the catalog, for a connection to follow its changes.
    pub(crate) fn catalog(&self) -> watch::Receiver<Registry> {
        self.catalog.clone()
    }

    /// The session options for requests of `principal`.
    /// Where its stateful sessions are kept for its replicas, if they are.
    pub(crate) fn session_share(&self) -> Option<&Arc<dyn SessionShare>> {
        self.session_share.as_ref()
    }

    /// Keeps its stateful sessions in `share`, for its replicas.
    #[cfg_attr(not(all(feature = "redis", feature = "server-http")), allow(dead_code))]
    pub(crate) fn share_sessions(&mut self, share: Arc<dyn SessionShare>) {
        self.session_share = Some(share);
    }

    pub(crate) fn list_ttl_ms(&self) -> u64 {
        u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX)
    }

    pub(crate) fn prompt_provider(&self) -> Option<&Arc<dyn PromptProvider>> {
        self.prompts.as_ref()
    }

    pub(crate) fn resource_provider(&self) -> Option<&Arc<dyn ResourceProvider>> {
        self.resources.as_ref()
    }

    pub(crate) fn list_page_size(&self) -> usize {
        self.page_size
    }

    /// What `initialize` and `server/discover` tell clients.
    pub(crate) fn config(&self) -> ServerConfig {
        let subscribe =
            (self.resources.as_ref()).is_some_and(|provider| provider.updates().is_some());
        let capabilities =
            capabilities(self.prompts.is_some(), self.resources.is_some(), subscribe);
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(&self.name, &self.version));
        config.instructions.clone_from(&self.instructions);
        config
    }
}

/// The capabilities a connection announces: tools always, prompts and resources when the
/// server has a provider of them, and completion of their arguments with either; logging
/// always (tools send messages with [`McpRequest::log`](crate::McpRequest::log)); resource
/// subscriptions when the resources announce their updates.
pub(crate) fn capabilities(prompts: bool, resources: bool, subscribe: bool) -> ServerCapabilities {
    let mut capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_tool_list_changed()
        .build();
    capabilities.logging = Some(JsonObject::new());
    if prompts {
        let mut offered = PromptsCapability::default();
        offered.list_changed = Some(true);
        capabilities.prompts = Some(offered);
    }
    if resources {
        let mut offered = ResourcesCapability::default();
        offered.list_changed = Some(true);
        offered.subscribe = subscribe.then_some(true);
        capabilities.resources = Some(offered);
    }
    if prompts || resources {
        capabilities.completions = Some(JsonObject::new());
    }
    capabilities
}
