//! What one request tells the model about one tool: [`ToolDefinition`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as sent to the model: name, description and the JSON Schema of its arguments, in
/// the canonical dialect; providers' wire formats are rendered from it.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::anthropic;
/// use serde_json::json;
///
/// let definition = ToolDefinition {
///     name: "get_time".into(),
///     description: "The current UTC time.".into(),
///     input_schema: json!({"type": "object", "properties": {}}),
/// };
/// // Its JSON is MCP's (and TanStack AI's) shape; providers render their own from it.
/// assert_eq!(serde_json::to_value(&definition).unwrap()["inputSchema"], definition.input_schema);
/// assert_eq!(anthropic::render_tools(&[definition])[0]["input_schema"]["type"], "object");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The JSON Schema of the tool's arguments (an object schema).
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
}
