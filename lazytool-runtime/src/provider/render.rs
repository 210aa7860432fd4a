//! What every format's tool definitions share: the schema's root as an object
//! ([`object_root`]), a tool's examples in its description for the formats with no field
//! for them ([`examples_in_description`]), and the losses of a schema's dialect rewrite as
//! one line for events ([`losses_text`]).

use std::borrow::Cow;

use serde_json::Value;

use crate::tool::ToolDefinition;

/// The definition as a format with no field for examples sends it: its examples appended to
/// the description and out of the schema (where a strict dialect would refuse them).
pub(crate) fn examples_in_description(tool: &ToolDefinition) -> Cow<'_, ToolDefinition> {
    if tool.examples().is_empty() {
        return Cow::Borrowed(tool);
    }
    let mut plain = tool.without_examples();
    plain.description = tool.described_with_examples();
    Cow::Owned(plain)
}

/// The root of a tool's schema as every provider wants it: an object schema. A schema map
/// without `type` gets `"type": "object"`; anything that is not a map becomes an empty object
/// schema.
pub(crate) fn object_root(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut map = map.clone();
            if !map.contains_key("type") {
                map.insert("type".to_owned(), Value::String("object".to_owned()));
            }
            Value::Object(map)
        }
        _ => serde_json::json!({"type": "object", "properties": {}}),
    }
}

/// Schema losses as one line, for events.
pub(crate) fn losses_text(losses: &[crate::schema::dialect::SchemaLoss]) -> String {
    let lines: Vec<String> = losses.iter().map(ToString::to_string).collect();
    lines.join("; ")
}
