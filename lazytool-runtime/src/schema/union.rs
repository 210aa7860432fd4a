//! Unions (`anyOf`, `oneOf`) brought into the one shape both dialects take: `anyOf` with only
//! annotations beside it.

use serde_json::{Map, Value};

use super::types::is_null_schema;

/// Keywords that annotate a schema rather than constrain it: they stay on the outer schema when
/// its constraints are pushed into `anyOf` branches.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "nullable",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// `top` laid over `base`: `properties` and `required` are united (`base`'s first), other
/// keywords of `top` replace those of `base`.
fn layer(base: &Map<String, Value>, top: &Map<String, Value>) -> Map<String, Value> {
    let mut out = base.clone();
    for (key, value) in top {
        match (key.as_str(), out.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.insert(name.clone(), schema.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

/// `oneOf` becomes `anyOf` (neither dialect has `oneOf`); with both present `anyOf` wins.
pub(super) fn rename_one_of(map: &mut Map<String, Value>) {
    if let Some(one_of) = map.remove("oneOf")
        && !map.contains_key("anyOf")
    {
        map.insert("anyOf".to_owned(), one_of);
    }
}

/// Pushes the constraints sitting beside `anyOf` (`{"type": "object", "anyOf": [...]}`) into
/// every non-null branch, so that only annotations stay beside `anyOf`.
pub(super) fn distribute(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        return;
    };
    let shared: Map<String, Value> = map
        .iter()
        .filter(|(key, _)| key.as_str() != "anyOf" && !ANNOTATIONS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if shared.is_empty() {
        return;
    }
    let branches: Vec<Value> = branches
        .iter()
        .map(|branch| match branch {
            Value::Object(_) if is_null_schema(branch) => branch.clone(),
            Value::Object(own) => Value::Object(layer(&shared, own)),
            Value::Bool(true) => Value::Object(shared.clone()),
            other => other.clone(),
        })
        .collect();
    for key in shared.keys() {
        map.remove(key);
    }
    map.insert("anyOf".to_owned(), Value::Array(branches));
}
