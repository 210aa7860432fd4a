//! Every tool of an application, collected and checked once: [`Registry`].

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;

use crate::context::ToolContext;
use crate::discovery::{DiscoveryListing, DiscoveryTool};
use crate::dynamic::DynamicTool;
use crate::error::{RegistryError, RegistryProblem};
use crate::limits::CallLimits;
use crate::mode::{LazyCosts, ResolvedMode, tools_tokens};
use crate::name::validate_tool_name;
use crate::result::ToolResult;
use crate::search::{SearchDocument, SearchIndex};
use crate::session::Presentation;
use crate::spec::{CompiledSchemas, Registration, ToolSpec};
use crate::state::{ResolvedStates, StateMap};
use crate::tool::{Handler, Tool, ToolInner, ToolMetadata};

/// Where a tool was declared.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    file: &'static str,
    line: u32,
    column: u32,
}

impl SourceLocation {
    pub(crate) fn new(file: &'static str, line: u32, column: u32) -> Self {
        SourceLocation { file, line, column }
    }

    /// The source file, as `file!()` gives it.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line, starting at 1.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The column, starting at 1.
    pub fn column(&self) -> u32 {
        self.column
    }
}

impl From<&'static std::panic::Location<'static>> for SourceLocation {
    fn from(location: &'static std::panic::Location<'static>) -> Self {
        SourceLocation::new(location.file(), location.line(), location.column())
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

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
    lazy_search: OnceLock<LazySearch>,
    lazy_costs: OnceLock<LazyCosts>,
    /// What ungated sessions share, per mode and listing, built by the first of them.
    presentations: Mutex<Vec<(PresentationKey, Arc<Presentation>)>>,
}

type PresentationKey = (ResolvedMode, DiscoveryListing);

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
    pub fn from_inventory() -> Result<Registry, RegistryError> {
        Registry::builder().build()
    }

    /// A builder for registries with states, a filter over the `#[tool]`s, or dynamic tools.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder {
            limits: CallLimits::default(),
            states: StateMap::default(),
            use_inventory: true,
            filter: None,
            dynamic: Vec::new(),
        }
    }

    /// The tools, in name order (byte order).
    pub fn tools(&self) -> std::slice::Iter<'_, Tool> {
        self.0.tools.iter()
    }

    /// The tool named `name`.
    #[inline]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        let tools = &self.0.tools;
        tools
            .binary_search_by(|tool| tool.name().cmp(name))
            .ok()
            .map(|index| &tools[index])
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.0.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.0.tools.is_empty()
    }

    /// Calls the tool named `name` with `arguments`, without discovery gating. Every
    /// failure is an error result, never a panic: see [`Tool::call`].
    #[inline]
    pub fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        self.call_with_context(name, arguments, ToolContext::new())
    }

    /// Like [`Registry::call`], with the call's id and cancellation token.
    pub fn call_with_context(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        let admitted = match self.get(name) {
            Some(tool) => tool.admit(arguments, context),
            None => Err(ToolResult::unknown_tool(name, self.tools().map(Tool::name))),
        };
        crate::tool::run(admitted)
    }
}

impl Registry {
    /// The lazy tools best matching `query`, best first, at most `limit`: the ranking search
    /// discovery uses (BM25 over names split into words, descriptions, parameter names and
    /// descriptions, and tags). The index is built on the first search and kept.
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
        let search =
            self.0.lazy_search.get_or_init(|| {
                let positions: Vec<usize> =
                    (0..tools.len()).filter(|&i| tools[i].is_lazy()).collect();
                let tags: Vec<Vec<&str>> = positions
                    .iter()
                    .map(|&i| tools[i].tags().collect())
                    .collect();
                let index = SearchIndex::new(positions.iter().zip(&tags).map(|(&i, tags)| {
                    SearchDocument {
                        name: tools[i].name(),
                        description: tools[i].description(),
                        input_schema: tools[i].input_schema(),
                        tags,
                    }
                }));
                LazySearch { index, positions }
            });
        // Gated-out tools are filtered after ranking, so ask for every match when gating.
        search
            .index
            .search(query, search.positions.len())
            .into_iter()
            .filter_map(|hit| search.positions.get(hit).map(|&position| &tools[position]))
            .filter(|tool| allowed(tool))
            .take(limit)
            .collect()
    }

    /// The presentation of the lazy tools that ungated sessions in `mode` with `listing`
    /// share, built with `build` the first time.
    pub(crate) fn presentation(
        &self,
        mode: ResolvedMode,
        listing: DiscoveryListing,
        build: impl FnOnce() -> Presentation,
    ) -> Arc<Presentation> {
        // A panic while holding the lock cannot leave the list half-written: recover it.
        let mut presentations = self
            .0
            .presentations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = (mode, listing);
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

type SpecFilter = Box<dyn Fn(&ToolSpec) -> bool>;

/// Builds a [`Registry`]: states for `State<T>` parameters, which `#[tool]`s to take, and
/// dynamic tools. Start with [`Registry::builder`].
#[must_use]
pub struct RegistryBuilder {
    limits: CallLimits,
    states: StateMap,
    use_inventory: bool,
    filter: Option<SpecFilter>,
    dynamic: Vec<DynamicTool>,
}

impl RegistryBuilder {
    /// Registers `value` for the tools that take `State<T>`.
    pub fn state<T: Any + Send + Sync>(self, value: T) -> Self {
        self.state_arc(Arc::new(value))
    }

    /// Registers an already shared value for the tools that take `State<T>`.
    pub fn state_arc<T: Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.states.insert(value);
        self
    }

    /// Keeps only the `#[tool]`s for which `keep` returns true (by name, module, laziness).
    /// Tools left out need no state.
    pub fn filter(mut self, keep: impl Fn(&ToolSpec) -> bool + 'static) -> Self {
        self.filter = Some(Box::new(keep));
        self
    }

    /// Sets the limits every call obeys (argument size and depth, timeout, output size);
    /// see [`CallLimits`] for the defaults.
    pub fn limits(mut self, limits: CallLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Leaves out every `#[tool]` of the binary: the registry holds only dynamic tools.
    pub fn without_inventory(mut self) -> Self {
        self.use_inventory = false;
        self
    }

    /// Adds a dynamic tool.
    pub fn tool(mut self, tool: DynamicTool) -> Self {
        self.dynamic.push(tool);
        self
    }

    /// Adds dynamic tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = DynamicTool>) -> Self {
        self.dynamic.extend(tools);
        self
    }

    /// Checks every tool and builds the registry; all problems are reported together.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut problems = Vec::new();
        let mut tools = Vec::new();
        if self.use_inventory {
            for &Registration(spec) in inventory::iter::<Registration> {
                if self.filter.as_ref().is_none_or(|keep| keep(spec))
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
            Ok(Registry(Arc::new(RegistryInner {
                tools,
                lazy_search: OnceLock::new(),
                lazy_costs: OnceLock::new(),
                presentations: Mutex::new(Vec::new()),
            })))
        } else {
            Err(RegistryError::new(problems))
        }
    }

    fn generated(&self, spec: &ToolSpec, problems: &mut Vec<RegistryProblem>) -> Option<Tool> {
        let location = spec.location();
        let mut states = Vec::with_capacity(spec.states.len());
        for requirement in spec.states {
            match self.states.get(requirement) {
                Some(state) => states.push(state),
                None => problems.push(RegistryProblem::MissingState {
                    tool: spec.name.to_owned(),
                    type_name: requirement.type_name().to_owned(),
                    location: location.clone(),
                }),
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
        (states.len() == spec.states.len()).then(|| {
            Tool::new(ToolInner {
                name: Arc::from(spec.name),
                description: Arc::from(spec.description),
                lazy: spec.lazy,
                metadata: ToolMetadata {
                    annotations: spec.annotations.clone(),
                    tags: spec.tags.iter().map(|tag| Cow::Borrowed(*tag)).collect(),
                    skill: spec.skill.map(Cow::Borrowed),
                },
                schemas,
                handler: Handler::Generated {
                    call: spec.call,
                    states: ResolvedStates::new(states),
                },
                location,
                limits: self.limits,
                definition: OnceLock::new(),
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
    match CompiledSchemas::build_deferred(tool.input_schema, tool.output_schema) {
        Ok(schemas) => Some(Tool::new(ToolInner {
            name: tool.name,
            description: tool.description,
            lazy: tool.lazy,
            metadata: tool.metadata,
            schemas,
            handler: Handler::Dynamic(tool.handler),
            location: tool.location,
            limits,
            definition: OnceLock::new(),
        })),
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
