//! The JSON types a schema allows, as said by `type` or inferred from its other keywords.

use serde_json::{Map, Value};

/// The JSON Schema type names.
const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// Whether a schema only allows `null`.
pub(super) fn is_null_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => matches!(names.as_slice(), [only] if only == "null"),
        _ => false,
    }
}

/// Whether a schema map describes objects.
pub(super) fn is_object_schema(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(name)) => name == "object",
        None => map.contains_key("properties"),
        _ => false,
    }
}

/// The JSON type of a value, as a schema type name.
pub(super) fn value_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The types a schema map allows: its `type` (a name or an array of names), else inferred
/// from its shape (`properties`, `items`, `enum`, `const`); `None` when it says nothing about
/// the type (any value).
pub(super) fn schema_types(map: &Map<String, Value>) -> Option<Vec<String>> {
    fn add(types: &mut Vec<String>, name: &str) {
        if JSON_TYPES.contains(&name) && !types.iter().any(|t| t == name) {
            types.push(name.to_owned());
        }
    }
    let mut types: Vec<String> = Vec::new();
    match map.get("type") {
        Some(Value::String(name)) => add(&mut types, name),
        Some(Value::Array(names)) => {
            for name in names.iter().filter_map(Value::as_str) {
                add(&mut types, name);
            }
        }
        _ => {}
    }
    if types.is_empty() {
        if ["properties", "additionalProperties", "required"]
            .iter()
            .any(|key| map.contains_key(*key))
        {
            add(&mut types, "object");
        } else if ["items", "prefixItems"]
            .iter()
            .any(|key| map.contains_key(*key))
        {
            add(&mut types, "array");
        } else if let Some(Value::Array(values)) = map.get("enum") {
            for value in values {
                add(&mut types, value_type(value));
            }
        } else if let Some(value) = map.get("const") {
            add(&mut types, value_type(value));
        }
        if types.iter().any(|t| t == "number") {
            types.retain(|t| t != "integer");
        }
    }
    (!types.is_empty()).then_some(types)
}
