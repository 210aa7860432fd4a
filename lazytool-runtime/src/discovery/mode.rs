//! How a session presents its lazy tools: [`DiscoveryMode`], and the budget that
//! [`DiscoveryMode::Auto`] decides by.

#[cfg(feature = "search")]
use crate::tool::ToolDefinition;

/// How lazy tools reach the model; set with [`SessionOptions::mode`](crate::SessionOptions::mode).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, Registry, SessionOptions};
/// use serde_json::json;
///
/// let tool = |name: &str, description: &str| {
///     DynamicTool::new(name.to_owned(), description.to_owned(), json!({"type": "object"}),
///         |_, _| async { Ok::<_, String>(json!("done")) }).lazy(true)
/// };
/// let registry = Registry::builder()
///     .without_inventory()
///     .tool(tool("create_issue", "Opens an issue in a repository."))
///     .tool(tool("merge_pull_request", "Merges a pull request."))
///     .build()
///     .unwrap();
///
/// let first_request = |mode| {
///     let session = registry.session_with(SessionOptions::new().mode(mode));
///     session.active_tools().into_iter().map(|tool| tool.name).collect::<Vec<_>>()
/// };
/// // Names (the default) and search: the discovery tool alone, until tools are discovered.
/// assert_eq!(first_request(DiscoveryMode::Names), [DISCOVERY_TOOL_NAME]);
/// // Cache-stable: every lazy tool from the first request on, with an open schema.
/// assert_eq!(
///     first_request(DiscoveryMode::CacheStable),
///     [DISCOVERY_TOOL_NAME, "create_issue", "merge_pull_request"]
/// );
/// // Auto: two small tools fit the inline budget, so they are sent like eager ones.
/// assert_eq!(
///     first_request(DiscoveryMode::Auto(Default::default())),
///     ["create_issue", "merge_pull_request"]
/// );
///
/// // Search mode: the discovery tool takes a query instead of listing every name.
/// let session = registry.session_with(SessionOptions::new().mode(DiscoveryMode::Search));
/// let found = session.call(DISCOVERY_TOOL_NAME, json!({"query": "merge a PR"})).await;
/// assert_eq!(found.content()["tools"][0]["name"], "merge_pull_request");
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum DiscoveryMode {
    /// TanStack AI's protocol: the discovery tool lists every lazy tool's name and takes
    /// `{"toolNames": [...]}`. The default.
    #[default]
    Names,
    /// The discovery tool takes `{"query": "...", "limit"?: n}` and returns the best matches
    /// (BM25 over names, descriptions, parameters and tags); for catalogs too large to list.
    /// Needs the `search` feature (on by default).
    #[cfg(feature = "search")]
    Search,
    /// Chooses by cost (see [`AutoBudget`]): every tool inline when the lazy tools' full
    /// definitions fit the inline budget, else names, else search when even the names list
    /// is over its budget. Needs the `search` feature (on by default).
    #[cfg(feature = "search")]
    Auto(AutoBudget),
    /// Every lazy tool is listed from the first request with its name, first sentence and an
    /// open parameter schema, so the tools array never changes and the provider's prompt
    /// cache holds; the discovery tool returns real schemas, and calls are validated against
    /// them. Lazy tools can be called without discovery.
    CacheStable,
}

/// The budget [`DiscoveryMode::Auto`] decides by, in tokens of the tools' definitions as JSON
/// (`[{"name", "description", "inputSchema"}]`, within a few tokens per tool of what each
/// provider's format sends; counted with tiktoken's `o200k_base` when the `tokens` feature is
/// on, else estimated as one token per 4 bytes).
///
/// ```
/// use lazytool_runtime::{AutoBudget, DiscoveryMode, SessionOptions};
///
/// let budget = AutoBudget { context_window: 200_000, ..AutoBudget::default() };
/// let options = SessionOptions::new().mode(DiscoveryMode::Auto(budget));
/// # let _ = options;
/// ```
#[cfg(feature = "search")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoBudget {
    /// The model's context window. Default: 128,000 tokens.
    pub context_window: usize,
    /// The share of the window the lazy tools' full definitions may take to be sent inline.
    /// Default: 0.10 (Claude Code's threshold).
    pub inline_share: f64,
    /// The share of the window the names list may take before search is used instead.
    /// Default: 0.02 (2,560 tokens of a 128k window, about 400 tool names).
    pub names_share: f64,
}

#[cfg(feature = "search")]
impl Default for AutoBudget {
    fn default() -> Self {
        AutoBudget {
            context_window: 128_000,
            inline_share: 0.10,
            names_share: 0.02,
        }
    }
}

#[cfg(feature = "search")]
impl AutoBudget {
    fn allows(&self, share: f64, tokens: usize) -> bool {
        (tokens as f64) <= self.context_window as f64 * share
    }
}

/// What a session does with its lazy tools once [`DiscoveryMode::Auto`] has decided
/// ([`Session::mode`](crate::Session::mode)).
///
/// ```
/// use lazytool_runtime::{AutoBudget, DiscoveryMode, DynamicTool, Registry, ResolvedMode, SessionOptions};
/// use serde_json::json;
///
/// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
/// let auto = |budget| registry.session_with(SessionOptions::new().mode(DiscoveryMode::Auto(budget))).mode();
/// assert_eq!(auto(AutoBudget::default()), ResolvedMode::Inline);
/// // A window too small for the tool's definition, large enough for its name.
/// let small = AutoBudget { context_window: 400, inline_share: 0.05, names_share: 0.5 };
/// assert_eq!(auto(small), ResolvedMode::Names);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResolvedMode {
    /// Lazy tools are sent like eager ones; no discovery tool.
    Inline,
    /// [`DiscoveryMode::Names`].
    Names,
    /// `DiscoveryMode::Search`.
    #[cfg(feature = "search")]
    Search,
    /// [`DiscoveryMode::CacheStable`].
    CacheStable,
}

impl ResolvedMode {
    /// Whether a lazy tool runs only once discovered: names and search, where the model asks
    /// the discovery tool for it first.
    pub(crate) fn discovers(self) -> bool {
        !matches!(self, ResolvedMode::Inline | ResolvedMode::CacheStable)
    }

    /// Whether the discovery tool takes a query: search mode.
    pub(crate) fn searches(self) -> bool {
        #[cfg(feature = "search")]
        return self == ResolvedMode::Search;
        #[cfg(not(feature = "search"))]
        return false;
    }
}

/// What the lazy tools of a registry cost, computed once per registry.
#[cfg(feature = "search")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct LazyCosts {
    /// Every lazy tool's full definition.
    pub(crate) inline: usize,
    /// The names-mode discovery tool.
    pub(crate) names: usize,
}

impl DiscoveryMode {
    #[cfg(feature = "search")]
    pub(crate) fn resolve(self, costs: impl FnOnce() -> LazyCosts) -> ResolvedMode {
        match self {
            DiscoveryMode::Names => ResolvedMode::Names,
            DiscoveryMode::Search => ResolvedMode::Search,
            DiscoveryMode::CacheStable => ResolvedMode::CacheStable,
            DiscoveryMode::Auto(budget) => {
                let costs = costs();
                if budget.allows(budget.inline_share, costs.inline) {
                    ResolvedMode::Inline
                } else if budget.allows(budget.names_share, costs.names) {
                    ResolvedMode::Names
                } else {
                    ResolvedMode::Search
                }
            }
        }
    }

    #[cfg(not(feature = "search"))]
    pub(crate) fn resolve(self) -> ResolvedMode {
        match self {
            DiscoveryMode::Names => ResolvedMode::Names,
            DiscoveryMode::CacheStable => ResolvedMode::CacheStable,
        }
    }
}

/// Tokens of `tools` as a JSON array of definitions.
#[cfg(feature = "search")]
pub(crate) fn tools_tokens<D: std::borrow::Borrow<ToolDefinition>>(tools: &[D]) -> usize {
    if tools.is_empty() {
        return 0;
    }
    let definitions: Vec<&ToolDefinition> = tools.iter().map(std::borrow::Borrow::borrow).collect();
    let json = serde_json::to_string(&definitions).unwrap_or_default();
    count_tokens(&json)
}

#[cfg(all(feature = "search", feature = "tokens"))]
fn count_tokens(text: &str) -> usize {
    crate::tokens::count_tokens(text)
}

#[cfg(all(feature = "search", not(feature = "tokens")))]
fn count_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}
