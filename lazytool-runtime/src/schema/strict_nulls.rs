//! Optional properties, for which a strict-mode model sends `null`s that have to be stripped
//! before validation (`provider::dialect::strip_strict_nulls` strips them).

use serde_json::Value;

/// Whether some object in `schema` has a property that is not required: only then can a
/// `null` given for an optional property need stripping before validation.
pub(crate) fn has_optional_properties(schema: &Value) -> bool {
    fn walk(schema: &Value, depth: usize) -> bool {
        let Value::Object(map) = schema else {
            return false;
        };
        if depth > 64 {
            return true;
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required = map.get("required").and_then(Value::as_array);
            let required = |name: &str| required.is_some_and(|r| r.iter().any(|n| n == name));
            if properties.keys().any(|name| !required(name)) {
                return true;
            }
        }
        map.values().any(|value| match value {
            Value::Object(_) => walk(value, depth + 1),
            Value::Array(items) => items.iter().any(|item| walk(item, depth + 1)),
            _ => false,
        })
    }
    walk(schema, 0)
}
