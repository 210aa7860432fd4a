//! What one request tells the model about one tool: [`ToolDefinition`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as sent to the model: name, description and the JSON Schema of its arguments, in
/// the canonical dialect; providers' wire formats are rendered from it.
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
