//! What one request tells the model about one tool: [`ToolDefinition`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as sent to the model: name, description and the JSON Schema of its arguments, in
/// the canonical dialect; providers' wire formats are rendered from it.
///
/// A tool's example arguments travel in the schema's root `examples` keyword (JSON Schema's
/// own, an array of instances): each format renders them its way ([`examples`] reads them,
/// [`without_examples`] leaves them out).
///
/// [`examples`]: ToolDefinition::examples
/// [`without_examples`]: ToolDefinition::without_examples
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

impl ToolDefinition {
    /// The example arguments the definition carries: its schema's root `examples` array.
    ///
    /// ```
    /// use lazytool_runtime::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let definition = ToolDefinition {
    ///     name: "get_forecast".into(),
    ///     description: "Tomorrow's weather in a city.".into(),
    ///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}},
    ///         "examples": [{"city": "Paris"}]}),
    /// };
    /// assert_eq!(definition.examples(), [json!({"city": "Paris"})]);
    /// assert!(definition.without_examples().examples().is_empty());
    /// ```
    pub fn examples(&self) -> &[Value] {
        match self.input_schema.get("examples") {
            Some(Value::Array(examples)) => examples,
            _ => &[],
        }
    }

    /// The definition without its examples (the schema's root `examples` keyword).
    ///
    /// ```
    /// use lazytool_runtime::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let definition = ToolDefinition {
    ///     name: "get_time".into(),
    ///     description: "The current UTC time.".into(),
    ///     input_schema: json!({"type": "object", "examples": [{}]}),
    /// };
    /// assert_eq!(definition.without_examples().input_schema, json!({"type": "object"}));
    /// ```
    pub fn without_examples(&self) -> ToolDefinition {
        let mut definition = self.clone();
        if let Value::Object(schema) = &mut definition.input_schema {
            schema.remove("examples");
        }
        definition
    }

    /// The description with the examples appended, one compact JSON object a line, for the
    /// formats whose tools have no field for them; the description alone without examples.
    ///
    /// ```
    /// use lazytool_runtime::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let definition = ToolDefinition {
    ///     name: "get_forecast".into(),
    ///     description: "Tomorrow's weather in a city.".into(),
    ///     input_schema: json!({"type": "object",
    ///         "examples": [{"city": "Paris", "days": 3}, {"city": "Oslo"}]}),
    /// };
    /// assert_eq!(
    ///     definition.described_with_examples(),
    ///     "Tomorrow's weather in a city.\n\nExamples:\n{\"city\":\"Paris\",\"days\":3}\n{\"city\":\"Oslo\"}"
    /// );
    /// ```
    pub fn described_with_examples(&self) -> String {
        let examples = self.examples();
        if examples.is_empty() {
            return self.description.clone();
        }
        let mut text = self.description.clone();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("Examples:");
        for example in examples {
            text.push('\n');
            text.push_str(&example.to_string());
        }
        text
    }
}
