//! Every tool of an application, collected and checked once: [`Registry`].

mod builder;
#[cfg(feature = "embeddings")]
mod embedded;
mod error;
mod examples;
mod missing;
#[cfg(feature = "search")]
mod search;

use std::fmt;
#[cfg(feature = "search")]
use std::sync::OnceLock;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

pub use builder::RegistryBuilder;
pub use error::{RegistryError, RegistryProblem};

use missing::Missing;
pub(crate) use missing::MissingSource;

use crate::call::{CallLimits, ToolContext, ToolResult, quote};
use crate::discovery::{DiscoveryListing, Explains, Presentation, ResolvedMode};
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
    #[cfg(feature = "search")]
    lazy_search: OnceLock<search::LazySearch>,
    #[cfg(feature = "search")]
    lazy_costs: OnceLock<crate::discovery::LazyCosts>,
    /// Whether some tool is lazy.
    has_lazy: bool,
    /// What ungated sessions share, per mode and listing, built by the first of them.
    presentations: Mutex<Vec<(PresentationKey, Presented)>>,
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

/// What a session presents: the presentation of its lazy tools and the tools each request
/// carries ahead of them. Every ungated session of one [`PresentationKey`] shares one, built
/// once, so that a new session (one per stateless request, say) walks no tool.
#[derive(Clone)]
pub(crate) struct Presented {
    pub(crate) presentation: Arc<Presentation>,
    pub(crate) eager: Arc<[Tool]>,
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
            has_lazy: tools.iter().any(Tool::is_lazy),
            tools,
            limits,
            #[cfg(feature = "search")]
            lazy_search: OnceLock::new(),
            #[cfg(feature = "search")]
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
    /// Whether some tool is lazy.
    pub(crate) fn has_lazy(&self) -> bool {
        self.0.has_lazy
    }

    /// What ungated sessions with this `key` share, built with `build` the first time.
    pub(crate) fn presented(
        &self,
        key: PresentationKey,
        build: impl FnOnce() -> Presented,
    ) -> Presented {
        // A panic while holding the lock cannot leave the list half-written: recover it.
        let mut presentations = self
            .0
            .presentations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, shared)) = presentations.iter().find(|(k, _)| *k == key) {
            return shared.clone();
        }
        let shared = build();
        presentations.push((key, shared.clone()));
        shared
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.tools()).finish()
    }
}
