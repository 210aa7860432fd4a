//! The rules of the schema dialects as checks: what OpenAI strict mode and Gemini's OpenAPI
//! `parameters` field accept. The tests hold every output of
//! `lazytool_runtime::schema::dialect` to them.
//!
//! The checks state the keywords, formats and types they allow themselves instead of sharing
//! the rewrites' lists: a check that shared a list could not catch a wrong entry in it.

use std::fmt::Display;

use serde_json::Value;

/// Whether OpenAI strict mode supports the string format `format`.
fn openai_format(format: &str) -> bool {
    matches!(
        format,
        "date-time"
            | "time"
            | "date"
            | "duration"
            | "email"
            | "hostname"
            | "ipv4"
            | "ipv6"
            | "uuid"
    )
}

/// Every keyword a schema may use in OpenAI strict mode.
const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Every field of Gemini's `Schema` object (an OpenAPI 3.0 subset).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// String formats Gemini's Developer API accepts.
const GEMINI_STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Number formats Gemini accepts.
const GEMINI_NUMBER_FORMATS: &[&str] = &["int32", "int64", "float", "double"];

/// The JSON Schema type names.
const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// A check failure at `path` (shown as a `#`-rooted JSON pointer).
fn failure(path: &str, message: impl Display) -> String {
    format!("#{path}: {message}")
}

/// `base` extended by one JSON pointer segment.
fn join(base: &str, segment: impl Display) -> String {
    let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
    format!("{base}/{segment}")
}

/// Checks that a schema obeys OpenAI strict mode, as
/// [`openai_strict`](lazytool_runtime::schema::dialect::openai_strict) produces it.
///
/// The root must be an object schema; every schema is either a lone `$ref` (resolving inside
/// the schema), an `anyOf` (with only `description`/`title`/`$defs` beside it), or has a
/// `type`; only strict-mode keywords appear; objects list every property in `required` and
/// have `additionalProperties: false`; arrays have `items`; `format` is a supported one; a
/// nullable `enum` lists null. The error names the first violating schema by its path
/// (`#/properties/x/anyOf/0`).
///
/// ```
/// use lazytool_tests::dialect_rules::check_openai_strict;
/// use serde_json::json;
///
/// let closed = json!({
///     "type": "object",
///     "properties": {"a": {"type": "string"}},
///     "required": ["a"],
///     "additionalProperties": false
/// });
/// assert_eq!(check_openai_strict(&closed), Ok(()));
/// let open = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
/// let error = "#: `additionalProperties` must be false".to_owned();
/// assert_eq!(check_openai_strict(&open), Err(error));
/// ```
pub fn check_openai_strict(schema: &Value) -> Result<(), String> {
    match schema.get("type") {
        Some(Value::String(name)) if name == "object" => {}
        _ => {
            return Err(failure(
                "",
                "the root must be an object schema (\"type\": \"object\")",
            ));
        }
    }
    check_strict(schema, schema, "")
}

fn check_strict(schema: &Value, root: &Value, path: &str) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err(failure(path, "expected a schema object"));
    };
    if let Some(key) = map
        .keys()
        .find(|key| !OPENAI_KEYWORDS.contains(&key.as_str()))
    {
        return Err(failure(
            path,
            format!("keyword `{key}` is not supported in strict mode"),
        ));
    }
    for key in ["$defs", "definitions"] {
        if let Some(defs) = map.get(key) {
            let Some(defs) = defs.as_object() else {
                return Err(failure(&join(path, key), "expected an object of schemas"));
            };
            for (name, def) in defs {
                check_strict(def, root, &join(&join(path, key), name))?;
            }
        }
    }
    if let Some(reference) = map.get("$ref") {
        let Some(reference) = reference.as_str() else {
            return Err(failure(path, "`$ref` must be a string"));
        };
        if let Some(key) = map.keys().find(|key| key.as_str() != "$ref") {
            return Err(failure(
                path,
                format!("`$ref` must stand alone, found `{key}` beside it"),
            ));
        }
        // `Value::pointer("")` is the whole document, as `#` is.
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer));
        if target.is_none() {
            return Err(failure(
                path,
                format!("`$ref` {reference} does not resolve inside the schema"),
            ));
        }
        return Ok(());
    }
    if let Some(any_of) = map.get("anyOf") {
        let Some(branches) = any_of.as_array().filter(|b| !b.is_empty()) else {
            return Err(failure(path, "`anyOf` must be a non-empty array"));
        };
        if let Some(key) = map.keys().find(|key| {
            !["anyOf", "description", "title", "$defs", "definitions"].contains(&key.as_str())
        }) {
            return Err(failure(
                path,
                format!("`{key}` beside `anyOf` (constraints belong in the branches)"),
            ));
        }
        for (index, branch) in branches.iter().enumerate() {
            check_strict(branch, root, &join(&join(path, "anyOf"), index))?;
        }
        return Ok(());
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) if !names.is_empty() => {
            let mut types = Vec::new();
            for name in names {
                match name.as_str() {
                    Some(name) if !types.contains(&name) => types.push(name),
                    _ => {
                        return Err(failure(path, "`type` must list distinct type names"));
                    }
                }
            }
            types
        }
        _ => {
            return Err(failure(
                path,
                "every schema needs a `type`, an `anyOf` or a `$ref`",
            ));
        }
    };
    if let Some(name) = types.iter().find(|name| !JSON_TYPES.contains(name)) {
        return Err(failure(path, format!("unknown type `{name}`")));
    }
    let has = |name: &str| types.contains(&name);

    if has("object") {
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            return Err(failure(path, "an object schema needs `properties`"));
        };
        let Some(required) = map.get("required").and_then(Value::as_array) else {
            return Err(failure(path, "an object schema needs `required`"));
        };
        let mut names = Vec::new();
        for name in required {
            let Some(name) = name.as_str() else {
                return Err(failure(path, "`required` must list strings"));
            };
            if !properties.contains_key(name) {
                return Err(failure(
                    path,
                    format!("`required` lists `{name}`, which is not a property"),
                ));
            }
            names.push(name);
        }
        if let Some(name) = properties
            .keys()
            .find(|name| !names.contains(&name.as_str()))
        {
            return Err(failure(
                path,
                format!("property `{name}` is not listed in `required`"),
            ));
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(failure(path, "`additionalProperties` must be false"));
        }
        for (name, property) in properties {
            check_strict(property, root, &join(&join(path, "properties"), name))?;
        }
    } else if let Some(key) = ["properties", "required", "additionalProperties"]
        .iter()
        .find(|key| map.contains_key(**key))
    {
        return Err(failure(path, format!("`{key}` on a non-object schema")));
    }

    if has("array") {
        let Some(items) = map.get("items") else {
            return Err(failure(path, "an array schema needs `items`"));
        };
        check_strict(items, root, &join(path, "items"))?;
    } else if map.contains_key("items") {
        return Err(failure(path, "`items` on a non-array schema"));
    }

    if let Some(format) = map.get("format") {
        match format.as_str() {
            Some(format) if has("string") && openai_format(format) => {}
            _ => {
                return Err(failure(
                    path,
                    format!("`format` {format} is not supported in strict mode"),
                ));
            }
        }
    }
    if let Some(values) = map.get("enum") {
        let Some(values) = values.as_array().filter(|v| !v.is_empty()) else {
            return Err(failure(path, "`enum` must be a non-empty array"));
        };
        if has("null") && !values.contains(&Value::Null) {
            return Err(failure(path, "a nullable `enum` must list null"));
        }
    }
    if let Some(value) = map.get("const")
        && has("null")
        && types.len() > 1
        && !value.is_null()
    {
        return Err(failure(
            path,
            "a nullable schema cannot have a non-null `const`",
        ));
    }
    for key in [
        "multipleOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    ] {
        if map.get(key).is_some_and(|value| !value.is_number()) {
            return Err(failure(path, format!("`{key}` must be a number")));
        }
    }
    for key in ["minItems", "maxItems"] {
        if map.get(key).is_some_and(|value| !value.is_u64()) {
            return Err(failure(
                path,
                format!("`{key}` must be a non-negative integer"),
            ));
        }
    }
    if map.get("pattern").is_some_and(|value| !value.is_string()) {
        return Err(failure(path, "`pattern` must be a string"));
    }
    Ok(())
}

/// Checks that a schema obeys Gemini's OpenAPI `parameters` subset, as
/// [`gemini_openapi`](lazytool_runtime::schema::dialect::gemini_openapi) produces it.
///
/// The root must be an object schema (it alone may have no properties); every schema has a
/// single `type` (string, number, integer, boolean, array, object) or an `anyOf` with only
/// annotations beside it; only Gemini `Schema` fields appear; objects other than the root
/// have properties and `required` names only those; arrays have `items`; `enum` lists strings
/// on a string schema; `format` fits its type. The error names the first violating schema by
/// its path (`#/properties/x/items`).
///
/// ```
/// use lazytool_tests::dialect_rules::check_gemini_openapi;
/// use serde_json::json;
///
/// let nullable = json!({"type": "object", "properties": {"a": {"type": "string", "nullable": true}}});
/// assert_eq!(check_gemini_openapi(&nullable), Ok(()));
/// let type_array = json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}});
/// assert!(check_gemini_openapi(&type_array).is_err_and(|e| e.starts_with("#/properties/a:")));
/// ```
pub fn check_gemini_openapi(schema: &Value) -> Result<(), String> {
    match schema.get("type").and_then(Value::as_str) {
        Some(name) if name.eq_ignore_ascii_case("object") => {}
        _ => {
            return Err(failure(
                "",
                "the root must be an object schema (\"type\": \"object\")",
            ));
        }
    }
    check_gemini(schema, "", true)
}

fn check_gemini(schema: &Value, path: &str, is_root: bool) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err(failure(path, "expected a schema object"));
    };
    if let Some(key) = map
        .keys()
        .find(|key| !GEMINI_KEYWORDS.contains(&key.as_str()))
    {
        return Err(failure(
            path,
            format!("`{key}` is not a field of Gemini's Schema"),
        ));
    }
    if map.get("nullable").is_some_and(|value| !value.is_boolean()) {
        return Err(failure(path, "`nullable` must be a boolean"));
    }
    if let Some(any_of) = map.get("anyOf") {
        let Some(branches) = any_of.as_array().filter(|b| !b.is_empty()) else {
            return Err(failure(path, "`anyOf` must be a non-empty array"));
        };
        if let Some(key) = map.keys().find(|key| {
            ![
                "anyOf",
                "description",
                "title",
                "default",
                "example",
                "nullable",
            ]
            .contains(&key.as_str())
        }) {
            return Err(failure(
                path,
                format!("`{key}` beside `anyOf` (constraints belong in the branches)"),
            ));
        }
        for (index, branch) in branches.iter().enumerate() {
            check_gemini(branch, &join(&join(path, "anyOf"), index), false)?;
        }
        return Ok(());
    }
    let Some(name) = map.get("type").and_then(Value::as_str) else {
        return Err(failure(
            path,
            "every schema needs a single `type` name or an `anyOf`",
        ));
    };
    let name = name.to_ascii_lowercase();
    let kind = name.as_str();
    if !["string", "number", "integer", "boolean", "array", "object"].contains(&kind) {
        return Err(failure(path, format!("`type` {name} is not a Gemini type")));
    }
    for (keys, owner) in [
        (
            &[
                "properties",
                "required",
                "minProperties",
                "maxProperties",
                "propertyOrdering",
            ][..],
            &["object"][..],
        ),
        (&["items", "minItems", "maxItems"][..], &["array"][..]),
        (
            &["minLength", "maxLength", "pattern", "enum"][..],
            &["string"][..],
        ),
        (&["minimum", "maximum"][..], &["number", "integer"][..]),
    ] {
        if !owner.contains(&kind)
            && let Some(key) = keys.iter().find(|key| map.contains_key(**key))
        {
            return Err(failure(path, format!("`{key}` on a {kind} schema")));
        }
    }
    match kind {
        "object" => {
            let properties = match map.get("properties") {
                Some(Value::Object(properties)) => Some(properties),
                None => None,
                Some(_) => return Err(failure(path, "`properties` must be an object")),
            };
            let empty = properties.is_none_or(|properties| properties.is_empty());
            if empty && !is_root {
                return Err(failure(
                    path,
                    "an object schema needs properties (Gemini rejects empty OBJECT types)",
                ));
            }
            if let Some(required) = map.get("required") {
                let Some(required) = required.as_array() else {
                    return Err(failure(path, "`required` must be an array"));
                };
                for name in required {
                    let declared = name
                        .as_str()
                        .is_some_and(|name| properties.is_some_and(|p| p.contains_key(name)));
                    if !declared {
                        return Err(failure(
                            path,
                            format!("`required` lists {name}, which is not a property"),
                        ));
                    }
                }
            }
            for (name, property) in properties.into_iter().flatten() {
                check_gemini(property, &join(&join(path, "properties"), name), false)?;
            }
        }
        "array" => {
            let Some(items) = map.get("items") else {
                return Err(failure(path, "an array schema needs `items`"));
            };
            check_gemini(items, &join(path, "items"), false)?;
        }
        _ => {}
    }
    if let Some(values) = map.get("enum") {
        let all_strings = values
            .as_array()
            .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_string));
        if !all_strings {
            return Err(failure(path, "`enum` must be a non-empty array of strings"));
        }
    }
    if let Some(format) = map.get("format") {
        let allowed = match kind {
            "string" => GEMINI_STRING_FORMATS,
            "number" | "integer" => GEMINI_NUMBER_FORMATS,
            _ => &[][..],
        };
        if !format.as_str().is_some_and(|f| allowed.contains(&f)) {
            return Err(failure(
                path,
                format!("`format` {format} is not accepted on a {kind} schema"),
            ));
        }
    }
    for key in ["minimum", "maximum"] {
        if map.get(key).is_some_and(|value| !value.is_number()) {
            return Err(failure(path, format!("`{key}` must be a number")));
        }
    }
    for key in [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
    ] {
        if map.get(key).is_some_and(|value| !value.is_u64()) {
            return Err(failure(
                path,
                format!("`{key}` must be a non-negative integer"),
            ));
        }
    }
    Ok(())
}
