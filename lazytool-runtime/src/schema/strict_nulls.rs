//! Undoing what OpenAI strict mode does to a model's arguments: the `null`s it sends for
//! properties the canonical schema leaves optional.

use serde_json::{Map, Value};

use super::keywords::{item_schema, required_names};
use super::types::{is_null_schema, schema_types};
use super::union::rename_one_of;
use super::walk::{MAX_DEPTH, Walk, expand, expand_alone};

/// Removes the `null`s a strict-mode model sends for properties the canonical schema left
/// optional, so the arguments validate against the canonical (`original`) schema again.
///
/// A null member is removed when its property is not required and its canonical schema does
/// not allow null; everything else is kept. Follows properties, `items`, local `$ref`s,
/// `allOf`, and of `anyOf`/`oneOf` the one non-null branch or, for an object value, the first
/// object branch that declares all its non-null members. OpenAI Chat sends arguments as a JSON
/// string: parse it first.
///
/// ```
/// use lazytool_runtime::schema::strip_strict_nulls;
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "title": {"type": "string"},
///         "body": {"type": "string"},
///         "due": {"type": ["string", "null"]}
///     },
///     "required": ["title"]
/// });
/// // `body` was left out; `due: null` means "no due date", which the schema allows.
/// let arguments = json!({"title": "Flaky test", "body": null, "due": null});
/// assert_eq!(
///     strip_strict_nulls(&schema, &arguments),
///     json!({"title": "Flaky test", "due": null})
/// );
/// ```
pub fn strip_strict_nulls(original: &Value, arguments: &Value) -> Value {
    strip_nulls(original, original, arguments, 0)
}

/// Whether a canonical schema allows null.
fn allows_null(schema: &Value, walk: &mut Walk<'_>, depth: usize) -> bool {
    let mark = walk.inlined.len();
    let map = expand(schema, walk, mark).filter(|_| depth <= MAX_DEPTH);
    walk.inlined.truncate(mark);
    let Some(map) = map else {
        return schema != &Value::Bool(false);
    };
    if map.get("nullable") == Some(&Value::Bool(true)) {
        return true;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return branches
                .iter()
                .any(|branch| allows_null(branch, walk, depth + 1));
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(value) = map.get("const") {
        return value.is_null();
    }
    match schema_types(&map) {
        Some(types) => types.iter().any(|t| t == "null"),
        None => true,
    }
}

fn strip_nulls(root: &Value, schema: &Value, value: &Value, depth: usize) -> Value {
    let Some(mut map) = expand_alone(schema, root).filter(|_| depth <= MAX_DEPTH) else {
        return value.clone();
    };
    rename_one_of(&mut map);
    let branches: Vec<Map<String, Value>> = match map.get("anyOf") {
        Some(Value::Array(branches)) => branches
            .iter()
            .filter(|branch| !is_null_schema(branch))
            .filter_map(|branch| expand_alone(branch, root))
            .collect(),
        _ => Vec::new(),
    };
    match value {
        Value::Object(members) => {
            let shape = if map.contains_key("properties") || branches.is_empty() {
                Some(&map)
            } else if branches.len() == 1 {
                branches.first()
            } else {
                branches.iter().find(|branch| {
                    let declared = branch.get("properties").and_then(Value::as_object);
                    declared.is_some_and(|declared| {
                        members
                            .iter()
                            .all(|(name, member)| member.is_null() || declared.contains_key(name))
                    })
                })
            };
            let Some(shape) = shape else {
                return value.clone();
            };
            let required = required_names(shape);
            let declared = shape.get("properties").and_then(Value::as_object);
            let mut kept = Map::new();
            for (name, member) in members {
                let property = declared.and_then(|declared| declared.get(name));
                if member.is_null()
                    && !required.contains(name)
                    && property.is_some_and(|p| !allows_null(p, &mut Walk::new(root), 0))
                {
                    continue;
                }
                let member = match property {
                    Some(property) => strip_nulls(root, property, member, depth + 1),
                    None => member.clone(),
                };
                kept.insert(name.clone(), member);
            }
            Value::Object(kept)
        }
        Value::Array(elements) => {
            let items = item_schema(&map).or_else(|| match branches.as_slice() {
                [only] => item_schema(only),
                _ => None,
            });
            match items {
                Some(items) => Value::Array(
                    elements
                        .iter()
                        .map(|element| strip_nulls(root, &items, element, depth + 1))
                        .collect(),
                ),
                None => value.clone(),
            }
        }
        other => other.clone(),
    }
}

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
