//! Every tool of an application, collected and checked once: [`Registry`].

mod builder;
#[cfg(feature = "embeddings")]
mod embedded;
mod error;
mod examples;
mod missing;

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;

pub use builder::RegistryBuilder;
pub use error::{RegistryError, RegistryProblem};

use missing::Missing;
pub(crate) use missing::MissingSource;

use crate::call::{CallLimits, ToolContext, ToolResult, quote};
use crate::discovery::{
    DiscoveryListing, DiscoveryTool, Explains, LazyCosts, Presentation, ResolvedMode,
    SearchDocument, SearchIndex, tools_tokens,
};
use crate::dispatch::{admit, refuse, run};
use crate::tool::{MAX_TOOL_NAME_LEN, Tool};

/// The tools of an application: every `#[tool]` linked into the binary and any dynamic
/// tools, checked once and then shared.
///
/// A registry is a cheap-to-clone handle (an `Arc` inside), `Send + Sync + 'static`, so one
/// registry serves every conversation of a server. Tools are kept in name order (byte order).
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tool, Registry};
///
/// /// Adds two numbers.
/// #[tool]
/// async fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::from_inventory().expect("tools are valid");
/// let result = registry.call("add", serde_json::json!({"a": 2, "b": 3})).await;
/// assert_eq!(result.content(), &serde_json::json!(5));
/// # }
/// ```
#[derive(Clone)]
pub struct Registry(Arc<RegistryInner>);

struct RegistryInner {
    tools: Vec<Tool>,
    /// What every call obeys, whatever answers it: a tool, the discovery tool, a refusal.
    limits: CallLimits,
    lazy_search: OnceLock<LazySearch>,
    lazy_costs: OnceLock<LazyCosts>,
    /// What ungated sessions share, per mode and listing, built by the first of them.
    presentations: Mutex<Vec<(PresentationKey, Arc<Presentation>)>>,
    /// Whom to ask about a name it does not hold.
    missing: Missing,
    /// The embedder, and the lazy tools' vectors (in the order of `LazySearch::positions`).
    #[cfg(feature = "embeddings")]
    embedded: Option<(
        crate::discovery::Embeddings,
        Arc<crate::discovery::embedding::ToolIndex>,
    )>,
}

/// Mode, listing, and whether lazy tools are run through the call-through tool.
type PresentationKey = (ResolvedMode, DiscoveryListing, bool);

/// The search index over the lazy tools, built on the first search.
struct LazySearch {
    index: SearchIndex,
    /// Positions in `tools` of the indexed tools.
    positions: Vec<usize>,
}

impl Registry {
    /// A registry of every `#[tool]` linked into the binary.
    ///
    /// Tools declared in another crate are collected as long as that crate is linked: if
    /// nothing else refers to it, add `use that_crate as _;`. Tools that take `State<T>`
    /// need [`Registry::builder`]; here they are an error naming the tool and the type.
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{Registry, tool};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// async fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let registry = Registry::from_inventory().unwrap();
    /// assert_eq!(registry.tools().map(|tool| tool.name()).collect::<Vec<_>>(), ["add"]);
    /// assert_eq!(registry.call("add", serde_json::json!({"a": 2, "b": 3})).await.content(), 5);
    /// # }
    /// ```
    pub fn from_inventory() -> Result<Registry, RegistryError> {
        Registry::builder().build()
    }

    /// A builder for registries with states, a filter over the `#[tool]`s, or dynamic tools.
    ///
    /// ```
    /// use lazytool_runtime::{CallLimits, Registry};
    /// use std::time::Duration;
    ///
    /// let registry = Registry::builder()
    ///     .limits(CallLimits::default().timeout(Some(Duration::from_secs(5))))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(registry.limits().timeout, Some(Duration::from_secs(5)));
    /// ```
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::new()
    }

    /// A registry of `tools`, in name order (the builder checked them).
    fn new(
        tools: Vec<Tool>,
        limits: CallLimits,
        missing: Missing,
        #[cfg(feature = "embeddings")] embeddings: Option<crate::discovery::Embeddings>,
    ) -> Registry {
        Registry(Arc::new(RegistryInner {
            #[cfg(feature = "embeddings")]
            embedded: embeddings.map(|embeddings| embedded::index(embeddings, &tools)),
            tools,
            limits,
            lazy_search: OnceLock::new(),
            lazy_costs: OnceLock::new(),
            presentations: Mutex::new(Vec::new()),
            missing,
        }))
    }

    /// Why `name`, which the registry does not hold, is missing, if a source given to
    /// [`RegistryBuilder::explain_missing`] knows.
    pub(crate) fn missing_tool(&self, name: &str) -> Option<String> {
        self.0.missing.missing_tool(name)
    }

    /// What the registry's sources say of the names it does not hold, for a discovery.
    pub(crate) fn explains(&self) -> &dyn Explains {
        &self.0.missing
    }

    /// The answer to a call of `name`, which no tool the caller may use has: why it is
    /// missing when a source knows, else an unknown tool with the `available` names.
    pub(crate) fn not_held<'a>(
        &self,
        name: &str,
        available: impl IntoIterator<Item = &'a str>,
    ) -> ToolResult {
        let quoted = quote(name, MAX_TOOL_NAME_LEN);
        match self.missing_tool(name) {
            Some(why) => ToolResult::unavailable(&quoted, &why),
            None => ToolResult::unknown_tool(&quoted, available),
        }
    }

    /// The tools, in name order (byte order).
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?")))) })
    ///     .lazy(true)
    ///     .tags(["weather", "temperature"]);
    /// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tools([forecast, time]).build().unwrap();
    /// let names: Vec<&str> = registry.tools().map(|tool| tool.name()).collect();
    /// assert_eq!(names, ["get_forecast", "get_time"]);
    /// ```
    pub fn tools(&self) -> std::slice::Iter<'_, Tool> {
        self.0.tools.iter()
    }

    /// The tool named `name`.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?")))) })
    ///     .lazy(true)
    ///     .tags(["weather", "temperature"]);
    /// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tools([forecast, time]).build().unwrap();
    /// assert!(registry.get("get_forecast").is_some_and(|tool| tool.is_lazy()));
    /// assert!(registry.get("get_weather").is_none());
    /// ```
    #[inline]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        let tools = &self.0.tools;
        tools
            .binary_search_by(|tool| tool.name().cmp(name))
            .ok()
            .map(|index| &tools[index])
    }

    /// The limits every call obeys ([`RegistryBuilder::limits`]): those of its tools, and
    /// those of the answers given without a tool — the discovery tool's, and the refusals of
    /// unknown or undiscovered tools.
    ///
    /// ```
    /// use lazytool_runtime::{CallLimits, Registry};
    ///
    /// let limits = CallLimits::default().max_output_bytes(20_000);
    /// let registry = Registry::builder().without_inventory().limits(limits).build().unwrap();
    /// assert_eq!(registry.limits().max_output_bytes, 20_000);
    /// ```
    pub fn limits(&self) -> &CallLimits {
        &self.0.limits
    }

    /// How many tools there are.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?")))) })
    ///     .lazy(true)
    ///     .tags(["weather", "temperature"]);
    /// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tools([forecast, time]).build().unwrap();
    /// assert_eq!(registry.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.0.tools.len()
    }

    /// Whether there are no tools.
    ///
    /// ```
    /// use lazytool_runtime::Registry;
    ///
    /// assert!(Registry::builder().without_inventory().build().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.0.tools.is_empty()
    }

    /// Calls the tool named `name` with `arguments`, without discovery gating. Every
    /// failure is an error result, never a panic: see [`Tool::call`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?")))) })
    ///     .lazy(true)
    ///     .tags(["weather", "temperature"]);
    /// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tools([forecast, time]).build().unwrap();
    /// // No gating here: a lazy tool runs without being discovered.
    /// let result = registry.call("get_forecast", json!({"city": "Paris"})).await;
    /// assert_eq!(result.content(), "Sunny in Paris");
    /// assert!(registry.call("get_forecast", json!({"town": "Paris"})).await.is_error());
    /// # }
    /// ```
    #[inline]
    pub fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        self.call_with_context(name, arguments, ToolContext::new())
    }

    /// Like [`Registry::call`], with the call's id and cancellation token.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{CancellationToken, DynamicTool, Registry, ToolContext};
    /// use serde_json::json;
    ///
    /// let whoami = DynamicTool::new("whoami", "The id of this call.", json!({"type": "object"}),
    ///     |_, context: ToolContext| async move { Ok::<_, String>(json!(context.call_id())) });
    /// let registry = Registry::builder().without_inventory().tool(whoami).build().unwrap();
    /// let context = ToolContext::new().with_call_id("call_7").with_cancellation(CancellationToken::new());
    /// assert_eq!(registry.call_with_context("whoami", json!({}), context).await.content(), "call_7");
    /// # }
    /// ```
    pub fn call_with_context(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        let admitted = match self.get(name) {
            Some(tool) => admit(tool, arguments, context),
            None => {
                let unknown = self.not_held(name, self.tools().map(Tool::name));
                Err(refuse(unknown, arguments, &self.0.limits))
            }
        };
        run(admitted)
    }
}

impl Registry {
    /// The lazy tools best matching `query`, best first, at most `limit`: the ranking search
    /// discovery uses (BM25 over names split into words, descriptions, parameter names and
    /// descriptions, and tags). The index is built on the first search and kept.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?")))) })
    ///     .lazy(true)
    ///     .tags(["weather", "temperature"]);
    /// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tools([forecast, time]).build().unwrap();
    /// let found = registry.search("temperature tomorrow", 5);
    /// assert_eq!(found[0].name(), "get_forecast");
    /// assert!(registry.search("time", 5).is_empty()); // only lazy tools are searched
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<&Tool> {
        self.search_lazy(query, limit, |_| true)
    }

    /// [`Registry::search`] among the tools a session `allowed`.
    pub(crate) fn search_lazy(
        &self,
        query: &str,
        limit: usize,
        allowed: impl Fn(&Tool) -> bool,
    ) -> Vec<&Tool> {
        let tools = &self.0.tools;
        let search = self.lazy_search();
        let tool = |hit: usize| search.positions.get(hit).map(|&position| &tools[position]);
        let allowed = |hit: usize| tool(hit).is_some_and(&allowed);
        #[cfg(feature = "embeddings")]
        if let Some(hybrid) = self.search_embedded(&search.index, query, limit, allowed) {
            return hybrid.fused.into_iter().filter_map(tool).collect();
        }
        search
            .index
            .search_among(query, limit, allowed)
            .into_iter()
            .filter_map(tool)
            .collect()
    }

    /// The index of the lazy tools, built the first time.
    fn lazy_search(&self) -> &LazySearch {
        let tools = &self.0.tools;
        self.0.lazy_search.get_or_init(|| {
            let positions: Vec<usize> = (0..tools.len()).filter(|&i| tools[i].is_lazy()).collect();
            let tags: Vec<Vec<&str>> = positions
                .iter()
                .map(|&i| tools[i].tags().collect())
                .collect();
            let index =
                SearchIndex::new(
                    positions
                        .iter()
                        .zip(&tags)
                        .map(|(&i, tags)| SearchDocument {
                            name: tools[i].name(),
                            description: tools[i].description(),
                            input_schema: tools[i].input_schema(),
                            tags,
                        }),
                );
            LazySearch { index, positions }
        })
    }

    /// What [`Registry::search`] weighs for `query`: each candidate tool with the query
    /// terms it holds, how often in each field, and the share of the query's words it
    /// matches, so that a ranking's constants can be fitted outside the index
    /// (`bench/search/fit.py`).
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    ///     |_, _| async { Ok::<_, String>(json!("Sunny")) })
    ///     .lazy(true);
    /// let registry = Registry::builder().without_inventory().tools([forecast]).build().unwrap();
    /// let features = registry.search_features("weather tomorrow");
    /// assert_eq!(features.words, 2);
    /// assert_eq!(features.candidates[0].tool, "get_forecast");
    /// assert_eq!(features.candidates[0].words, 2);
    /// ```
    #[cfg(feature = "search-features")]
    pub fn search_features(&self, query: &str) -> crate::discovery::SearchFeatures {
        let search = self.lazy_search();
        let tools = &self.0.tools;
        search.index.features(query, |hit| {
            search
                .positions
                .get(hit)
                .map_or_else(String::new, |&position| tools[position].name().to_owned())
        })
    }

    /// The presentation of the lazy tools that ungated sessions with this `key` share, built
    /// with `build` the first time.
    pub(crate) fn presentation(
        &self,
        key: PresentationKey,
        build: impl FnOnce() -> Presentation,
    ) -> Arc<Presentation> {
        // A panic while holding the lock cannot leave the list half-written: recover it.
        let mut presentations = self
            .0
            .presentations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, shared)) = presentations.iter().find(|(k, _)| *k == key) {
            return Arc::clone(shared);
        }
        let shared = Arc::new(build());
        presentations.push((key, Arc::clone(&shared)));
        shared
    }

    /// What the lazy tools cost inline and as a names list, computed once.
    pub(crate) fn lazy_costs(&self) -> LazyCosts {
        *self.0.lazy_costs.get_or_init(|| {
            let lazy: Vec<&Tool> = self.tools().filter(|tool| tool.is_lazy()).collect();
            let definitions: Vec<_> = lazy.iter().map(|tool| tool.definition()).collect();
            let names = DiscoveryTool::new(&lazy, ResolvedMode::Names, DiscoveryListing::Names)
                .map_or(0, |discovery| {
                    tools_tokens(std::slice::from_ref(&discovery.definition))
                });
            LazyCosts {
                inline: tools_tokens(&definitions),
                names,
            }
        })
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.tools()).finish()
    }
}
