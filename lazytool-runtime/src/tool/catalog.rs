//! Tool catalogs written as data: the shape of an MCP `tools/list` result, as another MCP
//! server or a catalog file lists its tools.

use std::fmt::{self, Display};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{DEFAULT_MAX_DEFINITION_BYTES, DynamicTool, ToolAnnotations};
use crate::call::{ToolContext, ToolResult};

/// Reads the tools of a catalog shaped like an MCP `tools/list` result —
/// `{"tools": [{"name", "description"?, "inputSchema", "outputSchema"?, "title"?,
/// "annotations"?, "inputExamples"?}]}`, or that array alone — as [`DynamicTool`]s, in catalog order, every one
/// run by `handler(name, arguments, context)` (a proxy forwards the call to where the catalog
/// came from). Annotations (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`,
/// `openWorldHint`) are kept, and so are `inputExamples`, an array of example arguments
/// ([`DynamicTool::examples`], checked against the schema when the registry is built); other
/// members are ignored. Mark the tools lazy with
/// [`DynamicTool::lazy`] before handing them to
/// [`RegistryBuilder::tools`](crate::RegistryBuilder::tools), which checks their names and
/// schemas.
///
/// Every entry that cannot be read is reported, not just the first; so is every tool whose
/// definition is over [`DEFAULT_MAX_DEFINITION_BYTES`] (64 KiB, measured as
/// [`DynamicTool::definition_bytes`] says). [`CatalogReader`] sets another bound, and reads
/// the entries it can while reporting the others.
///
/// ```
/// use lazytool_runtime::{Registry, catalog_tools};
/// use serde_json::{Value, json};
///
/// let catalog = json!({"tools": [
///     {"name": "get_me", "description": "Who am I?", "inputSchema": {"type": "object"}}
/// ]});
/// let tools = catalog_tools(&catalog, |name, _arguments: Value, _context| async move {
///     Ok::<_, String>(json!({"called": &*name}))
/// })?;
/// let registry = Registry::builder()
///     .without_inventory()
///     .tools(tools.into_iter().map(|tool| tool.lazy(true)))
///     .build()?;
/// assert_eq!(registry.get("get_me").map(|tool| tool.is_lazy()), Some(true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[track_caller]
pub fn catalog_tools<F, Fut, O, E>(
    catalog: &Value,
    handler: F,
) -> Result<Vec<DynamicTool>, CatalogError>
where
    F: Fn(Arc<str>, Value, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, E>> + Send + 'static,
    O: Into<ToolResult>,
    E: Display,
{
    CatalogReader::new().read(catalog, handler)
}

/// How [`catalog_tools`] reads a catalog, with the bound on one tool's definition set:
/// [`read`](CatalogReader::read) fails on any entry it cannot read or that is over the
/// bound, [`read_partial`](CatalogReader::read_partial) keeps the others.
///
/// ```
/// use lazytool_runtime::CatalogReader;
/// use serde_json::{Value, json};
///
/// let wide: serde_json::Map<String, Value> = (0..100)
///     .map(|n| (format!("p{n}"), json!({"type": "string", "description": "x".repeat(100)})))
///     .collect();
/// let catalog = json!([
///     {"name": "small", "inputSchema": {"type": "object"}},
///     {"name": "wide", "inputSchema": {"type": "object", "properties": wide}},
/// ]);
/// let reader = CatalogReader::new().max_definition_bytes(4 * 1024);
/// let (tools, error) = reader.read_partial(&catalog, |_, _: Value, _| async { Ok::<_, String>(json!(null)) });
/// assert_eq!(tools.iter().map(|tool| tool.name()).collect::<Vec<_>>(), ["small"]);
/// assert_eq!(
///     error.unwrap().problems(),
///     ["tool 1: `wide`: its definition is 14,169 bytes, over the bound of 4,096 bytes"]
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogReader {
    max_definition_bytes: usize,
}

impl Default for CatalogReader {
    fn default() -> Self {
        CatalogReader::new()
    }
}

impl CatalogReader {
    /// A reader with the bound at [`DEFAULT_MAX_DEFINITION_BYTES`].
    ///
    /// ```
    /// use lazytool_runtime::CatalogReader;
    ///
    /// assert_eq!(CatalogReader::new(), CatalogReader::default());
    /// ```
    pub fn new() -> Self {
        CatalogReader {
            max_definition_bytes: DEFAULT_MAX_DEFINITION_BYTES,
        }
    }

    /// The largest definition a tool may have, in bytes, measured as
    /// [`DynamicTool::definition_bytes`] says. Default: [`DEFAULT_MAX_DEFINITION_BYTES`]
    /// (64 KiB); `usize::MAX` takes any.
    ///
    /// ```
    /// use lazytool_runtime::CatalogReader;
    /// use serde_json::{Value, json};
    ///
    /// let catalog = json!([{"name": "get_me", "description": "Who am I?", "inputSchema": {"type": "object"}}]);
    /// let handler = |_, _: Value, _| async { Ok::<_, String>(json!(null)) };
    /// let error = CatalogReader::new().max_definition_bytes(40).read(&catalog, handler).unwrap_err();
    /// assert_eq!(error.to_string(), "invalid tool catalog: tool 0: `get_me`: its definition is 75 bytes, over the bound of 40 bytes");
    /// ```
    pub fn max_definition_bytes(mut self, bytes: usize) -> Self {
        self.max_definition_bytes = bytes;
        self
    }

    /// Every tool of `catalog` (shaped as [`catalog_tools`] says), each run by `handler`;
    /// an error naming every entry that cannot be read or is over the bound.
    ///
    /// ```
    /// use lazytool_runtime::CatalogReader;
    /// use serde_json::{Value, json};
    ///
    /// let catalog = json!([{"name": "get_me", "inputSchema": {"type": "object"}}]);
    /// let tools = CatalogReader::new().read(&catalog, |_, _: Value, _| async { Ok::<_, String>(json!(null)) })?;
    /// assert_eq!(tools[0].name(), "get_me");
    /// # Ok::<(), lazytool_runtime::CatalogError>(())
    /// ```
    #[track_caller]
    pub fn read<F, Fut, O, E>(
        &self,
        catalog: &Value,
        handler: F,
    ) -> Result<Vec<DynamicTool>, CatalogError>
    where
        F: Fn(Arc<str>, Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, E>> + Send + 'static,
        O: Into<ToolResult>,
        E: Display,
    {
        match self.read_partial(catalog, handler) {
            (tools, None) => Ok(tools),
            (_, Some(error)) => Err(error),
        }
    }

    /// The tools of `catalog` that can be read and are within the bound, in catalog order,
    /// and the error naming the others, if any: a catalog with one unusable entry still
    /// serves the rest.
    ///
    /// ```
    /// use lazytool_runtime::CatalogReader;
    /// use serde_json::{Value, json};
    ///
    /// let catalog = json!([{"name": "get_me", "inputSchema": {"type": "object"}}, {"name": "schemaless"}]);
    /// let (tools, error) = CatalogReader::new().read_partial(&catalog, |_, _: Value, _| async { Ok::<_, String>(json!(null)) });
    /// assert_eq!(tools.len(), 1);
    /// assert_eq!(error.unwrap().problems(), ["tool 1: `schemaless`: `inputSchema` is missing"]);
    /// ```
    #[track_caller]
    pub fn read_partial<F, Fut, O, E>(
        &self,
        catalog: &Value,
        handler: F,
    ) -> (Vec<DynamicTool>, Option<CatalogError>)
    where
        F: Fn(Arc<str>, Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, E>> + Send + 'static,
        O: Into<ToolResult>,
        E: Display,
    {
        let entries = match catalog {
            Value::Array(entries) => entries,
            Value::Object(object) => match object.get("tools") {
                Some(Value::Array(entries)) => entries,
                _ => {
                    return (
                        Vec::new(),
                        Some(CatalogError::one("the catalog has no `tools` array")),
                    );
                }
            },
            _ => {
                let problem = "a catalog is an object with a `tools` array, or that array";
                return (Vec::new(), Some(CatalogError::one(problem)));
            }
        };
        let handler = Arc::new(handler);
        let mut tools = Vec::with_capacity(entries.len());
        let mut problems = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            let entry = match read_entry(entry) {
                Ok(entry) => entry,
                Err(problem) => {
                    problems.push(format!("tool {index}: {problem}"));
                    continue;
                }
            };
            let name: Arc<str> = entry.name.into();
            let handler = Arc::clone(&handler);
            let called = Arc::clone(&name);
            let mut tool = DynamicTool::new(
                Arc::clone(&name),
                entry.description,
                entry.input_schema,
                move |arguments, context| handler(Arc::clone(&called), arguments, context),
            );
            if let Some(schema) = entry.output_schema {
                tool = tool.output_schema(schema);
            }
            if !entry.annotations.is_empty() {
                tool = tool.annotations(entry.annotations);
            }
            if !entry.examples.is_empty() {
                tool = tool.examples(entry.examples);
            }
            if let Some(why) = tool.oversized(self.max_definition_bytes) {
                problems.push(format!("tool {index}: `{name}`: {why}"));
                continue;
            }
            tools.push(tool);
        }
        let error = (!problems.is_empty()).then(|| CatalogError::new(problems));
        (tools, error)
    }
}

/// One catalog entry, read.
struct Entry {
    name: String,
    description: String,
    input_schema: Value,
    output_schema: Option<Value>,
    annotations: ToolAnnotations,
    examples: Vec<Value>,
}

fn read_entry(entry: &Value) -> Result<Entry, String> {
    let Value::Object(entry) = entry else {
        return Err("expected an object with `name` and `inputSchema`".to_owned());
    };
    let name = match entry.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        Some(Value::String(_)) => return Err("`name` is empty".to_owned()),
        _ => return Err("`name` is missing or not a string".to_owned()),
    };
    let named = |problem: &str| format!("`{name}`: {problem}");
    let description = match entry.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(description)) => description.clone(),
        Some(_) => return Err(named("`description` is not a string")),
    };
    let input_schema = match entry.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        Some(_) => return Err(named("`inputSchema` is not a schema object")),
        None => return Err(named("`inputSchema` is missing")),
    };
    let output_schema = match entry.get("outputSchema") {
        None | Some(Value::Null) => None,
        Some(schema @ Value::Object(_)) => Some(schema.clone()),
        Some(_) => return Err(named("`outputSchema` is not a schema object")),
    };
    let annotations = read_annotations(entry).map_err(|problem| named(&problem))?;
    let examples = match entry.get("inputExamples") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(examples)) => examples.clone(),
        Some(_) => return Err(named("`inputExamples` is not an array")),
    };
    Ok(Entry {
        name,
        description,
        input_schema,
        output_schema,
        annotations,
        examples,
    })
}

/// MCP's annotations: the hints in `annotations`, the title there or beside it.
fn read_annotations(entry: &Map<String, Value>) -> Result<ToolAnnotations, String> {
    let hints = match entry.get("annotations") {
        None | Some(Value::Null) => &Map::new(),
        Some(Value::Object(hints)) => hints,
        Some(_) => return Err("`annotations` is not an object".to_owned()),
    };
    let hint = |key: &str| match hints.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(value)) => Ok(Some(*value)),
        Some(_) => Err(format!("`annotations.{key}` is not a boolean")),
    };
    let title = match hints.get("title").or_else(|| entry.get("title")) {
        None | Some(Value::Null) => None,
        Some(Value::String(title)) => Some(title.clone().into()),
        Some(_) => return Err("`title` is not a string".to_owned()),
    };
    Ok(ToolAnnotations {
        title,
        read_only: hint("readOnlyHint")?,
        destructive: hint("destructiveHint")?,
        idempotent: hint("idempotentHint")?,
        open_world: hint("openWorldHint")?,
    })
}

/// Why a catalog could not be read: one line per entry that could not (`tool 3: ...`).
///
/// ```
/// use lazytool_runtime::catalog_tools;
/// use serde_json::{Value, json};
///
/// let catalog = json!({"tools": [{"name": "get_me", "inputSchema": {"type": "object"}}, {"description": "No name."}]});
/// let error = catalog_tools(&catalog, |_, _: Value, _| async { Ok::<_, String>(json!(null)) }).unwrap_err();
/// assert!(error.to_string().starts_with("invalid tool catalog: tool 1"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogError {
    problems: Vec<String>,
}

impl CatalogError {
    fn new(problems: Vec<String>) -> Self {
        CatalogError { problems }
    }

    fn one(problem: &str) -> Self {
        CatalogError::new(vec![problem.to_owned()])
    }

    /// Every problem, in catalog order.
    ///
    /// ```
    /// use lazytool_runtime::catalog_tools;
    /// use serde_json::{Value, json};
    ///
    /// let catalog = json!([{"description": "No name."}, {"name": "no_schema"}]);
    /// let error = catalog_tools(&catalog, |_, _: Value, _| async { Ok::<_, String>(json!(null)) }).unwrap_err();
    /// assert_eq!(error.problems().len(), 2); // every entry that cannot be read
    /// ```
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid tool catalog: {}", self.problems.join("; "))
    }
}

impl std::error::Error for CatalogError {}
