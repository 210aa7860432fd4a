//! One conversation's view of a registry: which lazy tools are discovered, what each request
//! carries, and which calls may run.

mod call_through;
mod calls;
mod catalog_change;
#[cfg(feature = "code-mode")]
mod code;
mod offered;
mod options;
mod redefined;
#[cfg(all(test, feature = "json-schema"))]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub use catalog_change::CatalogChange;
pub use options::SessionOptions;

use crate::call::DiscoveredSet;
use crate::discovery::{DiscoveryTool, Presentation, ResolvedMode, compaction};
use crate::registry::{Presented, Registry};
use crate::tool::Tool;

/// One conversation's view of a [`Registry`]: the tools each request carries and the rules
/// each call obeys (see the crate's README, "Discovery protocol").
///
/// - [`active_tools`](Session::active_tools) gives the tools for the next request: eager
///   tools (name order), then the discovery tool while some lazy tool is undiscovered, then
///   the discovered tools in discovery order. Nothing already sent moves when a tool is
///   discovered.
/// - [`call`](Session::call) runs a call: the discovery tool records what it returns, an
///   undiscovered lazy tool is refused with an error telling the model to discover it.
/// - When the catalog changes ([`with_registry`](Session::with_registry)), a discovered tool
///   whose definition changed must be discovered again, and an eager one listed again,
///   before a call runs it.
/// - The calls of one model turn are gated by the state at the start of that turn: a tool
///   discovered during a turn becomes callable when the next request is built
///   ([`active_tools`](Session::active_tools) or [`begin_turn`](Session::begin_turn)).
///
/// A session is `Send + Sync + 'static`; its state is behind a lock, so many calls can be
/// in flight at once. Keep one per conversation (stateful servers, MCP), or rebuild it on
/// every request from the message history with [`Session::from_history`] (stateless).
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, tool};
/// use serde_json::json;
///
/// /// Converts an amount between two currencies.
/// #[tool(lazy)]
/// async fn convert(amount: f64, rate: f64) -> f64 {
///     amount * rate
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::from_inventory().unwrap();
/// let session = registry.session();
///
/// // Request 1 carries the discovery tool, which lists `convert`.
/// let tools = session.active_tools();
/// assert_eq!(tools[0].name, DISCOVERY_TOOL_NAME);
/// assert!(tools[0].description.ends_with("[convert]"));
///
/// // Too early: `convert` must be discovered first.
/// let refused = session.call("convert", json!({"amount": 10.0, "rate": 2.0})).await;
/// assert!(refused.is_error());
///
/// // The model discovers it; from the next request on it is a normal tool.
/// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["convert"]})).await;
/// let tools = session.active_tools();
/// assert_eq!(tools[0].name, "convert");
/// let result = session.call("convert", json!({"amount": 10.0, "rate": 2.0})).await;
/// assert_eq!(result.content(), &json!(20.0));
/// # }
/// ```
// Its methods by concept: calls in `calls.rs`, what a request carries in `offered.rs`, calls
// through in `call_through.rs`, a changed catalog in `catalog_change.rs`, code mode in
// `code.rs`, and, a layer up, `Session::from_history` in `provider/from_history.rs`.
pub struct Session {
    shared: Arc<Shared>,
    // Shared with the calls of a script in flight (code mode), which run under this state.
    live: Arc<Live>,
}

/// What a session's calls change, in one allocation.
#[derive(Default)]
struct Live {
    state: Mutex<DiscoveryState>,
    /// Whether `state.unlisted` may hold names: eager calls look there only then.
    relisting: AtomicBool,
}

struct Shared {
    registry: Registry,
    options: SessionOptions,
    mode: ResolvedMode,
    /// Sent in every request ahead of the discovery tool: the eager tools, plus the lazy ones
    /// in [`ResolvedMode::Inline`].
    eager: Arc<[Tool]>,
    presentation: Arc<Presentation>,
    #[cfg(feature = "code-mode")]
    code: Option<crate::code::CodeSession>,
}

impl Shared {
    fn discovery(&self) -> Option<&DiscoveryTool> {
        self.presentation.discovery.as_ref()
    }
}

#[derive(Default)]
struct DiscoveryState {
    /// Callable and listed.
    discovered: Vec<String>,
    /// Discovered during the current turn: callable from the next one.
    pending: Vec<String>,
    /// Every name of `discovered` (true: callable) and of `pending` (false), so that adding
    /// or checking a name never walks the lists.
    index: HashMap<String, bool>,
    /// Lazy tools discovered before a catalog change that changed their definition: refused
    /// until discovered again.
    redefined: HashSet<String>,
    /// Eager tools whose definition changed since the tools were last listed: refused until
    /// the next listing.
    unlisted: HashSet<String>,
}

impl DiscoveryState {
    /// Whether `name` was discovered before the current turn.
    fn is_callable(&self, name: &str) -> bool {
        self.index.get(name).copied().unwrap_or(false)
    }

    /// Records `name` as discovered during this turn; false if it already was.
    fn add_pending(&mut self, name: &str) -> bool {
        if self.index.contains_key(name) {
            return false;
        }
        self.redefined.remove(name);
        self.index.insert(name.to_owned(), false);
        self.pending.push(name.to_owned());
        true
    }

    /// Records `name` as callable at once (a restored discovery); false if it already was.
    fn add_discovered(&mut self, name: &str) -> bool {
        match self.index.get_mut(name) {
            Some(true) => false,
            Some(callable) => {
                *callable = true;
                self.pending.retain(|pending| pending != name);
                self.discovered.push(name.to_owned());
                true
            }
            None => {
                self.index.insert(name.to_owned(), true);
                self.discovered.push(name.to_owned());
                true
            }
        }
    }
}

impl Registry {
    /// A new conversation over every tool, nothing discovered yet.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// let session = registry.session();
    /// assert_eq!(session.lazy_tool_names(), ["get_forecast"]);
    /// ```
    pub fn session(&self) -> Session {
        Session::new(self, SessionOptions::default())
    }

    /// A new conversation with options (discovery listing, gating).
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::SessionOptions;
    ///
    /// let session = registry.session_with(SessionOptions::new().allow(|tool| !tool.is_lazy()));
    /// assert!(session.lazy_tool_names().is_empty());
    /// ```
    pub fn session_with(&self, options: SessionOptions) -> Session {
        Session::new(self, options)
    }
}

impl Session {
    pub(crate) fn new(registry: &Registry, options: SessionOptions) -> Session {
        let allowed = |tool: &Tool| options.allows(tool);
        let is_allowed_lazy = |tool: &&Tool| tool.is_lazy() && allowed(tool);
        // An ungated session walks no tool: what it lists is built once per registry.
        let has_lazy = if options.is_gated() {
            registry.tools().any(|tool| is_allowed_lazy(&tool))
        } else {
            registry.has_lazy()
        };
        let mode = if !has_lazy {
            ResolvedMode::Names
        } else {
            #[cfg(feature = "search")]
            let mode = options.discovery_mode().resolve(|| registry.lazy_costs());
            #[cfg(not(feature = "search"))]
            let mode = options.discovery_mode().resolve();
            mode
        };
        let (listing, call_through) = (options.discovery_listing(), options.is_call_through());
        let build = || {
            let lazy: Vec<&Tool> = registry.tools().filter(is_allowed_lazy).collect();
            let eager = registry
                .tools()
                .filter(|tool| (!tool.is_lazy() || mode == ResolvedMode::Inline) && allowed(tool))
                .cloned()
                .collect();
            Presented {
                presentation: Arc::new(Presentation::new(&lazy, mode, listing, call_through)),
                eager,
            }
        };
        let Presented {
            presentation,
            eager,
        } = if options.is_gated() {
            build()
        } else {
            registry.presented((mode, listing, call_through), build)
        };
        Session {
            shared: Arc::new(Shared {
                registry: registry.clone(),
                #[cfg(feature = "code-mode")]
                code: options
                    .code_options()
                    .cloned()
                    .map(crate::code::CodeSession::new),
                options,
                mode,
                eager,
                presentation,
            }),
            live: Arc::default(),
        }
    }

    /// How this session presents its lazy tools, after [`DiscoveryMode::Auto`](crate::DiscoveryMode::Auto) decided.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::{AutoBudget, DiscoveryMode, ResolvedMode, SessionOptions};
    ///
    /// // One small lazy tool fits Auto's inline budget: it is sent like an eager tool.
    /// let session = registry.session_with(SessionOptions::new().mode(DiscoveryMode::Auto(AutoBudget::default())));
    /// assert_eq!(session.mode(), ResolvedMode::Inline);
    /// assert_eq!(registry.session().mode(), ResolvedMode::Names);
    /// ```
    pub fn mode(&self) -> ResolvedMode {
        self.shared.mode
    }

    /// Resumes a conversation whose [`discovered`](Session::discovered) set was stored.
    /// Names of tools that no longer exist, are not lazy, or are not allowed are ignored;
    /// with a signing key (`SessionOptions::signing_key`, `signing` feature), so is a set without a valid
    /// signature.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry, Session, SessionOptions};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("report", "Builds a report.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("ok")) }).lazy(true);
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let stored = serde_json::from_str(r#"{"tools": ["report"]}"#).unwrap();
    /// let session = Session::resume(&registry, &stored, SessionOptions::new());
    /// assert_eq!(session.discovered().tools, ["report"]);
    /// ```
    pub fn resume(
        registry: &Registry,
        discovered: &DiscoveredSet,
        options: SessionOptions,
    ) -> Session {
        Session::from_records(registry, std::iter::once(discovered.clone()), options)
    }

    /// A session over `registry` with the tools of `records` discovered: every record taken
    /// as it is, or, when the session signs, only those with a valid signature.
    pub(crate) fn from_records(
        registry: &Registry,
        records: impl IntoIterator<Item = DiscoveredSet>,
        options: SessionOptions,
    ) -> Session {
        let session = Session::new(registry, options);
        for record in records {
            let accepted = match session.shared.options.signer() {
                None => true,
                Some(key) => key.verify_set(&record),
            };
            if accepted {
                session.restore(record.tools.iter().map(String::as_str));
            }
        }
        session
    }

    /// Makes the lazy tools among `names` callable. A record can name no more tools than the
    /// registry holds (a discovery lists each tool once): names past that are ignored, so one
    /// record costs at most a lookup per tool of the registry.
    fn restore<'n>(&self, names: impl IntoIterator<Item = &'n str>) {
        let mut state = self.lock();
        for name in names.into_iter().take(self.shared.registry.len()) {
            if self.lazy_tool(name).is_some() {
                state.add_discovered(name);
            }
        }
    }

    /// The registry this session serves.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// let session = registry.session();
    /// assert_eq!(session.registry().len(), 2);
    /// ```
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }

    /// Starts a new model turn: tools discovered during the last one become callable.
    /// [`active_tools`](Session::active_tools) does this too.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, ToolErrorKind};
    ///
    /// let session = registry.session();
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    /// // Discovered during this turn: callable from the next one.
    /// let early = session.call("get_forecast", json!({})).await;
    /// assert_eq!(early.error_kind(), Some(ToolErrorKind::NotDiscovered));
    /// session.begin_turn();
    /// assert!(!session.call("get_forecast", json!({})).await.is_error());
    /// # }
    /// ```
    pub fn begin_turn(&self) {
        commit(&mut self.lock());
    }

    /// The lazy tools discovered so far (including during the current turn), in discovery
    /// order; signed when the session signs, so that [`Session::resume`] accepts it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, Session, SessionOptions};
    ///
    /// let session = registry.session();
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    /// let stored = serde_json::to_string(&session.discovered()).unwrap(); // kept with the conversation
    /// assert_eq!(stored, r#"{"tools":["get_forecast"]}"#);
    ///
    /// let resumed = Session::resume(&registry, &serde_json::from_str(&stored).unwrap(), SessionOptions::new());
    /// assert_eq!(resumed.discovered().tools, ["get_forecast"]);
    /// # }
    /// ```
    pub fn discovered(&self) -> DiscoveredSet {
        let set = {
            let state = self.lock();
            DiscoveredSet::new(state.discovered.iter().chain(state.pending.iter()).cloned())
        };
        match self.shared.options.signer() {
            Some(key) => key.sign_set(set),
            None => set,
        }
    }

    /// A marker recording the discovered tools, for the summary message that replaces
    /// compacted history: [`Session::from_history`] restores the tools from it after the
    /// original discovery results are gone. It is text; put it anywhere in a message's text.
    /// Like any history, it is a claim by whoever writes the history: gating still applies.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, Session};
    ///
    /// let session = registry.session();
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    /// // The history is compacted into a summary that carries the marker.
    /// let summary = format!("Earlier, the user asked about the weather. {}", session.compaction_marker());
    /// let history = [json!({"role": "user", "content": summary})];
    /// assert_eq!(Session::from_history(&registry, &history).discovered().tools, ["get_forecast"]);
    /// # }
    /// ```
    pub fn compaction_marker(&self) -> String {
        compaction::marker(&self.discovered())
    }

    /// The names of the lazy tools this session may discover, in name order.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// assert_eq!(registry.session().lazy_tool_names(), ["get_forecast"]);
    /// ```
    pub fn lazy_tool_names(&self) -> &[String] {
        self.shared
            .discovery()
            .map_or(&[], |discovery| discovery.lazy_names())
    }

    fn allowed(&self, tool: &Tool) -> bool {
        self.shared.options.allows(tool)
    }

    fn lazy_tool(&self, name: &str) -> Option<&Tool> {
        self.shared
            .registry
            .get(name)
            .filter(|tool| tool.is_lazy() && self.allowed(tool))
    }

    /// The tools were listed: their definitions, changed or not, are read.
    fn listed(&self, state: &mut DiscoveryState) {
        state.unlisted.clear();
        self.live.relisting.store(false, Ordering::Release);
    }

    fn lock(&self) -> MutexGuard<'_, DiscoveryState> {
        // The state is a list of names, consistent after every statement: a panic elsewhere
        // while the lock was held cannot leave it half-written.
        self.live
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn commit(state: &mut DiscoveryState) {
    let pending = std::mem::take(&mut state.pending);
    for name in &pending {
        state.index.insert(name.clone(), true);
    }
    state.discovered.extend(pending);
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("discovered", &self.discovered().tools)
            .finish_non_exhaustive()
    }
}
