//! What a dialect rewrite cannot express: [`SchemaLoss`], collected in a [`Rewrite`].

use std::fmt;

use serde_json::{Map, Value};

/// Part of a schema that a dialect cannot express, so that the rewritten schema rejects
/// arguments the tool accepts (or cannot describe them at all).
///
/// ```
/// use lazytool_runtime::schema::dialect::openai_strict_rewrite;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"value": {}}});
/// let loss = &openai_strict_rewrite(&schema).losses[0];
/// assert!(loss.to_string().starts_with("/properties/value: any value"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaLoss {
    /// Where, as a JSON pointer into the schema that was rewritten
    /// (`/properties/ranges/items`); `""` is the root.
    pub path: String,
    /// What cannot be expressed, and what the rewrite made of it.
    pub what: String,
}

impl fmt::Display for SchemaLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.what)
    }
}

/// A schema rewritten into a dialect, with what the dialect could not express.
///
/// ```
/// use lazytool_runtime::schema::dialect::gemini_openapi_rewrite;
/// use serde_json::json;
///
/// let rewrite = gemini_openapi_rewrite(&json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
/// assert!(rewrite.losses.is_empty());
/// assert_eq!(rewrite.schema["properties"]["n"], json!({"type": "integer"}));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Rewrite {
    /// The rewritten schema.
    pub schema: Value,
    /// What it lost, in the order the rewrite met it; empty when nothing.
    pub losses: Vec<SchemaLoss>,
}

/// Whether an object schema takes entries under keys it does not list: a map
/// (`additionalProperties` that is a schema or `true`, `patternProperties`), or an object
/// without properties that is not closed (a free-form object, such as GitHub's workflow
/// `inputs`). An object with properties and no `additionalProperties` is a struct: its other
/// keys mean nothing; so does a root without properties (a tool without parameters).
pub(in crate::schema) fn has_map_entries(map: &Map<String, Value>, is_root: bool) -> bool {
    let additional = map.get("additionalProperties");
    let patterns = map
        .get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|patterns| !patterns.is_empty());
    let no_properties = map
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    matches!(additional, Some(Value::Object(_) | Value::Bool(true)))
        || patterns
        || (no_properties && additional.is_none() && !is_root)
}

/// What a schema that says nothing about its type turned into: the scalar-and-array union
/// of "any value" has no objects.
pub(in crate::schema) const ANY_VALUE: &str = "any value: the dialect has no \"any\", so it became a union of scalars and arrays that cannot hold objects";

/// A schema the rewrite stopped at (nested too deeply, or past its budget of visits).
pub(in crate::schema) const TOO_LARGE: &str = "nested too deeply or too large to rewrite: cut here";
