//! Tools defined at run time from a prebuilt JSON Schema: [`DynamicTool`].

use std::borrow::Cow;
use std::fmt::Display;
use std::panic::Location;
use std::sync::Arc;

use serde_json::Value;

use super::{ArgumentValidation, DynamicHandler, SourceLocation, ToolAnnotations, ToolMetadata};
use crate::call::{ToolContext, ToolErrorKind, ToolResult};

/// A tool whose schema already exists as JSON — a tool of an MCP server or an OpenAPI
/// operation being bridged, a catalog loaded from a file — with an async closure that runs
/// it. Add it with [`RegistryBuilder::tool`](crate::RegistryBuilder::tool).
///
/// The arguments are validated against `input_schema` before the closure runs, exactly as
/// for `#[tool]` functions; the closure receives them as a JSON object.
///
/// ```
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::{json, Value};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let echo = DynamicTool::new(
///     "echo",
///     "Returns its input.",
///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     |arguments: Value, _context| async move { Ok::<_, String>(arguments["text"].clone()) },
/// )
/// .lazy(true);
/// let registry = Registry::builder().without_inventory().tool(echo).build().unwrap();
/// let result = registry.call("echo", json!({"text": "hi"})).await;
/// assert_eq!(result.content(), "hi");
/// # }
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    pub(crate) name: Arc<str>,
    pub(crate) description: Arc<str>,
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) lazy: bool,
    pub(crate) metadata: ToolMetadata,
    pub(crate) handler: DynamicHandler,
    pub(crate) location: SourceLocation,
    /// Named here, in a generic function, so that only a binary making dynamic tools links
    /// the JSON Schema validator.
    pub(crate) validation: ArgumentValidation,
}

impl DynamicTool {
    /// A tool named `name` described by `description`, taking arguments that match
    /// `input_schema`, run by `handler`. The handler's `Ok` is a JSON `Value`, a
    /// [`Content`](crate::Content) (images, audio, resources) or a [`ToolResult`]; an `Err`
    /// becomes an error result whose message is the error's `Display` text.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{DynamicTool, Registry, ToolErrorKind};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    /// let half = DynamicTool::new("half", "Halves an even number.", schema, |arguments, _| async move {
    ///     match arguments["n"].as_i64() {
    ///         Some(n) if n % 2 == 0 => Ok(json!(n / 2)),
    ///         _ => Err("an even number, please"),
    ///     }
    /// });
    /// let registry = Registry::builder().without_inventory().tool(half).build().unwrap();
    /// assert_eq!(registry.call("half", json!({"n": 8})).await.content(), 4);
    /// let odd = registry.call("half", json!({"n": 7})).await;
    /// assert_eq!((odd.error_kind(), odd.text().as_str()), (Some(ToolErrorKind::ToolFailed), "an even number, please"));
    /// # }
    /// ```
    ///
    /// ```
    /// use lazytool_runtime::{Content, ContentPart, DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let snapshot = DynamicTool::new("snapshot", "Takes a screenshot.", json!({"type": "object"}), |_, _| async {
    ///     Ok::<_, String>(Content::new([ContentPart::image("iVBORw0KGgo=", "image/png")]))
    /// });
    /// let registry = Registry::builder().without_inventory().tool(snapshot).build().unwrap();
    /// let result = registry.call("snapshot", json!({})).await;
    /// assert_eq!(result.parts(), [ContentPart::image("iVBORw0KGgo=", "image/png")]);
    /// # }
    /// ```
    #[track_caller]
    pub fn new<F, Fut, O, E>(
        name: impl Into<Arc<str>>,
        description: impl Into<Arc<str>>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, E>> + Send + 'static,
        O: Into<ToolResult>,
        E: Display,
    {
        let handler = Arc::new(handler);
        let handler: DynamicHandler = Arc::new(move |arguments, context| {
            let handler = Arc::clone(&handler);
            // The handler itself runs inside the future, where its panics are caught.
            Box::pin(async move {
                match handler(arguments, context).await {
                    Ok(output) => output.into(),
                    Err(error) => ToolResult::error(ToolErrorKind::ToolFailed, error.to_string()),
                }
            })
        });
        DynamicTool {
            name: name.into(),
            description: description.into(),
            input_schema,
            output_schema: None,
            lazy: false,
            metadata: ToolMetadata::default(),
            handler,
            location: SourceLocation::from(Location::caller()),
            validation: ArgumentValidation::JSON_SCHEMA,
        }
    }

    /// Marks the tool lazy (listed by the discovery tool instead of sent up front).
    ///
    /// ```
    /// use lazytool_runtime::DynamicTool;
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) });
    /// assert!(tool.lazy(true).is_lazy());
    /// ```
    pub fn lazy(mut self, lazy: bool) -> Self {
        self.lazy = lazy;
        self
    }

    /// Sets hints about the tool's behaviour for MCP clients.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry, ToolAnnotations};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("delete_repo", "Deletes a repository.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("deleted")) })
    ///     .annotations(ToolAnnotations { destructive: Some(true), ..ToolAnnotations::default() });
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// assert_eq!(registry.get("delete_repo").unwrap().annotations().destructive, Some(true));
    /// ```
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.metadata.annotations = annotations;
        self
    }

    /// Sets keywords that help search discovery find the tool.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true).tags(["rain", "umbrella"]);
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// assert_eq!(registry.search("umbrella", 1)[0].name(), "get_forecast");
    /// ```
    pub fn tags<T: Into<Cow<'static, str>>>(mut self, tags: impl IntoIterator<Item = T>) -> Self {
        self.metadata.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets extended instructions sent to the model only when it discovers the tool.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("run_sql", "Runs a read-only SQL query.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!([])) })
    ///     .skill("Tables: orders(id, total), customers(id, name). Always add a LIMIT.");
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// assert!(registry.get("run_sql").unwrap().skill().unwrap().starts_with("Tables"));
    /// ```
    pub fn skill(mut self, skill: impl Into<Cow<'static, str>>) -> Self {
        self.metadata.skill = Some(skill.into());
        self
    }

    /// Declares the JSON Schema of the tool's successful output.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_price", "A price.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!({"cents": 1250})) })
    ///     .output_schema(json!({"type": "object", "properties": {"cents": {"type": "integer"}}}));
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// assert_eq!(registry.get("get_price").unwrap().output_schema().unwrap()["type"], "object");
    /// ```
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets example arguments, shown to the model with the tool: Anthropic's `input_examples`,
    /// a line of the description in the other formats. Each must be valid arguments of the
    /// tool: [`build`](crate::RegistryBuilder::build) checks them against `input_schema`
    /// and reports one that is not as
    /// [`RegistryProblem::InvalidExample`](crate::RegistryProblem::InvalidExample), with its
    /// index.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry, RegistryProblem};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {"city": {"type": "string", "minLength": 2}},
    ///     "required": ["city"]});
    /// let forecast = |examples: Vec<serde_json::Value>| {
    ///     DynamicTool::new("get_forecast", "Tomorrow's weather.", schema.clone(),
    ///         |_, _| async { Ok::<_, String>(json!("sunny")) })
    ///     .examples(examples)
    /// };
    /// let registry = Registry::builder().without_inventory()
    ///     .tool(forecast(vec![json!({"city": "Paris"})])).build().unwrap();
    /// assert_eq!(registry.get("get_forecast").unwrap().examples(), [json!({"city": "Paris"})]);
    ///
    /// let error = Registry::builder().without_inventory()
    ///     .tool(forecast(vec![json!({"city": "Oslo"}), json!({"city": "X"})])).build().unwrap_err();
    /// assert!(matches!(&error.problems()[0], RegistryProblem::InvalidExample { index: 1, .. }));
    /// ```
    pub fn examples(mut self, examples: impl IntoIterator<Item = Value>) -> Self {
        self.metadata.examples = examples.into_iter().collect();
        self
    }

    /// The tool's name.
    ///
    /// ```
    /// use lazytool_runtime::DynamicTool;
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) });
    /// assert_eq!(tool.name(), "get_forecast");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's description.
    ///
    /// ```
    /// use lazytool_runtime::DynamicTool;
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) });
    /// assert_eq!(tool.description(), "Tomorrow's weather.");
    /// ```
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether the tool is lazy.
    ///
    /// ```
    /// use lazytool_runtime::DynamicTool;
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) });
    /// assert!(!tool.is_lazy()); // eager unless marked
    /// ```
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }
}

impl std::fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.name)
            .field("lazy", &self.lazy)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}
