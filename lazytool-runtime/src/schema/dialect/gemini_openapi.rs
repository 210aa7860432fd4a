//! Gemini's `parameters` field: an OpenAPI 3.0 subset of JSON Schema.

use serde_json::{Map, Value, json};

use super::{ANY_VALUE, Rewrite, TOO_LARGE, has_map_entries};
use crate::schema::keywords::{copy_counts, copy_keys, copy_numbers, item_schema, required_names};
use crate::schema::root::prepare_root;
use crate::schema::types::{is_null_schema, schema_types, value_type};
use crate::schema::union::{distribute, rename_one_of};
use crate::schema::walk::{MAX_DEPTH, Walk, expand};

/// String formats Gemini's Developer API accepts.
const GEMINI_STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Number formats Gemini accepts.
const GEMINI_NUMBER_FORMATS: &[&str] = &["int32", "int64", "float", "double"];

/// Rewrites a tool's JSON Schema into the OpenAPI 3.0 subset of Gemini's `parameters` field.
///
/// * local `$ref`s are inlined (the referring schema's own keywords winning); a reference back
///   into a schema that is being inlined (recursion) is cut;
/// * `["x", "null"]` types become `"type": "x", "nullable": true`; several non-null types
///   become an `anyOf` of one schema per type; an `anyOf` branch `{"type": "null"}` becomes
///   `nullable: true` on the rest, and a single remaining branch is inlined; `oneOf` becomes
///   `anyOf`; `allOf` is merged; constraints beside `anyOf` are pushed into its branches;
/// * `const` becomes a one-value `enum` for strings, `minimum` = `maximum` for numbers;
///   `enum` is kept for strings only (other values are listed in the description);
///   numeric `exclusiveMinimum`/`exclusiveMaximum` are folded into `minimum`/`maximum` (plus
///   one for integers); `format` is kept for `enum`/`date-time` strings and
///   `int32`/`int64`/`float`/`double` numbers; keywords outside Gemini's `Schema`
///   (`additionalProperties`, `$schema`, `$defs`, `examples`, ...) are dropped; `default`,
///   `title`, `example`, `pattern`, lengths and bounds are kept;
/// * a schema that allows any value becomes the union of nullable string, number, boolean
///   and arrays of those.
///
/// Gemini rejects an object schema without properties and an array without `items`. A
/// property whose schema cannot be expressed (a free-form object, an object whose properties
/// all dropped out, a cut recursive reference, an array of any of those) is therefore left
/// out of its parent, and out of `required`; an `anyOf` branch likewise. The root is always
/// an object schema and may end up with no properties: send such a tool without
/// `parameters` (as the Gemini provider's `render_tools` does).
///
/// ```
/// use lazytool_runtime::schema::dialect::gemini_openapi;
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "state": {"enum": ["open", "closed", null]},
///         "limit": {"type": "integer", "format": "uint32", "exclusiveMinimum": 0},
///         "labels": {"type": "object", "additionalProperties": {"type": "string"}}
///     },
///     "required": ["state"],
///     "additionalProperties": false
/// });
/// assert_eq!(
///     gemini_openapi(&schema),
///     json!({
///         "type": "object",
///         "properties": {
///             "state": {"type": "string", "enum": ["open", "closed"], "nullable": true},
///             "limit": {"type": "integer", "minimum": 1}
///         },
///         "required": ["state"]
///     })
/// );
/// ```
///
/// [`gemini_openapi_rewrite`] also says what was left out.
pub fn gemini_openapi(schema: &Value) -> Value {
    gemini_openapi_rewrite(schema).schema
}

/// [`gemini_openapi`], with what the OpenAPI subset cannot express and the rewrite left out:
/// a map (`additionalProperties` that is a schema or `true`, `patternProperties`; the subset
/// has neither), an object without properties, a recursive reference (cut), a value of any
/// type (its "any" union has no objects), a schema too deep or too large to rewrite. Each
/// loss names its place in `schema`. Gemini takes no other dialect in `parameters`: send
/// such a tool through `parametersJsonSchema` where the endpoint has it, or change its
/// types (the Gemini provider's `render_tools` reports these losses as `warn` events).
///
/// ```
/// use lazytool_runtime::schema::dialect::gemini_openapi_rewrite;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {
///     "city": {"type": "string"},
///     "ranges": {"type": ["object", "null"], "additionalProperties": {"type": "string"}}
/// }});
/// let rewrite = gemini_openapi_rewrite(&schema);
/// assert!(rewrite.schema["properties"].get("ranges").is_none());
/// assert_eq!(rewrite.losses[0].path, "/properties/ranges");
/// ```
pub fn gemini_openapi_rewrite(schema: &Value) -> Rewrite {
    let root = prepare_root(schema);
    let mut walk = Walk::new(&root);
    let rewritten = gemini_schema(&root, &mut walk, 0, true);
    let schema = match rewritten {
        Some(Value::Object(map)) if map.get("type") == Some(&json!("object")) => Value::Object(map),
        _ => {
            let mut map = Map::new();
            if let Value::Object(source) = &root {
                copy_keys(source, &mut map, &["description", "title"]);
            }
            map.insert("type".to_owned(), json!("object"));
            map.insert("properties".to_owned(), json!({}));
            Value::Object(map)
        }
    };
    Rewrite {
        schema,
        losses: walk.losses,
    }
}

/// The nullable scalar types of the Gemini "any value" union.
fn gemini_scalars() -> Vec<Value> {
    vec![
        json!({"type": "string", "nullable": true}),
        json!({"type": "number", "nullable": true}),
        json!({"type": "boolean", "nullable": true}),
    ]
}

/// The Gemini "any value" union.
fn gemini_any() -> Map<String, Value> {
    let mut branches = gemini_scalars();
    branches.push(json!({"type": "array", "nullable": true, "items": {"anyOf": gemini_scalars()}}));
    let mut map = Map::new();
    map.insert("anyOf".to_owned(), Value::Array(branches));
    map
}

/// One schema out of alternatives: none is `None`, one is itself, more an `anyOf`.
fn gemini_union(mut branches: Vec<Value>) -> Option<Map<String, Value>> {
    match branches.len() {
        0 => None,
        1 => match branches.pop() {
            Some(Value::Object(map)) => Some(map),
            _ => None,
        },
        _ => {
            let mut map = Map::new();
            map.insert("anyOf".to_owned(), Value::Array(branches));
            Some(map)
        }
    }
}

/// Marks a Gemini schema nullable (every branch of an `anyOf`).
fn gemini_set_nullable(map: &mut Map<String, Value>) {
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for branch in branches {
            if let Value::Object(branch) = branch {
                branch.insert("nullable".to_owned(), Value::Bool(true));
            }
        }
    } else {
        map.insert("nullable".to_owned(), Value::Bool(true));
    }
}

/// Lists values in a description note.
fn values_note(values: &[Value]) -> String {
    let listed: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("Allowed values: {}.", listed.join(", "))
}

fn gemini_schema(
    schema: &Value,
    walk: &mut Walk<'_>,
    depth: usize,
    is_root: bool,
) -> Option<Value> {
    let mark = walk.inlined.len();
    let out = gemini_inlined(schema, walk, depth, is_root, mark);
    walk.inlined.truncate(mark);
    out
}

/// [`gemini_schema`] with the references `schema` inlines kept on `walk.inlined` past `mark`,
/// so that its children see them as recursion.
fn gemini_inlined(
    schema: &Value,
    walk: &mut Walk<'_>,
    depth: usize,
    is_root: bool,
    mark: usize,
) -> Option<Value> {
    if schema == &Value::Bool(false) {
        return None;
    }
    if depth > MAX_DEPTH {
        walk.lose(TOO_LARGE);
        return None;
    }
    if !schema.is_object() {
        walk.lose(ANY_VALUE);
        return Some(Value::Object(gemini_any()));
    }
    let Some(mut map) = expand(schema, walk, mark) else {
        walk.lose(TOO_LARGE);
        return None;
    };
    if let Some(Value::String(reference)) = map.get("$ref") {
        let resolves = crate::schema::walk::resolve(walk.root, reference).is_some();
        walk.lose(if resolves {
            format!(
                "a recursive reference (`{reference}`), which the subset cannot express: left out"
            )
        } else {
            format!("the reference `{reference}` does not resolve: left out")
        });
        return None;
    }
    rename_one_of(&mut map);
    distribute(&mut map);
    let mut nullable = map.get("nullable") == Some(&Value::Bool(true));

    let mut out = Map::new();
    copy_keys(
        &map,
        &mut out,
        &["description", "title", "default", "example"],
    );
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && values.contains(&Value::Null)
    {
        values.retain(|value| !value.is_null());
        nullable = true;
    }

    let body = if let Some(Value::Array(branches)) = map.get("anyOf") {
        let mut kept = Vec::new();
        for (index, branch) in branches.iter().enumerate() {
            if is_null_schema(branch) {
                nullable = true;
            } else if let Some(branch) = walk.at(&["anyOf", &index.to_string()], |walk| {
                gemini_schema(branch, walk, depth + 1, false)
            }) {
                kept.push(branch);
            }
        }
        gemini_union(kept)?
    } else if let Some(mut types) = schema_types(&map) {
        if types.iter().any(|t| t == "null") {
            nullable = true;
            types.retain(|t| t != "null");
        }
        let mut notes = Vec::new();
        let mut parts = Vec::new();
        for name in &types {
            if let Some(part) = gemini_typed(&map, name, walk, depth, is_root, &mut notes) {
                parts.push(Value::Object(part));
            }
        }
        if !notes.is_empty() {
            let mut text = out
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            for note in notes {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&note);
            }
            out.insert("description".to_owned(), Value::String(text));
        }
        gemini_union(parts)?
    } else {
        walk.lose(ANY_VALUE);
        gemini_any()
    };
    for (key, value) in body {
        if !out.contains_key(&key) {
            out.insert(key, value);
        }
    }
    if nullable {
        gemini_set_nullable(&mut out);
    }
    Some(Value::Object(out))
}

/// The schema of one type out of a (possibly multi-typed) schema map, with the keywords that
/// apply to that type; `None` when Gemini cannot express it.
fn gemini_typed(
    map: &Map<String, Value>,
    name: &str,
    walk: &mut Walk<'_>,
    depth: usize,
    is_root: bool,
    notes: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    out.insert("type".to_owned(), json!(name));
    let values: Option<Vec<Value>> = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.clone()),
        (None, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    };
    // The values of this type (an integer is a number too); `None` when there are none.
    let values = values
        .map(|values| {
            values
                .into_iter()
                .filter(|value| {
                    let kind = value_type(value);
                    kind == name || name == "number" && kind == "integer"
                })
                .collect::<Vec<_>>()
        })
        .filter(|values| !values.is_empty());
    match name {
        "string" => {
            if let Some(values) = values {
                out.insert("enum".to_owned(), Value::Array(values));
            }
            if let Some(Value::String(format)) = map.get("format")
                && GEMINI_STRING_FORMATS.contains(&format.as_str())
            {
                out.insert("format".to_owned(), json!(format));
            }
            copy_counts(map, &mut out, &["minLength", "maxLength"]);
            if let Some(pattern @ Value::String(_)) = map.get("pattern") {
                out.insert("pattern".to_owned(), pattern.clone());
            }
        }
        "number" | "integer" => {
            if let Some(Value::String(format)) = map.get("format")
                && GEMINI_NUMBER_FORMATS.contains(&format.as_str())
            {
                out.insert("format".to_owned(), json!(format));
            }
            copy_numbers(map, &mut out, &["minimum", "maximum"]);
            fold_exclusive(map, name == "integer", &mut out);
            match values.as_deref() {
                Some([only]) => {
                    out.insert("minimum".to_owned(), only.clone());
                    out.insert("maximum".to_owned(), only.clone());
                }
                Some(values) => notes.push(values_note(values)),
                None => {}
            }
        }
        "boolean" => {
            if let Some(values) = values {
                notes.push(values_note(&values));
            }
        }
        "array" => {
            let items = item_schema(map).unwrap_or(Value::Bool(true));
            let items = walk.at(&["items"], |walk| {
                gemini_schema(&items, walk, depth + 1, false)
            })?;
            out.insert("items".to_owned(), items);
            copy_counts(map, &mut out, &["minItems", "maxItems"]);
        }
        "object" => {
            let mut properties = Map::new();
            let own = map.get("properties").and_then(Value::as_object);
            for (property, schema) in own.into_iter().flatten() {
                if let Some(schema) = walk.at(&["properties", property], |walk| {
                    gemini_schema(schema, walk, depth + 1, false)
                }) {
                    properties.insert(property.clone(), schema);
                }
            }
            let dropped = properties.is_empty() && !is_root;
            if has_map_entries(map, is_root) {
                walk.lose(if !properties.is_empty() {
                    "entries beside its properties (`additionalProperties`): the subset cannot express them, so only the properties can be sent"
                } else if is_root {
                    "an object with arbitrary keys (a map or free-form object) as the arguments: the subset cannot express it, so none can be sent"
                } else {
                    "an object with arbitrary keys (a map or free-form object), which the subset cannot express: left out"
                });
            } else if dropped && own.is_none_or(Map::is_empty) {
                walk.lose("an object without properties, which Gemini rejects: left out");
            }
            if dropped {
                return None;
            }
            let required: Vec<Value> = required_names(map)
                .into_iter()
                .filter(|property| properties.contains_key(property))
                .map(Value::String)
                .collect();
            out.insert("properties".to_owned(), Value::Object(properties));
            if !required.is_empty() {
                out.insert("required".to_owned(), Value::Array(required));
            }
            copy_counts(map, &mut out, &["minProperties", "maxProperties"]);
        }
        _ => return None,
    }
    Some(out)
}

/// Folds `exclusiveMinimum`/`exclusiveMaximum` (numbers, JSON Schema 2020-12; or draft 4
/// booleans) into `minimum`/`maximum`.
fn fold_exclusive(map: &Map<String, Value>, integer: bool, out: &mut Map<String, Value>) {
    for (exclusive, bound, step, tighter) in [
        ("exclusiveMinimum", "minimum", 1_i64, true),
        ("exclusiveMaximum", "maximum", -1_i64, false),
    ] {
        let limit = match map.get(exclusive) {
            Some(Value::Number(limit)) => Some(limit.clone()),
            Some(Value::Bool(true)) => match out.get(bound) {
                Some(Value::Number(limit)) => Some(limit.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(limit) = limit else {
            continue;
        };
        let limit = match limit.as_i64() {
            Some(whole) if integer => json!(whole.saturating_add(step)),
            _ => Value::Number(limit),
        };
        let keep_existing = match (out.get(bound).and_then(Value::as_f64), limit.as_f64()) {
            (Some(existing), Some(new)) => {
                if tighter {
                    existing > new
                } else {
                    existing < new
                }
            }
            _ => false,
        };
        if !keep_existing {
            out.insert(bound.to_owned(), limit);
        }
    }
}
