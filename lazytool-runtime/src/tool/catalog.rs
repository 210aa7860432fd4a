//! Tool catalogs written as data: the shape of an MCP `tools/list` result, as another MCP
//! server or a catalog file lists its tools.

use std::fmt::{self, Display};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{DynamicTool, ToolAnnotations};
use crate::call::{ToolContext, ToolResult};

/// Reads the tools of a catalog shaped like an MCP `tools/list` result —
/// `{"tools": [{"name", "description"?, "inputSchema", "outputSchema"?, "title"?,
/// "annotations"?}]}`, or that array alone — as [`DynamicTool`]s, in catalog order, every one
/// run by `handler(name, arguments, context)` (a proxy forwards the call to where the catalog
/// came from). Annotations (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`,
/// `openWorldHint`) are kept; other members are ignored. Mark the tools lazy with
/// [`DynamicTool::lazy`] before handing them to
/// [`RegistryBuilder::tools`](crate::RegistryBuilder::tools), which checks their names and
/// schemas.
///
/// Every entry that cannot be read is reported, not just the first.
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
    let entries = match catalog {
        Value::Array(entries) => entries,
        Value::Object(object) => match object.get("tools") {
            Some(Value::Array(entries)) => entries,
            _ => {
                return Err(CatalogError::new(vec![
                    "the catalog has no `tools` array".to_owned(),
                ]));
            }
        },
        _ => {
            return Err(CatalogError::new(vec![
                "a catalog is an object with a `tools` array, or that array".to_owned(),
            ]));
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
            name,
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
        tools.push(tool);
    }
    if problems.is_empty() {
        Ok(tools)
    } else {
        Err(CatalogError::new(problems))
    }
}

/// One catalog entry, read.
struct Entry {
    name: String,
    description: String,
    input_schema: Value,
    output_schema: Option<Value>,
    annotations: ToolAnnotations,
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
    Ok(Entry {
        name,
        description,
        input_schema,
        output_schema,
        annotations,
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
