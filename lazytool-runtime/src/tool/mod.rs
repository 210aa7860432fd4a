//! What a tool is: [`Tool`] (name, description, schemas, metadata, how it is run), and the
//! pieces it is built from — [`ToolSpec`]s registered by `#[tool]`, [`DynamicTool`]s built
//! at run time, [`State`]s, names, annotations and definitions.
//!
//! Calling a tool is [`dispatch`](crate::dispatch)'s work; this layer holds data only.

mod annotations;
mod argument_check;
mod argument_schema;
mod argument_validation;
mod catalog;
mod definition;
mod definition_size;
mod dynamic;
mod example_filler;
mod fingerprint;
#[cfg(feature = "json-schema")]
mod json_schema_check;
mod location;
mod name;
mod schema_error;
mod schemas;
mod spec;
mod state;
mod typed_check;
mod validation_choice;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub use annotations::ToolAnnotations;
pub(crate) use argument_check::ArgumentCheck;
// For the validator's tests: how long one reported violation may be.
#[cfg(all(test, feature = "json-schema"))]
pub(crate) use argument_check::MAX_VIOLATION_BYTES;
pub use argument_schema::{ArgumentProperty, arguments_schema};
pub use argument_validation::ArgumentValidation;
pub use catalog::{CatalogError, CatalogReader, catalog_tools};
pub use definition::ToolDefinition;
pub use definition_size::DEFAULT_MAX_DEFINITION_BYTES;
pub(crate) use definition_size::serialized_size;
pub use dynamic::DynamicTool;
pub(crate) use example_filler::Filler;
pub(crate) use fingerprint::DiscoveryEntry;
pub use location::SourceLocation;
pub use name::{
    CALL_THROUGH_TOOL_NAME, DISCOVERY_TOOL_NAME, MAX_TOOL_NAME_LEN, ToolNameError,
    validate_tool_name,
};
pub use schema_error::SchemaError;
pub(crate) use schemas::CompiledSchemas;
pub use spec::{CallFuture, Invocation, Registration, SpecCache, ToolMethods, ToolSpec};
pub(crate) use state::StateMap;
pub use state::{ResolvedStates, State, StateRequirement};
pub use validation_choice::{
    Probe, SchemaValidation, TypedArgument, TypedValidation, validation_of,
};

use crate::call::{CallLimits, ToolContext, ToolResult};

/// A tool of a [`Registry`](crate::Registry): its name, description, schemas, and how to
/// call it. Cheap to clone (an `Arc` inside).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::{DynamicTool, Registry, ToolContext};
/// use serde_json::json;
///
/// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) });
/// let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
/// let tool = registry.get("get_forecast").unwrap();
/// assert_eq!(tool.input_schema()["required"], json!(["city"]));
/// assert_eq!(tool.call(json!({"city": "Paris"}), ToolContext::new()).await.content(), "sunny");
/// # }
/// ```
#[derive(Clone)]
pub struct Tool(Arc<ToolInner>);

pub(crate) struct ToolInner {
    pub(crate) name: Arc<str>,
    pub(crate) description: Arc<str>,
    pub(crate) lazy: bool,
    pub(crate) metadata: ToolMetadata,
    pub(crate) schemas: CompiledSchemas,
    pub(crate) handler: Handler,
    pub(crate) location: SourceLocation,
    pub(crate) limits: CallLimits,
    /// The definition requests carry, built the first time one does and shared from then on.
    pub(crate) definition: OnceLock<Arc<ToolDefinition>>,
    /// [`Tool::fingerprint`], computed the first time it is asked for.
    pub(crate) fingerprint: OnceLock<String>,
}

/// What a tool declares besides its name, description and schemas.
#[derive(Clone, Default)]
pub(crate) struct ToolMetadata {
    pub(crate) annotations: ToolAnnotations,
    pub(crate) tags: Vec<Cow<'static, str>>,
    pub(crate) skill: Option<Cow<'static, str>>,
    /// Example arguments, valid against the input schema once the tool is in a registry.
    pub(crate) examples: Vec<Value>,
}

pub(crate) type DynamicHandler = Arc<dyn Fn(Value, ToolContext) -> CallFuture + Send + Sync>;

/// How a tool's work is started once its arguments are admitted.
pub(crate) enum Handler {
    Generated {
        call: fn(Invocation<'_>) -> Result<CallFuture, ToolResult>,
        states: ResolvedStates,
    },
    Dynamic(DynamicHandler),
}

impl Tool {
    pub(crate) fn new(inner: ToolInner) -> Self {
        Tool(Arc::new(inner))
    }

    pub(crate) fn inner(&self) -> &ToolInner {
        &self.0
    }

    /// The name the model calls the tool by.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.name(), "get_forecast");
    /// ```
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// What the tool does, as the model reads it.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.description(), "Tomorrow's weather in a city.");
    /// ```
    pub fn description(&self) -> &str {
        &self.0.description
    }

    /// Whether the tool is lazy: listed by the discovery tool rather than sent up front.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert!(tool.is_lazy());
    /// ```
    pub fn is_lazy(&self) -> bool {
        self.0.lazy
    }

    /// Whether the tool's function takes nothing but its arguments: a `#[tool]` without a
    /// [`ToolContext`](crate::ToolContext), a [`State`](crate::State) or an instance. Such a
    /// tool sees nothing of its call besides the arguments, so a server may call it without
    /// building what a context would carry (who calls, how to ask the client for input).
    /// A [`DynamicTool`] is always handed its context: never.
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{Registry, ToolContext, tool};
    ///
    /// /// Adds two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// /// Says which call this is.
    /// #[tool]
    /// fn which(context: ToolContext) -> String {
    ///     context.call_id().unwrap_or("none").to_owned()
    /// }
    ///
    /// let registry = Registry::from_inventory().unwrap();
    /// assert!(registry.get("add").unwrap().takes_only_arguments());
    /// assert!(!registry.get("which").unwrap().takes_only_arguments());
    /// ```
    pub fn takes_only_arguments(&self) -> bool {
        match &self.0.handler {
            Handler::Generated { states, .. } => states.is_empty(),
            Handler::Dynamic(_) => false,
        }
    }

    /// Hints about the tool's behaviour for MCP clients.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.annotations().read_only, Some(true));
    /// ```
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.0.metadata.annotations
    }

    /// Keywords that help search discovery find the tool (`#[tool(tags = [...])]`).
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.tags().collect::<Vec<_>>(), ["rain"]);
    /// ```
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.0.metadata.tags.iter().map(|tag| &**tag)
    }

    /// Extended instructions sent to the model only when it discovers the tool
    /// (`#[tool(skill = "...")]` or a `# Skill` section of the fn's docs).
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.skill(), Some("Cities are English names."));
    /// ```
    pub fn skill(&self) -> Option<&str> {
        self.0.metadata.skill.as_deref()
    }

    /// Example arguments of the tool (`#[tool(example(...))]`, [`DynamicTool::examples`]),
    /// each valid against [`input_schema`](Tool::input_schema).
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{Registry, tool};
    /// use serde_json::json;
    ///
    /// /// Tomorrow's weather in a city.
    /// #[tool(example(city = "Paris", days = 3), example(city = "Oslo"))]
    /// async fn get_forecast(city: String, days: Option<u32>) -> String {
    ///     format!("sunny in {city} for {} days", days.unwrap_or(1))
    /// }
    ///
    /// let registry = Registry::from_inventory().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.examples(), [json!({"city": "Paris", "days": 3}), json!({"city": "Oslo"})]);
    /// ```
    pub fn examples(&self) -> &[Value] {
        &self.0.metadata.examples
    }

    /// The canonical JSON Schema of the tool's arguments (an object schema without
    /// `$schema` or a root `title`, `$ref`s inlined unless recursive, `required` listing
    /// exactly the parameters that are neither `Option` nor defaulted).
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.input_schema()["properties"]["city"]["type"], "string");
    /// ```
    pub fn input_schema(&self) -> &Value {
        &self.0.schemas.input
    }

    /// The input schema as the tool declared it: a dynamic tool's schema as given (`$schema`,
    /// `$defs`, `$ref`, `$anchor`, composition and conditional keywords kept), the canonical
    /// [`input_schema`](Tool::input_schema) where the two are the same (a `#[tool]`'s). MCP
    /// sends this one (SEP-2106); validation and the providers' renderings use the canonical
    /// one.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// let schema = json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "$defs": {"city": {"type": "string"}},
    ///     "properties": {"city": {"$ref": "#/$defs/city"}},
    /// });
    /// let tool = DynamicTool::new("forecast", "The weather.", schema.clone(), |_, _| async { Ok::<_, String>(json!("sun")) });
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let tool = registry.get("forecast").unwrap();
    /// assert_eq!(tool.declared_input_schema(), &schema);
    /// assert_eq!(tool.input_schema()["properties"]["city"], json!({"type": "string"}));
    /// ```
    pub fn declared_input_schema(&self) -> &Value {
        self.0
            .schemas
            .declared
            .as_deref()
            .unwrap_or(&self.0.schemas.input)
    }

    /// The JSON Schema of the tool's successful output, for tools declared with
    /// `#[tool(output_schema)]` or dynamic tools given one.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.output_schema().unwrap()["properties"]["sky"]["type"], "string");
    /// ```
    pub fn output_schema(&self) -> Option<&Value> {
        self.0.schemas.output.as_deref()
    }

    /// The tool as a request carries it: name, description, input schema (its
    /// [`examples`](Tool::examples), if any, in the schema's `examples` keyword).
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// let definition = tool.definition();
    /// assert_eq!((definition.name.as_str(), &definition.input_schema), ("get_forecast", tool.input_schema()));
    /// ```
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition::clone(&self.shared_definition())
    }

    /// [`definition`](Tool::definition), built once and shared: what a request carries of
    /// this tool, without copying its schema on every request.
    pub(crate) fn shared_definition(&self) -> Arc<ToolDefinition> {
        let definition = self.0.definition.get_or_init(|| {
            let mut input_schema = self.input_schema().clone();
            if let (Value::Object(schema), false) = (&mut input_schema, self.examples().is_empty())
            {
                schema.insert("examples".to_owned(), Value::from(self.examples().to_vec()));
            }
            Arc::new(ToolDefinition {
                name: self.name().to_owned(),
                description: self.description().to_owned(),
                input_schema,
            })
        });
        Arc::clone(definition)
    }

    /// A fingerprint of what the model reads of this tool: 32 hex digits of the SHA-256 of its
    /// discovery entry (name, description, input schema, skill) as compact JSON. Computed
    /// once per tool, so once per catalog. Stateless discovery results carry it, and the
    /// call-through tool refuses a call that brings back another one.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// let tool = |description: &str| DynamicTool::new("report", description.to_owned(),
    ///     json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!("ok")) });
    /// let first = Registry::builder().without_inventory().tool(tool("Builds a report.")).build().unwrap();
    /// let again = Registry::builder().without_inventory().tool(tool("Builds a report.")).build().unwrap();
    /// let other = Registry::builder().without_inventory().tool(tool("Builds a report. Mail it.")).build().unwrap();
    /// let fingerprint = |registry: &Registry| registry.get("report").unwrap().fingerprint().to_owned();
    /// assert_eq!(fingerprint(&first).len(), 32);
    /// assert_eq!(fingerprint(&first), fingerprint(&again));
    /// assert_ne!(fingerprint(&first), fingerprint(&other));
    /// ```
    pub fn fingerprint(&self) -> &str {
        self.0
            .fingerprint
            .get_or_init(|| fingerprint::fingerprint(self))
    }

    /// Where the tool was declared: the `#[tool]` function, or the call that built a
    /// [`DynamicTool`].
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert!(tool.location().file().ends_with(".rs")); // where `DynamicTool::new` was called
    /// ```
    pub fn location(&self) -> &SourceLocation {
        &self.0.location
    }

    /// The limits every call of this tool obeys.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// #     |_, _| async { Ok::<_, String>(json!({"sky": "sunny"})) })
    /// #     .lazy(true)
    /// #     .tags(["rain"])
    /// #     .skill("Cities are English names.")
    /// #     .output_schema(json!({"type": "object", "properties": {"sky": {"type": "string"}}}))
    /// #     .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() });
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let tool = registry.get("get_forecast").unwrap();
    /// assert_eq!(tool.limits(), registry.limits()); // the registry's limits
    /// ```
    pub fn limits(&self) -> &CallLimits {
        &self.0.limits
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .field("lazy", &self.is_lazy())
            .field("location", self.location())
            .finish_non_exhaustive()
    }
}
