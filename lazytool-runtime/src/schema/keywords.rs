//! Reading keywords out of a schema map, and copying those that keep their meaning into a
//! rewritten one.

use serde_json::{Map, Value, json};

/// Copies `keys` of `from` that are present into `to`.
pub(super) fn copy_keys(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// Copies `keys` of `from` that hold numbers.
pub(super) fn copy_numbers(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value @ Value::Number(_)) = from.get(*key) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// Copies `keys` of `from` that hold non-negative integers.
pub(super) fn copy_counts(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key).filter(|value| value.is_u64()) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// The item schema of an array schema: `items`, a tuple (`items` as an array, or
/// `prefixItems`) as the union of its members, or `None` when unconstrained.
pub(super) fn item_schema(map: &Map<String, Value>) -> Option<Value> {
    match map.get("items") {
        Some(Value::Array(tuple)) => Some(json!({ "anyOf": tuple })),
        Some(items) => Some(items.clone()),
        None => match map.get("prefixItems") {
            Some(Value::Array(tuple)) => Some(json!({ "anyOf": tuple })),
            _ => None,
        },
    }
}

/// The names in `required`.
pub(super) fn required_names(map: &Map<String, Value>) -> Vec<String> {
    match map.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}
