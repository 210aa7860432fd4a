//! Property defaults of a canonical object schema: set for `#[arg(default = ...)]`, and the
//! `null` ones schemars writes removed.

use serde_json::Value;

use super::canonical::object_form;

/// Sets `default` of the named property of a canonical object schema (used for
/// `#[arg(default = ...)]`). Returns false if there is no such property.
///
/// An existing `default` is replaced in place; a boolean property schema is first turned into
/// its object form.
pub(crate) fn set_property_default(schema: &mut Value, property: &str, default: Value) -> bool {
    let Some(property) = schema
        .get_mut("properties")
        .and_then(|properties| properties.get_mut(property))
    else {
        return false;
    };
    if let Value::Bool(accepts) = *property {
        *property = Value::Object(object_form(accepts));
    }
    match property {
        Value::Object(map) => {
            map.insert("default".to_owned(), default);
            true
        }
        _ => false,
    }
}

/// Removes a `"default": null` that schemars puts on `Option` fields marked `#[serde(default)]`,
/// for every top-level property; leaves other defaults alone.
pub(crate) fn strip_null_defaults(schema: &mut Value) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        if let Value::Object(map) = property
            && map.get("default").is_some_and(Value::is_null)
        {
            map.shift_remove("default");
        }
    }
}
