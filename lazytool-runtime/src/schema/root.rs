//! The root of a tool's schema made into one object schema, as both dialects require.

use serde_json::{Map, Value, json};

use super::types::{is_null_schema, is_object_schema};
use super::union::{distribute, rename_one_of};
use super::walk::{Walk, expand, expand_alone};

/// The root of a tool schema made into one object schema: a root `$ref` is resolved, `allOf`
/// merged, and a root union of object schemas (a null branch aside) flattened into one object
/// whose properties are all the branches' properties and whose required properties are those
/// every branch requires. Whatever still keeps the root from being an object schema (a union
/// of other schemas, an unresolvable or recursive `$ref`, another or a nullable type) is
/// dropped: a tool's arguments are always an object.
pub(super) fn prepare_root(schema: &Value) -> Value {
    let Some(mut map) = expand(schema, &mut Walk::new(schema), 0) else {
        return json!({"type": "object", "properties": {}});
    };
    rename_one_of(&mut map);
    if let Some(flat) = flatten_object_union(&map, schema) {
        map = flat;
    }
    for key in ["anyOf", "$ref", "nullable", "enum", "const"] {
        map.remove(key);
    }
    map.insert("type".to_owned(), json!("object"));
    Value::Object(map)
}

/// A schema whose `anyOf` branches (a null branch aside) are all object schemas, as one
/// object schema (see [`prepare_root`]); `None` for any other schema.
fn flatten_object_union(map: &Map<String, Value>, root: &Value) -> Option<Map<String, Value>> {
    let mut map = map.clone();
    distribute(&mut map);
    let Some(Value::Array(branches)) = map.remove("anyOf") else {
        return None;
    };
    let expanded = branches
        .iter()
        .filter(|branch| !is_null_schema(branch))
        .map(|branch| expand_alone(branch, root))
        .collect::<Option<Vec<_>>>()?;
    if expanded.is_empty() || !expanded.iter().all(is_object_schema) {
        return None;
    }
    let mut properties = Map::new();
    let mut required: Option<Vec<Value>> = None;
    for branch in &expanded {
        if let Some(Value::Object(own)) = branch.get("properties") {
            for (name, property) in own {
                if !properties.contains_key(name) {
                    properties.insert(name.clone(), property.clone());
                }
            }
        }
        let own: Vec<Value> = match branch.get("required") {
            Some(Value::Array(names)) => names.clone(),
            _ => Vec::new(),
        };
        required = Some(match required {
            None => own,
            Some(so_far) => so_far.into_iter().filter(|n| own.contains(n)).collect(),
        });
    }
    map.insert("properties".to_owned(), Value::Object(properties));
    map.insert(
        "required".to_owned(),
        Value::Array(required.unwrap_or_default()),
    );
    Some(map)
}
