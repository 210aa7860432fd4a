//! Building a [`Registry`]: [`RegistryBuilder`].

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use super::Registry;
use super::error::{RegistryError, RegistryProblem};
use super::examples;
use super::missing::{Missing, MissingSource};
use crate::call::CallLimits;
use crate::tool::{
    CompiledSchemas, DynamicTool, Handler, Registration, ResolvedStates, StateMap, Tool, ToolInner,
    ToolMetadata, ToolMethods, ToolSpec, validate_tool_name,
};

type SpecFilter = Box<dyn Fn(&ToolSpec) -> bool>;

/// Builds a [`Registry`]: states for `State<T>` parameters, instances for tool methods,
/// which `#[tool]`s to take, and dynamic tools. Start with [`Registry::builder`].
///
/// ```rust,standalone_crate
/// use std::sync::Arc;
/// use lazytool_runtime::{CallLimits, Registry, State, tool};
///
/// struct Prices {
///     desk: u32,
/// }
///
/// /// The price of the desk.
/// #[tool]
/// async fn desk_price(prices: State<Prices>) -> u32 {
///     prices.desk
/// }
///
/// /// Not wanted in this registry.
/// #[tool(lazy)]
/// async fn admin_reset() {}
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// // A tool takes `State<Prices>`: building without one is an error naming it.
/// assert!(Registry::from_inventory().is_err());
///
/// let registry = Registry::builder()
///     .state(Prices { desk: 480 })          // or `.state_arc(Arc::new(...))`, shared
///     .filter(|spec| !spec.is_lazy())       // which `#[tool]`s to take
///     .limits(CallLimits::default().max_output_bytes(10_000))
///     .build()
///     .unwrap();
/// assert_eq!(registry.len(), 1);
/// assert_eq!(registry.call("desk_price", serde_json::json!({})).await.content(), 480);
/// # let _ = Arc::new(0);
/// # }
/// ```
#[must_use]
pub struct RegistryBuilder {
    limits: CallLimits,
    states: StateMap,
    /// The types registered with `tools_of`, whose methods are taken even without inventory.
    instances: Vec<TypeId>,
    use_inventory: bool,
    filter: Option<SpecFilter>,
    dynamic: Vec<DynamicTool>,
    missing: Missing,
    #[cfg(feature = "embeddings")]
    embeddings: Option<crate::discovery::Embeddings>,
}

impl RegistryBuilder {
    pub(super) fn new() -> Self {
        RegistryBuilder {
            limits: CallLimits::default(),
            states: StateMap::default(),
            instances: Vec::new(),
            use_inventory: true,
            filter: None,
            dynamic: Vec::new(),
            missing: Missing::default(),
            #[cfg(feature = "embeddings")]
            embeddings: None,
        }
    }

    /// Registers `value` for the tools that take `State<T>`.
    ///
    /// ```
    /// use lazytool_runtime::Registry;
    ///
    /// struct Db;
    /// // Registered once, read by every tool taking `State<Db>` (see the example on this type).
    /// let registry = Registry::builder().without_inventory().state(Db).build().unwrap();
    /// # let _ = registry;
    /// ```
    pub fn state<T: Any + Send + Sync>(self, value: T) -> Self {
        self.state_arc(Arc::new(value))
    }

    /// Registers an already shared value for the tools that take `State<T>`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lazytool_runtime::Registry;
    ///
    /// struct Db;
    /// let db = Arc::new(Db);
    /// // The application keeps its own handle; tools taking `State<Db>` share it.
    /// let registry = Registry::builder().without_inventory().state_arc(Arc::clone(&db)).build().unwrap();
    /// # let _ = registry;
    /// ```
    pub fn state_arc<T: Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.states.insert(value);
        self
    }

    /// Registers the instance the `#[tool]` methods of `T`'s `#[tools]` impl run on.
    ///
    /// Those methods are tools like any other (`filter` applies to them), also when the
    /// registry is built [`without_inventory`](Self::without_inventory). Building a registry
    /// that takes a method whose instance was never registered is an error
    /// ([`RegistryProblem::MissingInstance`](crate::RegistryProblem::MissingInstance)).
    ///
    /// ```rust,standalone_crate
    /// use std::sync::Arc;
    /// use lazytool_runtime::{tools, Registry};
    ///
    /// struct Shop {
    ///     currency: &'static str,
    /// }
    ///
    /// #[tools]
    /// impl Shop {
    ///     /// Formats a price in the shop's currency.
    ///     #[tool]
    ///     fn format_price(&self, cents: u32) -> String {
    ///         format!("{}.{:02} {}", cents / 100, cents % 100, self.currency)
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// assert!(Registry::from_inventory().is_err(), "no `Shop` registered");
    ///
    /// let registry = Registry::builder()
    ///     .tools_of(Arc::new(Shop { currency: "EUR" }))
    ///     .build()
    ///     .unwrap();
    /// let result = registry.call("format_price", serde_json::json!({"cents": 1250})).await;
    /// assert_eq!(result.content(), "12.50 EUR");
    /// # }
    /// ```
    pub fn tools_of<T: ToolMethods>(mut self, instance: Arc<T>) -> Self {
        self.states.insert(instance);
        self.instances.push(TypeId::of::<T>());
        self
    }

    /// Keeps only the `#[tool]`s for which `keep` returns true (by name, module, laziness).
    /// Tools left out need no state.
    ///
    /// ```
    /// use lazytool_runtime::Registry;
    ///
    /// // Only the `#[tool]`s of one module (of those linked into the binary).
    /// let registry = Registry::builder()
    ///     .filter(|spec| spec.module_path().starts_with("my_app::billing"))
    ///     .build()
    ///     .unwrap();
    /// assert!(registry.is_empty());
    /// ```
    pub fn filter(mut self, keep: impl Fn(&ToolSpec) -> bool + 'static) -> Self {
        self.filter = Some(Box::new(keep));
        self
    }

    /// Sets the limits every call obeys (argument size and depth, timeout, output size);
    /// see [`CallLimits`] for the defaults.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{CallLimits, DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let echo = DynamicTool::new("echo", "Echoes its text.", json!({"type": "object"}),
    ///     |arguments, _| async move { Ok::<_, String>(arguments["text"].clone()) });
    /// let limits = CallLimits::default().max_argument_bytes(64);
    /// let registry = Registry::builder().without_inventory().tool(echo).limits(limits).build().unwrap();
    /// let result = registry.call("echo", json!({"text": "x".repeat(100)})).await;
    /// assert!(result.is_error()); // refused before the tool runs
    /// # }
    /// ```
    pub fn limits(mut self, limits: CallLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Searches the lazy tools by meaning as well as by words (feature `embeddings`): their
    /// vectors are computed in the background from when the registry is built (see
    /// [`Registry::wait_for_embeddings`]), and [`Registry::search`] and search discovery fuse
    /// the nearest with the lexical ranking. See [`Embeddings`](crate::Embeddings).
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, Registry, TestEmbedder};
    ///
    /// let registry = Registry::builder()
    ///     .without_inventory()
    ///     .embeddings(Embeddings::new(TestEmbedder::new()))
    ///     .build()
    ///     .unwrap();
    /// assert!(registry.embeddings().is_some());
    /// ```
    #[cfg(feature = "embeddings")]
    pub fn embeddings(mut self, embeddings: crate::discovery::Embeddings) -> Self {
        self.embeddings = Some(embeddings);
        self
    }

    /// Leaves out every `#[tool]` of the binary: the registry holds only dynamic tools.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let noop = DynamicTool::new("noop", "Does nothing.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let registry = Registry::builder().without_inventory().tool(noop).build().unwrap();
    /// assert_eq!(registry.len(), 1); // whatever `#[tool]`s the binary holds
    /// ```
    pub fn without_inventory(mut self) -> Self {
        self.use_inventory = false;
        self
    }

    /// Adds a dynamic tool.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let noop = DynamicTool::new("noop", "Does nothing.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let registry = Registry::builder().without_inventory().tool(noop).build().unwrap();
    /// assert!(registry.get("noop").is_some());
    /// ```
    pub fn tool(mut self, tool: DynamicTool) -> Self {
        self.dynamic.push(tool);
        self
    }

    /// Adds dynamic tools.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tools = ["a", "b", "c"].map(|name| DynamicTool::new(name, "A tool.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) }).lazy(true));
    /// let registry = Registry::builder().without_inventory().tools(tools).build().unwrap();
    /// assert_eq!(registry.session().lazy_tool_names(), ["a", "b", "c"]);
    /// ```
    pub fn tools(mut self, tools: impl IntoIterator<Item = DynamicTool>) -> Self {
        self.dynamic.extend(tools);
        self
    }

    /// Adds a source the registry asks why a name it does not hold is missing (see
    /// `explain_missing`, in the source layer, which knows `ToolSource`).
    pub(crate) fn explained_by(mut self, source: Arc<dyn MissingSource>) -> Self {
        self.missing.push(source);
        self
    }

    /// Checks every tool and builds the registry; all problems are reported together.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = |name: &str| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let error = Registry::builder()
    ///     .without_inventory()
    ///     .tools([tool("search"), tool("search"), tool("bad name")])
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(error.problems().len(), 2); // both reported
    /// ```
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut problems = Vec::new();
        let mut tools = Vec::new();
        if self.use_inventory || !self.instances.is_empty() {
            for &Registration(spec) in inventory::iter::<Registration> {
                if self.takes(spec)
                    && let Some(tool) = self.generated(spec, &mut problems)
                {
                    tools.push(tool);
                }
            }
        }
        for dynamic in self.dynamic {
            if let Some(tool) = build_dynamic(dynamic, self.limits, &mut problems) {
                tools.push(tool);
            }
        }
        tools.sort_by(|a, b| {
            (a.name(), a.location().file(), a.location().line()).cmp(&(
                b.name(),
                b.location().file(),
                b.location().line(),
            ))
        });
        for pair in tools.windows(2) {
            if pair[0].name() == pair[1].name() {
                problems.push(RegistryProblem::DuplicateName {
                    name: pair[0].name().to_owned(),
                    first: pair[0].location().clone(),
                    second: pair[1].location().clone(),
                });
            }
        }
        if problems.is_empty() {
            Ok(Registry::new(
                tools,
                self.limits,
                self.missing,
                #[cfg(feature = "embeddings")]
                self.embeddings,
            ))
        } else {
            Err(RegistryError::new(problems))
        }
    }

    fn takes(&self, spec: &ToolSpec) -> bool {
        let registered_instance = || {
            spec.instance()
                .is_some_and(|instance| self.instances.contains(&instance.type_id()))
        };
        (self.use_inventory || registered_instance())
            && self.filter.as_ref().is_none_or(|keep| keep(spec))
    }

    fn generated(&self, spec: &ToolSpec, problems: &mut Vec<RegistryProblem>) -> Option<Tool> {
        let location = spec.location();
        let mut states = Vec::with_capacity(spec.states.len());
        let mut missing = false;
        for requirement in spec.states {
            let Some(requirement) = requirement else {
                states.push(None);
                continue;
            };
            match self.states.get(requirement) {
                Some(state) => states.push(Some(state)),
                None => {
                    missing = true;
                    let (tool, type_name, location) = (
                        spec.name.to_owned(),
                        requirement.type_name().to_owned(),
                        location.clone(),
                    );
                    problems.push(if requirement.is_instance() {
                        RegistryProblem::MissingInstance {
                            tool,
                            type_name,
                            location,
                        }
                    } else {
                        RegistryProblem::MissingState {
                            tool,
                            type_name,
                            location,
                        }
                    });
                }
            }
        }
        let schemas = match spec.cache.get_or_build(spec) {
            Ok(schemas) => schemas,
            Err(reason) => {
                problems.push(RegistryProblem::InvalidSchema {
                    tool: spec.name.to_owned(),
                    location,
                    reason,
                });
                return None;
            }
        };
        let examples = spec.examples.iter().map(|example| example());
        let examples = examples::checked(spec.name, &location, &schemas, examples, problems);
        (!missing && examples.len() == spec.examples.len()).then(|| {
            Tool::new(ToolInner {
                name: Arc::from(spec.name),
                description: Arc::from(spec.description),
                lazy: spec.lazy,
                metadata: ToolMetadata {
                    annotations: spec.annotations.clone(),
                    tags: spec.tags.iter().map(|tag| Cow::Borrowed(*tag)).collect(),
                    skill: spec.skill.map(Cow::Borrowed),
                    examples,
                },
                schemas,
                handler: Handler::Generated {
                    call: spec.call,
                    states: ResolvedStates::new(states),
                },
                location,
                limits: self.limits,
                definition: OnceLock::new(),
                fingerprint: OnceLock::new(),
            })
        })
    }
}

fn build_dynamic(
    tool: DynamicTool,
    limits: CallLimits,
    problems: &mut Vec<RegistryProblem>,
) -> Option<Tool> {
    if let Err(reason) = validate_tool_name(&tool.name) {
        problems.push(RegistryProblem::InvalidName {
            name: tool.name.to_string(),
            location: tool.location.clone(),
            reason,
        });
        return None;
    }
    match CompiledSchemas::build_deferred(tool.input_schema, tool.output_schema, tool.validation) {
        Ok(schemas) => {
            let mut metadata = tool.metadata;
            let given = std::mem::take(&mut metadata.examples);
            let count = given.len();
            let examples = given.into_iter().map(Ok);
            metadata.examples =
                examples::checked(&tool.name, &tool.location, &schemas, examples, problems);
            (metadata.examples.len() == count).then(|| {
                Tool::new(ToolInner {
                    name: tool.name,
                    description: tool.description,
                    lazy: tool.lazy,
                    metadata,
                    schemas,
                    handler: Handler::Dynamic(tool.handler),
                    location: tool.location,
                    limits,
                    definition: OnceLock::new(),
                    fingerprint: OnceLock::new(),
                })
            })
        }
        Err(reason) => {
            problems.push(RegistryProblem::InvalidSchema {
                tool: tool.name.to_string(),
                location: tool.location,
                reason,
            });
            None
        }
    }
}

#[cfg(all(test, not(feature = "json-schema")))]
mod tests {
    use serde_json::json;

    #[test]
    fn without_the_validator_a_dynamic_tool_is_refused_naming_the_feature() {
        let tool = crate::DynamicTool::new(
            "list",
            "Lists things.",
            json!({"type": "object"}),
            |_, _| async { Ok::<_, String>(json!([])) },
        );
        let error = crate::Registry::builder()
            .without_inventory()
            .tool(tool)
            .build()
            .expect_err("no validator for a dynamic tool");
        assert!(
            error.to_string().contains("feature `json-schema`"),
            "{error}"
        );
    }
}
