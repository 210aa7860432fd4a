//! Which keywords of a schema hold subschemas, and which hold instance data.

use serde_json::Value;

/// How the value of a schema keyword is traversed.
enum KeywordKind {
    /// Instance data (`const`, `enum`, `default`, ...): never holds subschemas.
    Data,
    /// An object whose values are schemas (`properties`, `$defs`, ...).
    SchemaMap,
    /// A schema or an array of schemas. Unknown keywords are treated this way so that
    /// references hidden in extensions are still seen.
    Schemas,
}

fn keyword_kind(keyword: &str) -> KeywordKind {
    match keyword {
        "const" | "enum" | "default" | "examples" | "example" => KeywordKind::Data,
        "properties" | "patternProperties" | "dependentSchemas" | "dependencies" | "$defs"
        | "definitions" => KeywordKind::SchemaMap,
        _ => KeywordKind::Schemas,
    }
}

/// The direct subschemas of `schema`.
pub(super) fn subschemas(schema: &Value) -> Vec<&Value> {
    let Value::Object(map) = schema else {
        return Vec::new();
    };
    let mut children = Vec::new();
    for (keyword, value) in map {
        match (keyword_kind(keyword), value) {
            (KeywordKind::Data, _) => {}
            (KeywordKind::SchemaMap, Value::Object(schemas)) => children.extend(schemas.values()),
            (_, Value::Array(schemas)) => children.extend(schemas),
            (_, value) => children.push(value),
        }
    }
    children
}

/// The direct subschemas of `schema`, mutably.
pub(super) fn subschemas_mut(schema: &mut Value) -> Vec<&mut Value> {
    let Value::Object(map) = schema else {
        return Vec::new();
    };
    let mut children = Vec::new();
    for (keyword, value) in map {
        match (keyword_kind(keyword), value) {
            (KeywordKind::Data, _) => {}
            (KeywordKind::SchemaMap, Value::Object(schemas)) => {
                children.extend(schemas.values_mut());
            }
            (_, Value::Array(schemas)) => children.extend(schemas),
            (_, value) => children.push(value),
        }
    }
    children
}
